/**
 * @file broken_versions.cu
 * @brief Deliberately wrong versions, linked with the real harness: the gpu tests expect each to
 * FAIL the check, which shows the check can fail. BROKEN selects the bug at compile time.
 *   1: the course notes' window without the last tap   (an exact int check sees every output off)
 *   2: never writes the last output of a row     (the NaN poison must fail)
 *   3: reads one input channel too few           (a layer's outputs miss a term)
 */
#include "cl_cuda_check.h"
#include "conv.h"

#define BLOCK_SIZE 256

__global__ void conv_broken(const float *x, const float *w, float *y, int channels, int mask,
                            size_t length, size_t outputs)
{
    const size_t o = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (o >= outputs)
        return;
    const size_t i = o % length, row = o / length;
    const size_t b = row / (size_t)channels, co = row % (size_t)channels;
    const long long start = (long long)i - (mask - 1) / 2;
    float sum = 0.0f;
    for (int ci = 0; ci < channels - (BROKEN == 3); ci++) {
        const float *in = x + (b * (size_t)channels + (size_t)ci) * length;
        const float *taps = w + (co * (size_t)channels + (size_t)ci) * (size_t)mask;
        for (int j = 0; j < mask - (BROKEN == 1); j++)
            if (start + j >= 0 && start + j < (long long)length)
                sum += in[start + j] * taps[j];
    }
    if (BROKEN != 2 || i != length - 1)
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
    conv_broken<<<(unsigned)((outputs + BLOCK_SIZE - 1) / BLOCK_SIZE), BLOCK_SIZE, 0, stream>>>(
        x, w, y, s->channels, s->mask, s->length, outputs);
    CL_LAUNCH_CHECK("conv_broken");
}
