/**
 * @file v9_unrolled_taps.cu
 * @brief v9: v8 with 28 consecutive outputs per thread and the tap loop unrolled 32 taps at a time,
 * so that the window of inputs turns through its registers instead of being moved: the
 * compute-bound side.
 *
 * Past the roofline's bend (K ≈ 90 with one channel) the time is the arithmetic's. Per step of 4
 * taps v8 does 32 FMAs with two 16-byte window loads and one of taps: at K = 127 ncu counts a third
 * of its instructions as something other than FMAs. Here a thread owns 28 consecutive outputs and a
 * window of 32 inputs; each step of 4 taps reads 4 new inputs and 4 taps (two 16-byte shared loads,
 * the taps a broadcast) and does 112 FMAs. Eight steps make a loop iteration, after which the
 * window has turned once around its 32 registers: with the iteration unrolled every register index
 * is a constant and no value moves (ncu: nearly all instructions are FMAs). 28 outputs put lanes
 * 112 bytes apart, an odd number (7) of 16-byte bank groups, so the window loads stay conflict-free
 * (32 would be an eight-way conflict). Taps are padded with zeros to a multiple of 32: at small K
 * that wastes FMAs and lanes store 112 bytes apart, so v7 and v8 stay the versions below the bend.
 * The pipeline is v8's.
 */
#include <cuda_pipeline.h>
#include <stdint.h>

#include "cl_cuda_check.h"
#include "cl_device.h"
#include "conv.h"

#define THREADS    128
#define PER_THREAD 28                     /* lanes 7 float4s apart: conflict-free 16-byte loads */
#define WINDOW     (PER_THREAD + 4)       /* inputs in registers */
#define TAP_STEP   WINDOW                 /* taps per unrolled iteration: the window turns once */
#define STAGES     3                      /* one computed, two being copied */
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

/* Queues the copies of the stage at @p p (inputs, then taps) into @p stage. */
static __device__ void copy_stage(float *stage, const float *x, const float *w, const geometry *g,
                                  const position *p)
{
    const float *in = x + (p->row - (size_t)p->co + (size_t)p->ci) * g->length; /* b·C + ci */
    const long long start = (long long)p->first - g->halo;
    if (start >= 0 && start + g->span <= (long long)g->length &&
        ((uintptr_t)(in + start) & 15) == 0) {
        for (int k = threadIdx.x; k < g->span / 4; k += THREADS)
            __pipeline_memcpy_async(stage + 4 * k, in + start + 4 * k, 16);
    } else {
        for (int k = threadIdx.x; k < g->span; k += THREADS) {
            const long long at = start + k;
            if (at >= 0 && at < (long long)g->length)
                __pipeline_memcpy_async(stage + k, in + at, 4);
            else
                stage[k] = 0.0f;
        }
    }
    float *taps = stage + g->span;
    const float *filter =
        w + ((size_t)p->co * (size_t)g->channels + (size_t)p->ci) * (size_t)g->mask;
    for (int k = threadIdx.x; k < g->taps; k += THREADS) {
        const int j = k - g->lead;
        if (j >= 0 && j < g->mask)
            __pipeline_memcpy_async(taps + k, filter + j, 4);
        else
            taps[k] = 0.0f;
    }
}

/* This thread's outputs. window[] is a ring: at step s of an iteration it holds the inputs
   base + j + 4s .. base + j + 4s + WINDOW - 1 from slot 4s on. */
