/**
 * @file v1_basic.cu
 * @brief v1: the course notes' `convolution_1D_basic_kernel` — one output per thread, the bounds
 * test inside the tap loop, the mask read from global memory — extended to channels and a batch.
 *
 * Each output reads its C × K inputs and C × K taps straight from global memory; neighbouring
 * threads read overlapping windows, so the L1 and L2 absorb most of the K-fold re-reads, but every
 * tap is a load and every term pays a bounds test. The course notes' kernel has no `i < Width`
 * guard: with a grid rounded up to whole blocks, the threads past the end write P[i] out of bounds
 * (see the page). Here the guard is added and indices are size_t, so a signal of 2^31 samples or
 * more works.
 */
#include "cl_cuda_check.h"
#include "conv.h"

#define BLOCK_SIZE 256

__global__ void __launch_bounds__(BLOCK_SIZE)
    conv_basic(const float *x, const float *w, float *y, int channels, int mask, size_t length,
               size_t outputs)
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
        const float *taps = w + (co * (size_t)channels + (size_t)ci) * (size_t)mask;
        for (int j = 0; j < mask; j++)
            if (start + j >= 0 && start + j < (long long)length)
                sum += in[start + j] * taps[j];
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
    const size_t outputs = (size_t)s->batch * (size_t)s->channels * s->length;
    const size_t blocks = (outputs + BLOCK_SIZE - 1) / BLOCK_SIZE;
    conv_basic<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(x, w, y, s->channels, s->mask,
                                                            s->length, outputs);
    CL_LAUNCH_CHECK("conv_basic");
}
