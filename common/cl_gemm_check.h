/**
 * @file cl_gemm_check.h
 * @brief The matrix product's CPU side, shared by 02-gemm (FP32, plus-times and min-plus) and
 * 08-tensor-cores (BF16 inputs): the seeded inputs, made on their way to the GPU, and the check of
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

/**
 * A product's inputs: A (m×k) from @p seed and B (k×n) from seed + 1, row-major. Element i of each
 * is draw i of its seed's stream, a float uniform in [-1, 1) with 24 random bits, rounded to BF16
 * where @p bf16. Any element can be drawn alone (cl_random_at()), so the check draws again the
 * ones it needs instead of keeping A and B on the host, and a row of B from its first element.
 */
typedef struct {
    int m, n, k;
    uint64_t seed;
    int bf16;
} cl_product;

/** Element @p index of the matrix whose stream is @p seed (A's is the product's seed, B's the
 * next). */
float cl_matrix_element(uint64_t seed, size_t index, int bf16);

/**
 * Makes @p count elements of a matrix from @p seed at @p dst, floats or (@p bf16) BF16 bit
 * patterns: in GPU memory, each piece crossing the bus as soon as it is made (cl_make()), or in
 * host memory (CL_ON_HOST: the tests'). The same bytes on any number of threads. @p name is the
 * matrix's, for the progress line.
 */
void cl_make_matrix(void *dst, cl_place where, size_t count, uint64_t seed, int bf16,
                    const char *name);

/** Makes @p product's A at @p a and B at @p b (cl_make_matrix(), each from its own stream). */
void cl_make_product(void *a, void *b, cl_place where, cl_product product);

/**
 * Rounds *x to BF16 (to nearest, ties to even) in place and returns its bit pattern: the float
 * left is exactly the value the GPU receives.
 */
unsigned short cl_bf16_round(float *x);

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

/** The check of one product: what it compares C with (cl_product_check_open()). */
typedef struct cl_product_check cl_product_check;

/**
 * Prepares the check of @p product's C (@p min_plus: the min-plus product), on every host thread.
 * Up to CL_PRODUCT_FULL_CHECK_MACS it makes A and B on the host and every element of C is
 * recomputed at each check. Above, it computes once the reference of the elements it will compare
 * (the first and last rows and columns, and samples drawn from @p sample_seed), from A and B drawn
 * again, so that the check after timing costs only their fetch. A row of C walks B's rows, drawn
 * a few hundred elements at a time (never a column of B with a stride of n); a column walks A's
 * rows. The sums run over p in order, in double: the same values on any number of threads. The
 * harness opens it while setting up, as the other lessons take their reference; host memory it
 * cannot have is one line naming @p n_text (the option behind the sizes) and exit 2.
 */
cl_product_check *cl_product_check_open(cl_product product, int min_plus, uint64_t sample_seed,
                                        const char *n_text);

/**
 * Compares C with the reference: the worst element by |c - exact| / Σ|a·b| (with min-plus: 1
 * where it differs), the first among equals, and where it is. @p c is in GPU memory or host
 * memory (@p where: the tests'); from the GPU, only the elements compared cross the bus (all of C
 * where every element is checked).
 */
cl_worst cl_product_check_run(const cl_product_check *check, const float *c, cl_place where);

/** Lets the check's memory go (NULL: nothing). */
void cl_product_check_close(cl_product_check *check);

/**
 * The verdict on cl_product_check_run()'s worst element: with @p min_plus, exact (any element that
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
