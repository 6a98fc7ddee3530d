/**
 * @file points.cuh
 * @brief A pixel's point c, the same in every version and in reference.c: each part one correctly
 * rounded FMA (`__fmaf_rn`, as reference.c's fmaf), so that the check replays it bit for bit.
 */
#ifndef POINTS_CUH
#define POINTS_CUH

#include "mandelbrot.h"

/** The real part of column @p px's point. */
static __device__ __forceinline__ float point_x(const mandel_params *p, unsigned px)
{
    return __fmaf_rn((float)px, p->step, p->x_first);
}

/** The imaginary part of row @p py's point (rows go down from y_first). */
static __device__ __forceinline__ float point_y(const mandel_params *p, unsigned py)
{
    return __fmaf_rn((float)py, -p->step, p->y_first);
}

#endif
