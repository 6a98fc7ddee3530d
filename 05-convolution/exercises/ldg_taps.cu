/**
 * @file ldg_taps.cu
 * @brief Exercise "Read-only taps" of 05-convolution (part 1), a solution: v4 with its taps read
 * through the read-only data cache (`__ldg`) instead of the constant cache.
 *
 * The constant cache serves a warp-uniform address in one transaction, but it is small, and at
 * K = 127 the warps of an SM stand at many different taps and thrash it (v5's step). The read-only
 * path goes through L1, which holds the whole filter and serves a uniform address as a broadcast
 * too.
 */
#include "cl_cuda_check.h"
#include "conv.h"

#define THREADS    128
#define PER_THREAD 8
#define TILE       (THREADS * PER_THREAD) /* outputs per block */
/* Tap j of filter @p taps, zero past the mask (the step of 4 may run over it). */
static __device__ float tap(const float *w, size_t taps, int j, int mask)
{
    return j < mask ? __ldg(&w[taps + j]) : 0.0f;
}

__global__ void __launch_bounds__(THREADS)
    conv_register_tiled(const float *__restrict__ x, const float *__restrict__ w, float *y,
                        int channels, int mask, size_t length, size_t tiles_per_row)
{
    extern __shared__ float4 tile4[]; /* TILE + mask rounded up to 4, + 4 inputs */
    float *tile = (float *)tile4;
    const int span = TILE + (mask + 3) / 4 * 4 + 4;
    const size_t row = blockIdx.x / tiles_per_row; /* b * C + co */
    const size_t first = (blockIdx.x % tiles_per_row) * TILE;
    const size_t b = row / (size_t)channels, co = row % (size_t)channels;
    const long long tile_start = (long long)first - (mask - 1) / 2;
    const int interior = tile_start >= 0 && tile_start + span <= (long long)length;
    const int base = threadIdx.x * PER_THREAD; /* this thread's first output in the tile */
    float sum[PER_THREAD] = {0.0f};
    for (int ci = 0; ci < channels; ci++) {
        const float *in = x + (b * (size_t)channels + (size_t)ci) * length;
        for (int k = threadIdx.x; k < span; k += THREADS) {
            const long long at = tile_start + k;
            tile[k] = interior || (at >= 0 && at < (long long)length) ? in[at] : 0.0f;
        }
        __syncthreads();
        const size_t taps = (co * (size_t)channels + (size_t)ci) * (size_t)mask;
        float window[PER_THREAD + 4]; /* inputs base + j .. base + j + 11 */
        const float4 w0 = tile4[base / 4], w1 = tile4[base / 4 + 1];
        window[0] = w0.x, window[1] = w0.y, window[2] = w0.z, window[3] = w0.w;
        window[4] = w1.x, window[5] = w1.y, window[6] = w1.z, window[7] = w1.w;
        for (int j = 0; j < mask; j += 4) {
            const float4 next = tile4[(base + j) / 4 + 2];
            window[8] = next.x, window[9] = next.y, window[10] = next.z, window[11] = next.w;
#pragma unroll
            for (int t = 0; t < 4; t++) {
                const float c = tap(w, taps, j + t, mask);
#pragma unroll
                for (int q = 0; q < PER_THREAD; q++)
                    sum[q] += window[q + t] * c;
            }
#pragma unroll
            for (int q = 0; q < PER_THREAD; q++)
                window[q] = window[q + 4];
        }
        __syncthreads(); /* the next channel overwrites the tile */
    }
    const size_t i = first + (size_t)base;
    float *out = y + row * length + i;
    if (i + PER_THREAD <= length && ((size_t)out & 15) == 0) {
        ((float4 *)out)[0] = make_float4(sum[0], sum[1], sum[2], sum[3]);
        ((float4 *)out)[1] = make_float4(sum[4], sum[5], sum[6], sum[7]);
    } else {
#pragma unroll
        for (int q = 0; q < PER_THREAD; q++)
            if (i + q < length)
                out[q] = sum[q];
    }
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
    const size_t tiles_per_row = (s->length + TILE - 1) / TILE;
    const size_t blocks = tiles_per_row * (size_t)s->batch * (size_t)s->channels;
    const size_t shared = (TILE + ((size_t)s->mask + 3) / 4 * 4 + 4) * sizeof(float);
    conv_register_tiled<<<(unsigned)blocks, THREADS, shared, stream>>>(
        x, w, y, s->channels, s->mask, s->length, tiles_per_row);
    CL_LAUNCH_CHECK("conv_register_tiled");
}
