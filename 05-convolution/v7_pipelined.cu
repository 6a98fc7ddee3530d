/**
 * @file v7_pipelined.cu
 * @brief v7: bytes in flight — a resident grid in which each block copies its next tiles with
 * 16-byte `cp.async` into spare shared-memory stages while it computes the current one.
 *
 * v6 fills a tile with 4-byte loads, waits at a barrier, computes and stores: inside a block
 * nothing overlaps, and the loads in flight are only those of the blocks that happen to be
 * loading. That is enough while a tile's arithmetic is short (K = 3, 7); at K = 31 the blocks
 * spend longer computing, fewer of them are loading at any time, and v6 falls to 81% of the copy
 * bandwidth. Here (pipeline.cuh) each block walks tiles with a stride of the grid and
 * keeps two stages of copies in flight while it computes a third: one `cp.async` of 16 bytes (no
 * registers, no shared-memory store instruction) per four inputs, the taps travelling with their
 * tile, one barrier per stage. The arithmetic is v6's; only where its inputs come from changed.
 */
#define THREADS    128
#define PER_THREAD 8 /* two groups of 4, as v6 */
#define TAP_STEP   8 /* two steps of 4: the ring of 8 turns once */
#define STAGES     3 /* one computed, two being copied */

#include "pipeline.cuh"

/* Outputs 4t..4t+3 and 4t+512..4t+515 of the tile, v6's sliding windows. */
static __device__ void accumulate(const float *stage, const geometry *g, float *sum)
{
    const float4 *tile4 = (const float4 *)stage;
    const float4 *taps4 = (const float4 *)(stage + g->span);
    float window[2][8];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const float4 in = tile4[threadIdx.x + h * TILE / 8];
        window[h][0] = in.x, window[h][1] = in.y, window[h][2] = in.z, window[h][3] = in.w;
    }
    for (int j = 0; j < g->taps; j += TAP_STEP) {
#pragma unroll
        for (int s = 0; s < 2; s++) {
            const int slot = (4 * s + 4) % 8;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const float4 in = tile4[threadIdx.x + h * TILE / 8 + j / 4 + s + 1];
                window[h][slot] = in.x, window[h][slot + 1] = in.y;
                window[h][slot + 2] = in.z, window[h][slot + 3] = in.w;
            }
            const float4 c4 = taps4[j / 4 + s];
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
}

static __device__ void store(float *y, const geometry *g, const position *p, const float *sum)
{
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const size_t i = p->first + 4 * (size_t)threadIdx.x + h * TILE / 2;
        float *out = y + p->row * g->length + i;
        if (i + 4 <= g->length && ((uintptr_t)out & 15) == 0) {
            *(float4 *)out =
                make_float4(sum[4 * h], sum[4 * h + 1], sum[4 * h + 2], sum[4 * h + 3]);
        } else {
#pragma unroll
            for (int q = 0; q < 4; q++)
                if (i + q < g->length)
                    out[q] = sum[4 * h + q];
        }
    }
}
