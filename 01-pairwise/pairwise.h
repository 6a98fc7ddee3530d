/**
 * @file pairwise.h
 * @brief The problem of lesson 01: S = Σ_i Σ_j cal(a[i], b[j]) over two arrays of n floats.
 * Every version implements the two functions below; the harness (main.cu) does everything else.
 */
#ifndef PAIRWISE_H
#define PAIRWISE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The largest n this lesson accepts: 2^24 already means 2.8e14 pairs, minutes per run. */
#define PAIRWISE_MAX_N ((size_t)1 << 24)

/**
 * The longest chain of float additions any version may build before it moves a partial sum to
 * double. The harness's tolerance on real inputs is Higham's gamma_h for this h (see the page).
 */
#define PAIRWISE_MAX_FLOAT_CHAIN 4160

/** Bytes of device workspace pairwise_sum() needs (zeroed once by the harness). */
size_t pairwise_workspace_bytes(size_t n);

/**
 * Writes S to the device double @p sum (which it must set itself: the harness poisons it with NaN),
 * using only launches and memsets on @p stream.
 */
void pairwise_sum(const float *a, const float *b, size_t n, double *sum, void *workspace,
                  cudaStream_t stream);

/* ---- The CPU side, in reference.c ----------------------------------------------------------- */

/** How the inputs are drawn (--dist). */
typedef enum {
    DIST_REAL, /**< a uniform in [-1, 1), b triangular on [-0.5, 1.5): different, overlapping */
    DIST_INT   /**< integers 0..15: every float partial sum is exact, so the check is exact */
} input_dist;

/** Fills a[0..n) and b[0..n) from @p seed. */
void fill_inputs(float *a, float *b, size_t n, input_dist dist, unsigned long long seed);

/** S for cal = |x − y| in O(n log n): sort b, prefix sums, one binary search per a[i]. */
long double reference_abs_diff(const float *a, const float *b, size_t n);

/** S by brute force in double (any cal); O(n²), for small n. */
long double reference_brute(const float *a, const float *b, size_t n);

/** The tolerance on |S − ref| / ref: 0 for int inputs, gamma_h(PAIRWISE_MAX_FLOAT_CHAIN) else. */
double pairwise_tolerance(input_dist dist);

#ifdef __cplusplus
}
#endif

#endif
