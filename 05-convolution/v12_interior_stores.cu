/**
 * @file v12_interior_stores.cu
 * @brief v12: v11 with one base address for a tile's stores: when the tile lies inside its row,
 * a thread's 16 pairs of outputs go out at fixed offsets from one pointer, without v11's index,
 * bounds and alignment tests for every pair.
 *
 * v11's k-steps are not all of its time. A timing-only copy that does each stage's k-steps twice
 * shows about a fifth of v11's time at K = 127 spent around them (the page has the numbers): the
 * copies queued, the barrier, the store. The store is the largest part in the SASS: for every pair
 * of outputs v11 computes a 64-bit index, tests it against the row's end and the address for
 * 8-byte alignment, and branches, which for a whole stage is more instructions than several
 * k-steps. All tiles but a row's last lie inside it, and then a warp's outputs are at fixed
 * distances from its first one: the test is made once per stage (the alignment of that first pair
 * is every pair's), and each store is one instruction with its offset an immediate. The row's last
 * tile keeps v11's careful path.
 */
#include <cuda_pipeline.h>
#include <stdint.h>

#include "cl_cuda_check.h"
#include "cl_device.h"
#include "conv.h"

#define THREADS        128
#define WARPS          (THREADS / 32)
#define TILES_PER_WARP 4   /* 16 × 16 output tiles per warp, one pair of B fragments for all */
#define MMA_OUTPUTS    256 /* one 16 × 16 tile: 16 rows of 16 consecutive outputs */
#define TAP_LEAD       16  /* zeros before the taps: B[u][n] = w[u − n] reads down to u − 15 */
#define STAGES         3   /* one computed, two being copied */
#define TILE           (WARPS * TILES_PER_WARP * MMA_OUTPUTS) /* outputs per stage */

/** Where a stage's inputs and taps sit, and how a block moves: the same for every block. */
typedef struct {
    int channels, mask;
    int halo;          /**< r rounded up to 4: a tile's inputs start this far left of its outputs */
    int lead;          /**< TAP_LEAD + halo - r zeros in front of the taps in a stage */
    int steps;         /**< k-steps of 8: (halo - r + K + 15) / 8 rounded up */
    int taps;          /**< floats of taps per stage: TAP_LEAD + 8 steps */
    int span;          /**< inputs per stage: TILE + 8 steps - 16 */
    size_t length;     /**< L */
    size_t per_row;    /**< tiles per row */
    size_t rows;       /**< output rows: batch × channels */
    size_t row_step;   /**< a grid stride of tiles is this many rows ... */
    size_t first_step; /**< ... plus this many outputs (carried into the next row past its end) */
    int channel_step;  /**< ... and this many output channels, modulo C */
} geometry;

/** Where a stage is: output row b·C + co, its output channel co, the tile's first output, ci. */
typedef struct {
    size_t row, first;
    int co, ci;
} position;

/* The kernel's helpers: TF32 mma from sm_80. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
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

/* x = hi + lo: hi the TF32 nearest to x (ties away from zero: cvt.rna.tf32 costs four
   instructions, this two), lo = x - hi exactly, at most 2^-11 |x|. Finite x. */
static __device__ __forceinline__ void split_tf32(float x, uint32_t *hi, uint32_t *lo)
{
    *hi = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
    *lo = __float_as_uint(x - __uint_as_float(*hi));
}

/* d += a·b for one 16 × 8 × 8 product in TF32, FP32 sums. */
static __device__ __forceinline__ void mma_tf32(float *d, const uint32_t *a, const uint32_t *b)
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/*
 * This warp's TILES_PER_WARP tiles of one stage. Lane (g, t) = (lane / 4, lane % 4) holds, of
 * tile r at k-step s, A[g][2t, 2t+1] and A[g+8][2t, 2t+1] (inputs 16g + 8s + 2t on, and 128
 * later), B[2t, 2t+1][g] and B[2t, 2t+1][g+8] (taps 8s + 2t - g on, and 8 earlier), and its sums
 * D[g][2t, 2t+1], D[g+8][2t, 2t+1] of both column halves: big[2r + j], small[2r + j] for half j.
 * Rows 16 floats apart put lanes g and g + 2 in the same banks: a two-way conflict on the A
 * loads, cheaper than the address arithmetic of a swizzle that avoided it (the tries).
 */
static __device__ void accumulate(const float *stage, const geometry *g, float (*big)[4],
                                  float (*small)[4])
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, row = lane / 4, pair = lane % 4;
    const float *in = stage + warp * (TILES_PER_WARP * MMA_OUTPUTS) + 16 * row + 2 * pair;
    const float *taps = stage + g->span + TAP_LEAD + 2 * pair - row;
    for (int s = 0; s < g->steps; s++, in += 8, taps += 8) {
        uint32_t b_hi[2][2], b_lo[2][2];
        split_tf32(taps[0], &b_hi[0][0], &b_lo[0][0]);
        split_tf32(taps[1], &b_hi[0][1], &b_lo[0][1]);
        split_tf32(taps[-8], &b_hi[1][0], &b_lo[1][0]);
        split_tf32(taps[-7], &b_hi[1][1], &b_lo[1][1]);
#pragma unroll
        for (int r = 0; r < TILES_PER_WARP; r++) {
            const float2 upper = *(const float2 *)(in + r * MMA_OUTPUTS);
            const float2 lower = *(const float2 *)(in + r * MMA_OUTPUTS + 128);
            uint32_t a_hi[4], a_lo[4];
            split_tf32(upper.x, &a_hi[0], &a_lo[0]);
            split_tf32(lower.x, &a_hi[1], &a_lo[1]);
            split_tf32(upper.y, &a_hi[2], &a_lo[2]);
            split_tf32(lower.y, &a_hi[3], &a_lo[3]);
#pragma unroll
            for (int j = 0; j < 2; j++) {
                mma_tf32(big[2 * r + j], a_hi, b_hi[j]);
                mma_tf32(small[2 * r + j], a_hi, b_lo[j]);
                mma_tf32(small[2 * r + j], a_lo, b_hi[j]);
            }
        }
    }
}

