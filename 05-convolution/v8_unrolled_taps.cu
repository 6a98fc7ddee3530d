/**
 * @file v8_unrolled_taps.cu
 * @brief v8: 28 consecutive outputs per thread and the tap loop unrolled 32 taps at a time, so that
 * the window of inputs turns through its registers instead of being moved: the compute-bound side.
 *
 * Past the roofline's bend (K ≈ 90 with one channel) the time is the arithmetic's. Per step of 4
 * taps v7 does 32 FMAs with two 16-byte window loads and one of taps: at K = 127 ncu counts 68%
 * of its instructions as FMAs. Here a thread owns 28 consecutive outputs and a window of 32
 * inputs; each step of 4 taps reads 4 new inputs and 4 taps (two 16-byte shared loads, the taps a
 * broadcast) and does 112 FMAs. Eight steps make a loop iteration, after which the window has
 * turned once around its 32 registers: with the iteration unrolled every register index is a
 * constant and no value moves (ncu: 89% of all instructions are FMAs). 28 outputs put lanes 112
 * bytes apart, an odd number (7) of 16-byte bank groups, so the window loads stay conflict-free (32
 * would be an eight-way conflict). Taps are padded with zeros to a multiple of 32: at small K that
 * wastes FMAs and lanes store 112 bytes apart, so v6 and v7 stay the versions for K ≤ 63.
 * The pipeline is v7's.
 */
#define THREADS    128
#define PER_THREAD 28               /* lanes 7 float4s apart: conflict-free 16-byte loads */
#define WINDOW     (PER_THREAD + 4) /* inputs in registers */
#define TAP_STEP   WINDOW           /* taps per unrolled iteration: the window turns once */
#define STAGES     3                /* one computed, two being copied */

#include "pipeline.cuh"

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
