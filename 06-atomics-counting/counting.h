/**
 * @file counting.h
 * @brief The problem of lesson 06: n containers of floats stored as CSR, and how many of them sum
 * to more than a limit. Every version implements the two functions below; the harness (main.cu)
 * does everything else.
 */
#ifndef COUNTING_H
#define COUNTING_H

#include "cl_parallel.h"

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How container lengths are drawn (--lengths). */
typedef enum {
    LENGTHS_FIXED,   /**< every container holds --mean floats */
    LENGTHS_UNIFORM, /**< uniform over 1 … 2·mean − 1 */
    LENGTHS_POWERLAW /**< a Lomax (Pareto II) law, shape 1.5, mean ≈ --mean, capped at 4096·mean */
} length_dist;

/** How the floats are drawn (--dist). */
typedef enum {
    DIST_REAL, /**< uniform over [−1, 2) */
    DIST_INT   /**< −1, 0, 1 or 2: small integers, so that every float sum is exact */
} value_dist;

/** The longest power-law container, in multiples of the mean (65536 for the default mean 16). */
#define POWERLAW_CAP_FACTOR 4096

/** Bytes of device workspace count_over_limit() needs (zeroed once by the harness). */
size_t count_workspace_bytes(size_t n, size_t total);

/**
 * Writes into *count how many of the n containers sum to more than @p limit. Container c holds
 * values[offsets[c] .. offsets[c + 1]); offsets[0] = 0 and offsets[n] = @p total. The version
 * sets *count itself (the harness poisons it) and leaves whatever of the workspace a later call
 * relies on as it found it (slots and lists zeroed; a library baseline rewrites its part in full).
 */
void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream);

/* ---- The CPU side, in reference.c ----------------------------------------------------------- */

/**
 * Draws n container lengths from @p seed and writes their CSR offsets[0..n] (offsets[0] = 0).
 * Returns the total number of floats, offsets[n]; UINT64_MAX if it would not fit in 64 bits.
 */
uint64_t fill_offsets(size_t *offsets, size_t n, length_dist lengths, uint64_t mean, uint64_t seed);

/** Fills values[0..total) from @p seed. */
void fill_values(float *values, size_t total, value_dist dist, uint64_t seed);

/** What the reference knows about the count. */
typedef struct {
    size_t sure;      /**< containers whose sum exceeds the limit in any order of float additions */
    size_t ambiguous; /**< containers within float rounding of the limit: either side is right */
    size_t longest;   /**< the longest container, in floats */
} reference_count;

/**
 * Sums each container in double and bounds the error of any float summation of it: γ_{len−1}
 * (float) plus γ_{len} (double) times the sum of magnitudes, or 0 when every value is an integer
 * (@p exact_ints) and the magnitudes sum to at most 2^24, so that every partial sum is exact.
 */
reference_count count_reference(const float *values, const size_t *offsets, size_t n, float limit,
                                int exact_ints);

/**
 * The values fill_values() makes, made straight into GPU memory at @p values (or host memory, as
 * @p where says: the tests' way) piece by piece through pinned staging, so that the host never
 * holds them all (cl_make()); with @p ref not NULL, count_reference()'s verdict on the containers
 * of @p offsets, taken on the way: each chunk of values sums the containers it holds whole and the
 * pieces of those that cross its ends, and the pieces are joined in chunk order (the same bits on
 * any number of threads; another order of additions than count_reference()'s, which the band
 * allows for).
 */
void make_values(float *values, cl_place where, size_t total, value_dist dist, uint64_t seed,
                 const size_t *offsets, size_t n, float limit, int exact_ints,
                 reference_count *ref);

#ifdef __cplusplus
}
#endif

#endif
