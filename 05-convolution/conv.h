/**
 * @file conv.h
 * @brief The problem of lesson 05: the 1D convolution layer (PyTorch's Conv1d, cuDNN's forward
 * convolution): y[b][co][i] = sum over ci, j of w[co][ci][j] * x[b][ci][i + j - r], r = (K - 1) /
 * 2, zero padding, output as long as the input. Cross-correlation (no flip), as the course notes
 * compute it. Every version implements the two functions below; the harness (main.cu) does
 * everything else.
 */
#ifndef CONV_H
#define CONV_H

#include "cl_check.h"
#include "cl_parallel.h"

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The largest mask (--mask): odd, up to 511 taps. */
#define CONV_MAX_MASK 511
/** The largest channel count and batch (--channels, --batch). */
#define CONV_MAX_CHANNELS 1024
#define CONV_MAX_BATCH    1024

/** One problem: x is batch × channels × length, w is channels × channels × mask, y like x. */
typedef struct {
    int batch;     /**< N */
    int channels;  /**< C = C_in = C_out */
    int mask;      /**< K, odd */
    size_t length; /**< L, any length >= 1 */
} conv_shape;

/** Bytes of device workspace conv1d() needs (zeroed once by the harness). */
size_t conv_workspace_bytes(const conv_shape *s);

/** Writes y = conv(x, w) for the shape @p s, using only launches on @p stream. */
void conv1d(const float *x, const float *w, float *y, const conv_shape *s, void *workspace,
            cudaStream_t stream);

/**
 * Optional: a version that multiplies on the tensor cores in split TF32 (v11) defines it to
 * return 1, and the check allows for that arithmetic (conv_tolerance()). Versions on the FP32
 * pipe leave it out.
 */
int conv_uses_split_tf32(void);

/**
 * Optional: a program that cannot take some shapes defines it to return why (one line), NULL for
 * a shape it takes. The harness refuses such a shape with that line and exit code 2 before it
 * opens the device, so the answer is the same with or without a GPU.
 */
const char *conv_refuses(const conv_shape *s);

/* ---- The CPU side, in reference.c ----------------------------------------------------------- */

/** How the inputs are drawn (--dist). */
typedef enum {
    DIST_REAL, /**< reals of mixed sign in [-1, 1) */
    DIST_INT   /**< integers in -2..2: every float sum is exact, so the check is too */
} input_dist;

/** Fills @p v[0..count) from @p seed (the same seed always gives the same values). */
void fill_inputs(float *v, size_t count, input_dist dist, unsigned long long seed);

/**
 * The values fill_inputs() makes, made straight into GPU memory at @p v (or host memory, as @p
 * where says: the tests' way) piece by piece through pinned staging, so that the host never holds
 * them all (cl_make()).
 */
void make_inputs(float *v, cl_place where, size_t count, input_dist dist, unsigned long long seed);

/**
 * One output in double precision: y[b][co][i], and the sum of |w * x| over its terms (the scale
 * of its rounding error).
 */
double reference_output(const float *x, const float *w, const conv_shape *s, int b, int co,
                        size_t i, double *magnitude);

/* Up to this many multiply-adds the check recomputes every output; above, the first and last 2K
   outputs of up to CONV_EDGE_ROWS rows (where the zero padding and partial tiles live) and
   CONV_CHECK_SAMPLES outputs drawn at random from the seed. */
#define CONV_FULL_CHECK_MACS (1ull << 27)
#define CONV_EDGE_ROWS       256
#define CONV_CHECK_SAMPLES   4096

/**
 * Compares the outputs @p y with the double reference, as above, on every host thread: the worst
 * of them by |y - ref| / sum|w * x| (the first, among equals), and where it is.
 */
cl_worst conv_check_outputs(const float *x, const float *w, const float *y, const conv_shape *s,
                            uint64_t seed);

/** Whether conv_check_outputs() recomputes every output of @p s (else it checks a sample). */
int conv_checks_every_output(const conv_shape *s);

/**
 * The sampled check of conv_check_outputs() without the host holding x or y: each listed output is
 * fetched from @p y (in GPU memory, or host memory: the tests' way), and the inputs under it are
 * drawn again from @p x_seed (an input is a function of its seed and index), so the same outputs
 * are compared with the same references. For sizes where the check samples.
 */
cl_worst conv_check_sample(const float *y, cl_place where, const float *w, const conv_shape *s,
                           input_dist dist, uint64_t x_seed, uint64_t seed);

/**
 * The tolerance on |y - ref| / sum|w * x|: Higham's gamma_h for float with h = C * K, the length
 * of the dot product each output is, in any order of fused multiply-adds; 0 when @p exact. With
 * @p split_tf32 (products as three TF32 products on the tensor cores): gamma_4h, since the tensor
 * core aligns the terms it adds to the largest one and truncates them (up to 2 units of roundoff
 * each, doubled for margin), plus 5 * 2^-22 for the split's dropped and truncated low parts, plus
 * one rounding where the large and small sums are joined. Exact integer inputs stay exact: they
 * need no more than TF32's bits.
 */
double conv_tolerance(const conv_shape *s, int exact, int split_tf32);

#ifdef __cplusplus
}
#endif

#endif
