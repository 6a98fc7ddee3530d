/**
 * @file cal.h
 * @brief The pair function of lesson 01, defined once: swap it here and every version follows.
 *
 * cal(x, y) = |x − y|: summed over all pairs of two samples it gives the mean absolute difference
 * behind the energy distance and Gini's mean difference (two-sample tests). It costs two FP32
 * instructions per pair (FADD, then FADD with the |.| modifier into the sum), which sets the
 * ceiling. If you change cal, set CAL_IS_ABS_DIFF to 0 (the harness then checks by brute force, n ≤
 * 2^14) and CAL_FP32_INSTRUCTIONS to the new count (or change the ceiling in main.cu if another
 * unit binds).
 */
#ifndef CAL_H
#define CAL_H

#include <math.h>

#ifdef __CUDACC__
#define CAL_QUALIFIERS __host__ __device__ static inline
#else
#define CAL_QUALIFIERS static inline
#endif

/** The function summed over all pairs. */
CAL_QUALIFIERS float cal(float x, float y)
{
    return fabsf(x - y);
}

/** 1 while cal is |x − y|: the harness may use the O(n log n) reference. */
#define CAL_IS_ABS_DIFF 1

/** FP32 instructions per pair, the sum's addition included: the ceiling is rate / this. */
#define CAL_FP32_INSTRUCTIONS 2

#endif