/* Stores the stage's sums: from one pointer when the tile lies inside its row and the thread's
   first pair is 8-byte aligned (then every pair is), else pair by pair with v11's tests. */
static __device__ void store(float *y, const geometry *g, const position *p, float (*big)[4],
                             float (*small)[4])
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, row = lane / 4, pair = lane % 4;
    float *out = y + p->row * g->length;
    float *const mine = out + p->first + (size_t)(warp * TILES_PER_WARP) * MMA_OUTPUTS +
                        (size_t)(16 * row + 2 * pair);
    if (p->first + TILE <= g->length && ((uintptr_t)mine & 7) == 0) {
#pragma unroll
        for (int r = 0; r < 2 * TILES_PER_WARP; r++)
#pragma unroll
            for (int half = 0; half < 2; half++)
                *(float2 *)(mine + (r / 2) * MMA_OUTPUTS + 128 * half + 8 * (r % 2)) =
                    make_float2(big[r][2 * half] + small[r][2 * half],
                                big[r][2 * half + 1] + small[r][2 * half + 1]);
        return;
    }
#pragma unroll
    for (int r = 0; r < 2 * TILES_PER_WARP; r++)
#pragma unroll
        for (int half = 0; half < 2; half++) { /* rows g and g + 8 */
            const size_t i = p->first + (size_t)(warp * TILES_PER_WARP + r / 2) * MMA_OUTPUTS +
                             (size_t)(128 * half + 16 * row + 8 * (r % 2) + 2 * pair);
            const float first = big[r][2 * half] + small[r][2 * half];
            const float second = big[r][2 * half + 1] + small[r][2 * half + 1];
            if (i + 1 < g->length && ((uintptr_t)(out + i) & 7) == 0)
                *(float2 *)(out + i) = make_float2(first, second);
            else {
                if (i < g->length)
                    out[i] = first;
                if (i + 1 < g->length)
                    out[i + 1] = second;
            }
        }
}
#endif

/*
 * STAGES - 1 stages are in flight while one is computed. One barrier per stage suffices: the
 * copies into a buffer are queued only after the barrier that follows everyone's last read of it.
 */
__global__ void __launch_bounds__(THREADS)
    conv_interior_stores(const float *x, const float *w, float *y, geometry g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
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
    float big[2 * TILES_PER_WARP][4] = {{0.0f}}, small[2 * TILES_PER_WARP][4] = {{0.0f}};
    for (int slot = 0; now.row < g.rows; slot = (slot + 1) % STAGES) {
        __pipeline_wait_prior(STAGES - 2); /* this thread's copies of this stage have landed */
        __syncthreads(); /* everyone's have, and everyone is done with the previous stage ... */
        if (copy.row < g.rows) /* ... so its buffer takes the stage STAGES - 1 ahead */
            copy_stage(stages + (slot + STAGES - 1) % STAGES * stage_floats, x, w, &g, &copy);
        __pipeline_commit(); /* one group per stage, empty or not, so that the count above holds */
        advance(&copy, &g);
        accumulate(stages + slot * stage_floats, &g, big, small);
        if (now.ci == g.channels - 1) {
            store(y, &g, &now, big, small);
#pragma unroll
            for (int r = 0; r < 2 * TILES_PER_WARP; r++)
#pragma unroll
                for (int c = 0; c < 4; c++)
                    big[r][c] = 0.0f, small[r][c] = 0.0f;
        }
        advance(&now, &g);
    }
#endif
}

size_t conv_workspace_bytes(const conv_shape *s)
{
    (void)s;
    return 0;
}

int conv_uses_split_tf32(void)
{
    return 1;
}

/* Sets the geometry up and launches one block per resident slot (at most one per tile). */
void conv1d(const float *x, const float *w, float *y, const conv_shape *s, void *workspace,
            cudaStream_t stream)
{
    (void)workspace;
    cl_require_compute_capability(8, 0, 0, "TF32 mma.sync"); /* else exit 77 */
    geometry g;
    const int r = (s->mask - 1) / 2;
    g.channels = s->channels;
    g.mask = s->mask;
    g.halo = (r + 3) / 4 * 4;
    g.lead = TAP_LEAD + g.halo - r;
    g.steps = (g.halo - r + s->mask + 15 + 7) / 8;
    g.taps = TAP_LEAD + 8 * g.steps;
    g.span = TILE + 8 * g.steps - 16;
    g.length = s->length;
    g.per_row = (s->length + TILE - 1) / TILE;
    g.rows = (size_t)s->batch * (size_t)s->channels;
    const size_t shared = STAGES * (size_t)(g.span + g.taps) * sizeof(float);
    static size_t shared_allowed; /* as allowed so far */
    cl_allow_shared_bytes((const void *)conv_interior_stores, shared, &shared_allowed);
    size_t blocks = cl_resident_blocks((const void *)conv_interior_stores, THREADS, shared);
    if (blocks > g.per_row * g.rows)
        blocks = g.per_row * g.rows;
    g.row_step = blocks / g.per_row;
    g.first_step = blocks % g.per_row * TILE;
    g.channel_step = (int)(g.row_step % (size_t)s->channels);
    conv_interior_stores<<<(unsigned)blocks, THREADS, shared, stream>>>(x, w, y, g);
    CL_LAUNCH_CHECK("conv_interior_stores");
}
