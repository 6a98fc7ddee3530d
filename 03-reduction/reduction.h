/**
 * @file reduction.h
 * @brief The problem of lesson 03: the sum of n floats. Every version implements the two functions
 * below; the harness (main.cu) does everything else.
 */
#ifndef REDUCTION_H
#define REDUCTION_H

#include "cl_parallel.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of device workspace reduce_sum() needs for @p n inputs (zeroed once by the harness). */
size_t reduce_workspace_bytes(size_t n);

/**
 * Writes the sum of @p in[0..n) to the device float @p sum, using only launches on @p stream.
 * @p workspace holds reduce_workspace_bytes(n) bytes, zeroed before the first call; a version that
 * relies on the zeros must leave them as it found them. The harness checks the result with the
 * tolerance of reference.c, which assumes no addition chain longer than n/65536 + 64 (see the
 * page).
 */
void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream);

/* ---- Shared by the multi-pass versions (v1 to v6), defined in passes.cu -----------------------
 */

/** One pass: @p blocks blocks each reduce their part of in[0..n) to block_sums[blockIdx.x]. */
typedef void (*reduce_pass_fn)(const float *in, size_t n, float *block_sums, size_t blocks,
                               cudaStream_t stream);

/** Workspace for reduce_in_passes(): two buffers of block sums. */
size_t passes_workspace_bytes(size_t n, size_t elements_per_block);

/**
 * Runs @p pass on the input, then on its block sums, and so on until one block is left, which
 * writes @p sum. Each pass divides the count by @p elements_per_block.
 */
void reduce_in_passes(reduce_pass_fn pass, size_t elements_per_block, const float *in, size_t n,
                      float *sum, void *workspace, cudaStream_t stream);

/* ---- The CPU side, in reference.c ----------------------------------------------------------- */

/** How the inputs are drawn (--dist). */
typedef enum {
    DIST_REAL, /**< reals of mixed sign and magnitude: (2u - 0.5) * 2^e, e in -3..3 */
    DIST_INT   /**< integers in {-1, 0, 1}: float sums are exact while sum |x| <= 2^24 */
} input_dist;

/** Fills @p x[0..n) from @p seed (the same seed always gives the same inputs). */
void fill_inputs(float *x, size_t n, input_dist dist, unsigned long long seed);

/**
 * The inputs fill_inputs() makes, made straight into GPU memory at @p x (or host memory, as @p
 * where says: the tests' way) piece by piece through pinned staging, so that the host never holds
 * all of them (cl_make()); with @p sum not NULL, reference_sum()'s sums of them, the same bits,
 * taken on the way while each piece is in cache.
 */
void make_inputs(float *x, cl_place where, size_t n, input_dist dist, unsigned long long seed,
                 double *sum, double *sum_abs, int *whole);

/**
 * The reference: the sum and the sum of magnitudes, accumulated in double, blockwise (the same bits
 * on any number of threads), and whether every x[i] is an integer (@p whole).
 */
void reference_sum(const float *x, size_t n, double *sum, double *sum_abs, int *whole);

/** True when every x[i] is an integer and sum |x| <= 2^24: then every float partial sum is exact.
 */
int sum_is_exact_in_float(int whole, double sum_abs);

/**
 * The tolerance on |sum - ref| / sum|x|: 0 for exact sums, else Higham's gamma_h for float with
 * h = ceil(n / 65536) + 64, the longest addition chain any version of this lesson builds.
 */
double reduction_tolerance(size_t n, int exact);

#ifdef __cplusplus
}
#endif

#endif
