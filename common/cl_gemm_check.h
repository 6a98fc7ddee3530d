/**
 * @file cl_gemm_check.h
 * @brief The matrix product's CPU side, shared by 02-gemm (FP32, plus-times and min-plus) and
 * 08-tensor-cores (BF16 inputs): the seeded inputs, their rounding to BF16, and the check of
 * C = A·B, row-major, A m×k and B k×n, against double precision.
 */
#ifndef CL_GEMM_CHECK_H
#define CL_GEMM_CHECK_H

#include "cl_check.h"
#include "cl_parallel.h"
#include "cl_report.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The largest --m, --n or --k of a product. */
#define CL_GEMM_MAX_DIM 65536

/** A cl_extra_option parser for --m and --k: a matrix dimension from 1 to CL_GEMM_MAX_DIM, into
 * the int at @p target. */
int cl_parse_matrix_dim(const char *text, void *target, char *accepted, size_t len);

/** Fills x[0..count) with floats uniform in [-1, 1) from @p seed, on every host thread (element i
 * from draw i of the seed's stream: the same bytes on any number of threads). */
void cl_fill_matrix(float *x, size_t count, uint64_t seed);

/**
 * Rounds x[0..count) to BF16 (to nearest, ties to even) in place, and writes the BF16 bit patterns
 * to bits[0..count): the floats left in x are exactly the values the GPU receives.
 */
void cl_round_to_bf16(float *x, unsigned short *bits, size_t count);

/**
 * The exact element (i, j) in double (plus-times), or with @p min_plus the float min over p of
 * a + b (exact: a + b is one rounding, the same on both sides, and min is exact); @p magnitude
 * receives Σ |a·b| for the error bound (0 for min-plus).
 */
double cl_product_element(const float *a, const float *b, int n, int k, int i, int j, int min_plus,
                          double *magnitude);

/* Up to this many multiply-adds the check recomputes every element of C; above, it recomputes the
   first and last rows and columns (where partial tiles live) and CL_PRODUCT_CHECK_SAMPLES elements
   drawn at random from the seed. */
#define CL_PRODUCT_FULL_CHECK_MACS (1ull << 28)
#define CL_PRODUCT_CHECK_SAMPLES   4096

/**
 * Compares C with the reference, as above, on every host thread: the worst element by |c - exact|
 * / Σ|a·b| (with @p min_plus: 1 where it differs), the first among equals, and where it is. A row
 * of C is computed by walking B's rows, and a column from B's column gathered once, so a check at
 * 32768³ reads B contiguously. @p c is in GPU memory or host memory (@p where: the tests'); from
 * the GPU, only the elements checked cross the bus (all of C where every element is checked).
 */
cl_worst cl_check_product(const float *a, const float *b, const float *c, cl_place where, int m,
                          int n, int k, int min_plus, uint64_t seed);

/**
 * The verdict on cl_check_product()'s worst element: with @p min_plus, exact (any element that
 * differs fails); else its |c - exact| / Σ|a·b| against @p bound (the summation's error bound,
 * which depends on the arithmetic: the lesson says why). Names the element in the where line.
 */
cl_check_result cl_product_verdict(cl_worst worst, int min_plus, double bound);

/**
 * The roofline's lower arm. A product with few rows (or columns) does little arithmetic per byte:
 * reading A and B once and writing C once (@p bytes) at the read bandwidth (@p read_gbps, GB/s)
 * can take longer than the arithmetic. Where it does, that rate (in @p report's unit, from its
 * work and unit_per_second) becomes the ceiling, named "read bandwidth".
 */
void cl_product_read_bound(cl_report *report, double bytes, double read_gbps);

#ifdef __cplusplus
}
#endif

#endif
