/**
 * @file pinned.cuh
 * @brief The arithmetic the check replays bit for bit, written once: a pixel's point c (every
 * version), and one iteration z ← z² + c in the arithmetic every version from v2 on pins
 * (MANDEL_PINNED in mandelbrot.h, replayed by reference.c): y ← fma(2x, y, cy), then
 * x ← (x² − y²) + cx, each operation rounded to nearest by an intrinsic the compiler never
 * contracts or reorders. Defined once, so that no version can drift from what the check replays.
 * On entry @p x2 and @p y2 hold x² and y² of the current z; on return, of the new z, which is what
 * the escape test |z|² = x² + y² > 4 reads. Six FP32 instructions.
 */
#ifndef PINNED_CUH
#define PINNED_CUH

#include "mandelbrot.h"

/** The real part of column @p px's point: one correctly rounded FMA, as reference.c's fmaf. */
static __device__ __forceinline__ float point_x(const mandel_params *p, unsigned px)
{
    return __fmaf_rn((float)px, p->step, p->x_first);
}

/** The imaginary part of row @p py's point (rows go down from y_first). */
static __device__ __forceinline__ float point_y(const mandel_params *p, unsigned py)
{
    return __fmaf_rn((float)py, -p->step, p->y_first);
}

static __device__ __forceinline__ void pinned_step(float cx, float cy, float *x, float *y,
                                                   float *x2, float *y2)
{
    *y = __fmaf_rn(2.0f * *x, *y, cy);
    *x = __fadd_rn(__fsub_rn(*x2, *y2), cx);
    *x2 = __fmul_rn(*x, *x);
    *y2 = __fmul_rn(*y, *y);
}

#endif
