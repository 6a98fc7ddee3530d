/**
 * @file v7_resident_tiles.cu
 * @brief v7: v6 in a resident grid — as many blocks as the SMs hold at once, each walking tiles and
 * their input channels with a stride of the grid, one stage of inputs and taps at a time.
 *
 * v6 gives every tile a block of its own, and a block's tile position comes from divisions of its
 * index. Here the grid is what the SMs hold (asked from the occupancy calculator for this stage's
 * shared memory), and each block carries its position from tile to tile with additions only: the
 * 64-bit divisions that find the row of a tile index are subroutine calls of dozens of
 * instructions. The loads, the arithmetic and the stores are v6's, moved into functions: a block
 * still loads a stage, waits, computes and waits again, so nothing overlaps inside it. On its own
 * the step changes little; it is what v8 needs, a block that knows which tile comes next.
 */
#include <stdint.h>

#include "cl_cuda_check.h"
#include "cl_device.h"
#include "conv.h"

#define THREADS    128
#define PER_THREAD 8                      /* two groups of 4, as v6 */
#define TAP_STEP   8                      /* two steps of 4: the ring of 8 turns once */
#define TILE       (THREADS * PER_THREAD) /* outputs per tile */

/** Where a stage's inputs and taps sit, and how a block moves: the same for every block. */
typedef struct {
    int channels, mask;
    int halo;          /**< r rounded up to 4: a tile's inputs start this far left of its outputs */
    int lead;          /**< halo - r zero taps in front of the mask */
    int taps;          /**< lead + mask rounded up to TAP_STEP: the taps a tile runs over */
    int span;          /**< inputs per stage: TILE + taps */
    size_t length;     /**< L */
    size_t per_row;    /**< tiles per row */
    size_t rows;       /**< output rows: batch × channels */
    size_t row_step;   /**< a grid stride of tiles is this many rows ... */
    size_t first_step; /**< ... plus this many outputs (carried into the next row past its end) */
    int channel_step;  /**< ... and this many output channels, modulo C */
} geometry;

/**
 * Where a stage is: output row b·C + co, its output channel co, the tile's first output and the
 * input channel ci. A block moves by a grid stride of tiles with additions only: the 64-bit
 * divisions that find the row of a tile index are subroutine calls of dozens of instructions, and
 * in every stage they cost a fifth of a K = 127 tile's work.
 */
typedef struct {
    size_t row, first;
    int co, ci;
} position;

static __device__ position first_position(const geometry *g)
{
    position p;
    p.row = blockIdx.x / g->per_row;
    p.first = blockIdx.x % g->per_row * TILE;
    p.co = (int)(p.row % (size_t)g->channels);
    p.ci = 0;
    return p;
}

/* The next stage: the next input channel, or the first one of the block's next tile. */
static __device__ void advance(position *p, const geometry *g)
{
    if (++p->ci < g->channels)
        return;
    p->ci = 0;
    p->row += g->row_step;
    p->first += g->first_step;
    p->co += g->channel_step;
    if (p->first >= g->per_row * TILE)
        p->first -= g->per_row * TILE, p->row++, p->co++;
    if (p->co >= g->channels)
        p->co -= g->channels;
}

/* Loads the stage at @p p (inputs, then taps) into @p stage, 4 bytes a thread at a time, as v6. */
static __device__ void copy_stage(float *stage, const float *x, const float *w, const geometry *g,
                                  const position *p)
{
    const float *in = x + (p->row - (size_t)p->co + (size_t)p->ci) * g->length; /* b·C + ci */
    const long long start = (long long)p->first - g->halo;
    for (int k = threadIdx.x; k < g->span; k += THREADS) {
        const long long at = start + k;
        stage[k] = at >= 0 && at < (long long)g->length ? in[at] : 0.0f;
    }
    float *taps = stage + g->span;
    const float *filter =
        w + ((size_t)p->co * (size_t)g->channels + (size_t)p->ci) * (size_t)g->mask;
    for (int k = threadIdx.x; k < g->taps; k += THREADS) {
        const int j = k - g->lead;
        taps[k] = j >= 0 && j < g->mask ? filter[j] : 0.0f;
    }
}

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

/* One stage at a time: load, barrier, compute, barrier (the next load overwrites the stage). */
__global__ void __launch_bounds__(THREADS)
    conv_resident_tiles(const float *x, const float *w, float *y, geometry g)
{
    extern __shared__ float4 stage4[]; /* span inputs, then taps taps */
    float *const stage = (float *)stage4;
    float sum[PER_THREAD] = {0.0f};
    for (position now = first_position(&g); now.row < g.rows; advance(&now, &g)) {
        copy_stage(stage, x, w, &g, &now);
        __syncthreads();
        accumulate(stage, &g, sum);
        __syncthreads();
        if (now.ci == g.channels - 1) {
            store(y, &g, &now, sum);
#pragma unroll
            for (int q = 0; q < PER_THREAD; q++)
                sum[q] = 0.0f;
        }
    }
}

size_t conv_workspace_bytes(const conv_shape *s)
{
    (void)s;
    return 0;
}

/* Sets the geometry up and launches one block per resident slot (at most one per tile). */
void conv1d(const float *x, const float *w, float *y, const conv_shape *s, void *workspace,
            cudaStream_t stream)
{
    (void)workspace;
    geometry g;
    const int r = (s->mask - 1) / 2;
    g.channels = s->channels;
    g.mask = s->mask;
    g.halo = (r + 3) / 4 * 4;
    g.lead = g.halo - r;
    g.taps = (g.lead + s->mask + TAP_STEP - 1) / TAP_STEP * TAP_STEP;
    g.span = TILE + g.taps;
    g.length = s->length;
    g.per_row = (s->length + TILE - 1) / TILE;
    g.rows = (size_t)s->batch * (size_t)s->channels;
    const size_t shared = (size_t)(g.span + g.taps) * sizeof(float);
    /* A long mask needs more than the default 48 KB (the SM has 228 KB). */
    static size_t shared_allowed; /* as allowed so far */
    cl_allow_shared_bytes((const void *)conv_resident_tiles, shared, &shared_allowed);
    size_t blocks = cl_resident_blocks((const void *)conv_resident_tiles, THREADS, shared);
    if (blocks > g.per_row * g.rows)
        blocks = g.per_row * g.rows;
    g.row_step = blocks / g.per_row;
    g.first_step = blocks % g.per_row * TILE;
    g.channel_step = (int)(g.row_step % (size_t)s->channels);
    conv_resident_tiles<<<(unsigned)blocks, THREADS, shared, stream>>>(x, w, y, g);
    CL_LAUNCH_CHECK("conv_resident_tiles");
}