static __device__ void accumulate(const float *stage, const geometry *g, float *sum)
{
    const float4 *in4 = (const float4 *)stage + threadIdx.x * (PER_THREAD / 4);
    const float4 *taps4 = (const float4 *)(stage + g->span);
    float window[WINDOW];
#pragma unroll
    for (int v = 0; v < PER_THREAD / 4; v++) {
        const float4 in = in4[v];
        window[4 * v] = in.x, window[4 * v + 1] = in.y;
        window[4 * v + 2] = in.z, window[4 * v + 3] = in.w;
    }
    for (int j4 = 0; j4 < g->taps / 4; j4 += TAP_STEP / 4) {
#pragma unroll
        for (int s = 0; s < TAP_STEP / 4; s++) {
            const float4 in = in4[j4 + s + PER_THREAD / 4]; /* the window's next 4 inputs */
            const int slot = (4 * s + PER_THREAD) % WINDOW;
            window[slot] = in.x, window[slot + 1] = in.y;
            window[slot + 2] = in.z, window[slot + 3] = in.w;
            const float4 c4 = taps4[j4 + s];
            const float c[4] = {c4.x, c4.y, c4.z, c4.w};
#pragma unroll
            for (int t = 0; t < 4; t++)
#pragma unroll
                for (int q = 0; q < PER_THREAD; q++)
                    sum[q] += window[(4 * s + q + t) % WINDOW] * c[t];
        }
    }
}

static __device__ void store(float *y, const geometry *g, const position *p, const float *sum)
{
    const size_t i = p->first + (size_t)threadIdx.x * PER_THREAD;
    float *out = y + p->row * g->length + i;
    if (i + PER_THREAD <= g->length && ((uintptr_t)out & 15) == 0) {
#pragma unroll
        for (int v = 0; v < PER_THREAD / 4; v++)
            ((float4 *)out)[v] =
                make_float4(sum[4 * v], sum[4 * v + 1], sum[4 * v + 2], sum[4 * v + 3]);
    } else {
#pragma unroll
        for (int q = 0; q < PER_THREAD; q++)
            if (i + q < g->length)
                out[q] = sum[q];
    }
}

/*
 * STAGES - 1 stages are in flight while one is computed. One barrier per stage suffices: the
 * copies into a buffer are queued only after the barrier that follows everyone's last read of it.
 */
__global__ void __launch_bounds__(THREADS)
    conv_pipelined(const float *x, const float *w, float *y, geometry g)
{
    extern __shared__ float4 stages4[]; /* STAGES × (span inputs, taps taps) */
    float *const stages = (float *)stages4;
    const int stage_floats = g.span + g.taps;
    position copy = first_position(&g), now = copy; /* the stage to copy next; to compute */
    for (int s = 0; s < STAGES - 1; s++) {
        if (copy.row < g.rows)
            copy_stage(stages + s * stage_floats, x, w, &g, &copy);
        __pipeline_commit();
        advance(&copy, &g);
    }
    float sum[PER_THREAD] = {0.0f};
    for (int slot = 0; now.row < g.rows; slot = (slot + 1) % STAGES) {
        __pipeline_wait_prior(STAGES - 2); /* this thread's copies of this stage have landed */
        __syncthreads(); /* everyone's have, and everyone is done with the previous stage ... */
        if (copy.row < g.rows) /* ... so its buffer takes the stage STAGES - 1 ahead */
            copy_stage(stages + (slot + STAGES - 1) % STAGES * stage_floats, x, w, &g, &copy);
        __pipeline_commit(); /* one group per stage, empty or not, so that the count above holds */
        advance(&copy, &g);
        accumulate(stages + slot * stage_floats, &g, sum);
        if (now.ci == g.channels - 1) {
            store(y, &g, &now, sum);
#pragma unroll
            for (int q = 0; q < PER_THREAD; q++)
                sum[q] = 0.0f;
        }
        advance(&now, &g);
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
    const size_t shared = STAGES * (size_t)(g.span + g.taps) * sizeof(float);
    /* A long mask needs more than the default 48 KB (the SM has 228 KB). */
    static size_t shared_allowed; /* as allowed so far */
    cl_allow_shared_bytes((const void *)conv_pipelined, shared, &shared_allowed);
    size_t blocks = cl_resident_blocks((const void *)conv_pipelined, THREADS, shared);
    if (blocks > g.per_row * g.rows)
        blocks = g.per_row * g.rows;
    g.row_step = blocks / g.per_row;
    g.first_step = blocks % g.per_row * TILE;
    g.channel_step = (int)(g.row_step % (size_t)s->channels);
    conv_pipelined<<<(unsigned)blocks, THREADS, shared, stream>>>(x, w, y, g);
    CL_LAUNCH_CHECK("conv_pipelined");
}
