/**
 * @file histogram.h
 * @brief The problem of lesson 04: count n values into B bins. Every version implements the two
 * functions below; the harness (main.cu) does everything else.
 */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#include "cl_parallel.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The largest --bins: the counters of 2^24 bins take 128 MiB. */
#define HISTOGRAM_MAX_BINS (1u << 24)

/** The input element type (--type). */
typedef enum {
    TYPE_U32, /**< unsigned 32-bit values */
    TYPE_U8   /**< 8-bit pixels (bins = 256) */
} input_type;

/** How the values are drawn (--dist). */
typedef enum {
    DIST_UNIFORM, /**< uniform over the bins, and 1 in 1024 u32 values past the last bin */
    DIST_ONE,     /**< every value in one bin: the contention worst case */
    DIST_ZIPF     /**< bin k with probability ∝ 1/(k+1): a few bins take most values */
} input_dist;

/** Bytes of one input element. */
static inline size_t element_bytes(input_type type)
{
    return type == TYPE_U8 ? 1 : 4;
}

/** Bytes of device workspace histogram() needs (zeroed once by the harness). */
size_t histogram_workspace_bytes(size_t n, unsigned bins, input_type type);

/**
 * Writes the counts of the values in[0..n) into hist[0..bins), 64-bit each. A value v >= bins is
 * not counted (and never written anywhere). The version sets hist itself: the harness poisons it.
 */
void histogram(const void *in, size_t n, input_type type, unsigned bins, unsigned long long *hist,
               void *workspace, cudaStream_t stream);

/* ---- The CPU side, in reference.c ----------------------------------------------------------- */

/** Fills in[0..n) from @p seed. */
void fill_inputs(void *in, size_t n, input_type type, unsigned bins, input_dist dist,
                 unsigned long long seed);

/**
 * The inputs fill_inputs() makes, made straight into GPU memory at @p in (or host memory, as @p
 * where says: the tests' way) piece by piece through pinned staging, so that the host never holds
 * all of them (cl_make()); with @p hist not NULL, reference_histogram()'s counts of them, taken on
 * the way while each piece is in cache.
 */
void make_inputs(void *in, cl_place where, size_t n, input_type type, unsigned bins,
                 input_dist dist, unsigned long long seed, unsigned long long *hist);

/** The sequential histogram (the course notes' CPU loop, with the bounds check it lacks). */
void reference_histogram(const void *in, size_t n, input_type type, unsigned bins,
                         unsigned long long *hist);

#ifdef __cplusplus
}
#endif

#endif
