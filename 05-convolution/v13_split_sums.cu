/**
 * @file v13_split_sums.cu
 * @brief v13: v8 with two sums per output, one for the even taps and one for the odd, so that
 * ptxas can keep every FFMA's two register-file reads in different banks; blocks of 2 warps.
 *
 * Since Volta the register file has two banks, even and odd register numbers, and an FFMA that
 * reads two different registers of one bank waits a cycle for the second (tools/sass.sh counts
 * them). In v8's loop the tap c[t] stays in the operand cache (`.reuse`) while q runs, so each
 * FFMA reads window[q + t] and sum[q] from the file. The ring is filled by 16-byte loads, which
 * put window[w] in bank w % 2, so for a given sum[q] the taps t and t + 1 read windows of both
 * banks: whatever bank ptxas gives sum[q], half the taps collide with it (46% of v8's FFMAs).
 * With one sum for the even taps and one for the odd, each sum meets windows of one bank only,
 * and a placement without collisions exists: ptxas finds one for most of them (13.5% of the FFMAs
 * still read two registers of one bank, mostly where the reused operand changes slot). The price
 * is 28 more registers (126) and 28 additions per tile to join the two halves; 126 registers
 * still fit four blocks of 4 warps, or eight of 2 warps, per SM. Blocks of 2 warps wait less at
 * the stage barrier and measured faster here (v8 itself measured slower with them: the tries).
 */
#define THREADS    64
#define PER_THREAD 28               /* lanes 7 float4s apart: conflict-free 16-byte loads */
#define WINDOW     (PER_THREAD + 4) /* inputs in registers */
#define TAP_STEP   WINDOW           /* taps per unrolled iteration: the window turns once */
#define STAGES     3                /* one computed, two being copied */
#define SUMS       (2 * PER_THREAD) /* sum[q]: even taps; sum[PER_THREAD + q]: odd taps */

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
                    sum[t % 2 * PER_THREAD + q] += window[(4 * s + q + t) % WINDOW] * c[t];
        }
    }
}

static __device__ void store(float *y, const geometry *g, const position *p, const float *sum)
{
    float total[PER_THREAD];
#pragma unroll
    for (int q = 0; q < PER_THREAD; q++)
        total[q] = sum[q] + sum[PER_THREAD + q];
    const size_t i = p->first + (size_t)threadIdx.x * PER_THREAD;
    float *out = y + p->row * g->length + i;
    if (i + PER_THREAD <= g->length && ((uintptr_t)out & 15) == 0) {
#pragma unroll
        for (int v = 0; v < PER_THREAD / 4; v++)
            ((float4 *)out)[v] =
                make_float4(total[4 * v], total[4 * v + 1], total[4 * v + 2], total[4 * v + 3]);
    } else {
#pragma unroll
        for (int q = 0; q < PER_THREAD; q++)
            if (i + q < g->length)
                out[q] = total[q];
    }
}
