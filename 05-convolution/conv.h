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

#include <cuda_runtime_api.h>
#include <stddef.h>

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

/* ---- The CPU side, in reference.c ----------------------------------------------------------- */

/** How the inputs are drawn (--dist). */
typedef enum {
    DIST_REAL, /**< reals of mixed sign in [-1, 1) */
    DIST_INT   /**< integers in -2..2: every float sum is exact, so the check is too */
} input_dist;

/** Fills @p v[0..count) from @p seed (the same seed always gives the same values). */
void fill_inputs(float *v, size_t count, input_dist dist, unsigned long long seed);

/**
 * One output in double precision: y[b][co][i], and the sum of |w * x| over its terms (the scale
 * of its rounding error).
 */
double reference_output(const float *x, const float *w, const conv_shape *s, int b, int co,
                        size_t i, double *magnitude);

/**
 * The tolerance on |y - ref| / sum|w * x|: Higham's gamma_h for float with h = C * K, the length
 * of the dot product each output is, in any order of fused multiply-adds; 0 when @p exact.
 */
double conv_tolerance(const conv_shape *s, int exact);

#ifdef __cplusplus
}
#endif

#endif
