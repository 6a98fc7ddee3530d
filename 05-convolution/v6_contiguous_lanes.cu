/**
 * @file v6_contiguous_lanes.cu
 * @brief v6: v5 with each thread's 8 outputs in two groups of 4, a warp's 32 groups side by side,
 * so that its window loads and its stores are contiguous.
 *
 * v4 and v5 give a thread 8 consecutive outputs: lanes sit 32 bytes apart, so every 16-byte
 * shared-memory load of the window is a two-way bank conflict (ncu counts them, and
 * shared-memory stalls: the page), and every 16-byte store leaves half of each sector it touches
 * for the next store to fill. Here lane t owns outputs 4t..4t+3 and 4t+512..4t+515 of the tile:
 * each load and store of a warp covers 512 contiguous bytes, conflict-free and whole sectors.
 * Each group keeps a window of 8 inputs, a ring that turns once per two steps of 4 taps (the loop
 * is unrolled by 8 taps, padded with zero taps), so no value moves between registers; the taps
 * are read 4 at a time, as a broadcast. The work per thread and the tile are v5's.
 */
#include "cl_cuda_check.h"
#include "conv.h"

#define THREADS    128
#define PER_THREAD 8
#define TILE       (THREADS * PER_THREAD) /* outputs per block */

__global__ void __launch_bounds__(THREADS)
    conv_contiguous_lanes(const float *x, const float *w, float *y, int channels, int mask,
                          size_t length, size_t tiles_per_row)
{
    extern __shared__ float4 tile4[]; /* TILE + mask rounded up to 4, + 4 inputs; then the taps */
    float *tile = (float *)tile4;
    const int span = TILE + (mask + 7) / 8 * 8 + 4;
    float *s_taps = tile + span;
    const size_t row = blockIdx.x / tiles_per_row; /* b * C + co */
    const size_t first = (blockIdx.x % tiles_per_row) * TILE;
    const size_t b = row / (size_t)channels, co = row % (size_t)channels;
    const long long tile_start = (long long)first - (mask - 1) / 2;
    const int interior = tile_start >= 0 && tile_start + span <= (long long)length;
    float sum[PER_THREAD] = {0.0f};
    for (int ci = 0; ci < channels; ci++) {
        const float *in = x + (b * (size_t)channels + (size_t)ci) * length;
        for (int k = threadIdx.x; k < span; k += THREADS) {
            const long long at = tile_start + k;
            tile[k] = interior || (at >= 0 && at < (long long)length) ? in[at] : 0.0f;
        }
        const size_t taps = (co * (size_t)channels + (size_t)ci) * (size_t)mask;
        for (int k = threadIdx.x; k < (mask + 7) / 8 * 8; k += THREADS)
            s_taps[k] = k < mask ? w[taps + k] : 0.0f;
        __syncthreads();
        /* outputs 4t..4t+3 and 4t+512..4t+515: a warp's loads and stores contiguous */
        float window[2][8];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const float4 in = tile4[threadIdx.x + h * TILE / 8];
            window[h][0] = in.x, window[h][1] = in.y, window[h][2] = in.z, window[h][3] = in.w;
        }
        for (int j = 0; j < mask; j += 8) {
#pragma unroll
            for (int s = 0; s < 2; s++) {
                const int slot = (4 * s + 4) % 8;
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const float4 in = tile4[threadIdx.x + h * TILE / 8 + j / 4 + s + 1];
                    window[h][slot] = in.x, window[h][slot + 1] = in.y;
                    window[h][slot + 2] = in.z, window[h][slot + 3] = in.w;
                }
                const float4 c4 = ((const float4 *)s_taps)[j / 4 + s];
                const float c[4] = {c4.x, c4.y, c4.z, c4.w};
#pragma unroll
                for (int t = 0; t < 4; t++)
#pragma unroll
                    for (int h = 0; h < 2; h++)
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            sum[4 * h + q] += window[h][(4 * s + q + t) % 8] * c[t];
            }
        }
        __syncthreads(); /* the next channel overwrites the tile */
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const size_t i = first + 4 * (size_t)threadIdx.x + h * TILE / 2;
        float *out = y + row * length + i;
        if (i + 4 <= length && ((size_t)out & 15) == 0) {
            *(float4 *)out =
                make_float4(sum[4 * h], sum[4 * h + 1], sum[4 * h + 2], sum[4 * h + 3]);
        } else {
#pragma unroll
            for (int q = 0; q < 4; q++)
                if (i + q < length)
                    out[q] = sum[4 * h + q];
        }
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
    const size_t shared = (TILE + 2 * (((size_t)s->mask + 7) / 8 * 8) + 4) * sizeof(float);
    conv_contiguous_lanes<<<(unsigned)blocks, THREADS, shared, stream>>>(
        x, w, y, s->channels, s->mask, s->length, tiles_per_row);
    CL_LAUNCH_CHECK("conv_contiguous_lanes");
}
