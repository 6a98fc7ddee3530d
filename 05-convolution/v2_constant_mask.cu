/**
 * @file v2_constant_mask.cu
 * @brief v2: v1 with the mask in `__constant__` memory — every thread of a warp reads the same tap
 * at the same time, and the constant cache serves such a read as one broadcast.
 *
 * In v1 each tap is a global load through L1, issued by every thread. The constant cache answers a
 * warp-uniform address in one transaction and keeps the loads out of the L1 path that the inputs
 * use. It holds 64 KB: C × C × K taps fit for one channel and any mask, but not for a layer such as
 * C = 64, K = 7 (112 KB); there the version falls back to v1's global reads (a warp-uniform
 * branch in the same kernel), which the page's table shows. The taps are copied into the constant
 * bank on the stream, device to device, at every call (a few hundred bytes for one channel).
 */
#include "cl_cuda_check.h"
#include "conv.h"

#define BLOCK_SIZE   256
#define CONST_FLOATS (64 * 1024 / 4 - 64) /* 64 KB, less what the runtime keeps */

__constant__ float const_taps[CONST_FLOATS];

/* The taps come from const_taps when @p in_constant (they fit), else from @p w in global memory;
   the choice is the same for every thread, so the branch never diverges. A load through a pointer
   would not use the constant cache: the kernel must name the __constant__ array itself. */
__global__ void __launch_bounds__(BLOCK_SIZE)
    conv_constant(const float *x, const float *w, int in_constant, float *y, int channels, int mask,
                  size_t length, size_t outputs)
{
    const size_t o = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x; /* output index */
    if (o >= outputs)
        return;
    const size_t i = o % length, row = o / length; /* row = b * C + co */
    const size_t b = row / (size_t)channels, co = row % (size_t)channels;
    const long long start = (long long)i - (mask - 1) / 2; /* first input of the window */
    float sum = 0.0f;
    for (int ci = 0; ci < channels; ci++) {
        const float *in = x + (b * (size_t)channels + (size_t)ci) * length;
        const size_t taps = (co * (size_t)channels + (size_t)ci) * (size_t)mask;
        for (int j = 0; j < mask; j++)
            if (start + j >= 0 && start + j < (long long)length)
                sum += in[start + j] * (in_constant ? const_taps[taps + j] : w[taps + j]);
    }
    y[o] = sum;
}

size_t conv_workspace_bytes(const conv_shape *s)
{
    (void)s;
    return 0;
}

void conv1d(const float *x, const float *w, float *y, const conv_shape *s, void *workspace,
            cudaStream_t stream)
{
    (void)workspace;
    const size_t taps = (size_t)s->channels * (size_t)s->channels * (size_t)s->mask;
    const int in_constant = taps <= CONST_FLOATS;
    if (in_constant)
        CL_CUDA_CHECK(cudaMemcpyToSymbolAsync(const_taps, w, taps * sizeof(float), 0,
                                              cudaMemcpyDeviceToDevice, stream));
    const size_t outputs = (size_t)s->batch * (size_t)s->channels * s->length;
    const size_t blocks = (outputs + BLOCK_SIZE - 1) / BLOCK_SIZE;
    conv_constant<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(x, w, in_constant, y, s->channels,
                                                               s->mask, s->length, outputs);
    CL_LAUNCH_CHECK("conv_constant");
}
