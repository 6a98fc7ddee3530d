/**
 * @file mandelbrot.h
 * @brief The problem of lesson 07: the escape-time Mandelbrot image with smooth colouring. Every
 * version implements mandel_render() and says which arithmetic it uses; the harness (main.cu)
 * does everything else.
 *
 * Pixel (px, py) of a W × W image is c = (x_first + px·step, y_first − py·step), both products
 * computed as one correctly rounded float FMA. From z = 0, iterate z ← z² + c; the escape count
 * is the first k with |z_k|² > 4, or maxiter if there is none; the smooth value is
 * count + 1 − log2(log2 |z_count|) for escaped pixels and maxiter for the others.
 */
#ifndef MANDELBROT_H
#define MANDELBROT_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The widest image: W² pixels must fit in 32 bits for the versions' pixel indices. */
#define MANDEL_MAX_WIDTH 65535u
/** The most iterations per pixel: counts stay exact as floats (2^24) with room to spare. */
#define MANDEL_MAX_ITER (1u << 20)

/** What a version computes and where (all in device memory except the parameters). */
typedef struct {
    unsigned width;   /**< W: the image is W × W pixels */
    unsigned maxiter; /**< iterations at most per pixel (>= 1) */
    float x_first;    /**< the real part of the centre of column 0 */
    float y_first;    /**< the imaginary part of the centre of row 0 (the top row) */
    float step;       /**< the width of one pixel */
} mandel_params;

/**
 * The iteration's rounding, so that the CPU reference reproduces a version bit for bit:
 * MANDEL_PINNED is x2 = x·x, y2 = y·y, y ← fma(2x, y, cy), x ← (x2 − y2) + cx, each operation
 * rounded to nearest float, in that order (the intrinsics __fmul_rn, __fadd_rn, __fsub_rn,
 * __fmaf_rn, which the compiler never contracts or reorders); MANDEL_DOUBLE_LITERAL is the same
 * except y ← (float)(2.0 · x · y + cy), computed in double as C promotes it.
 */
typedef enum { MANDEL_PINNED, MANDEL_DOUBLE_LITERAL } mandel_arithmetic;

/** Each version defines this: the arithmetic its kernel uses (the check reproduces it). */
extern const mandel_arithmetic mandel_version_arithmetic;

/** Bytes of device workspace mandel_render() needs (zeroed once by the harness). */
size_t mandel_workspace_bytes(const mandel_params *p);

/**
 * Writes counts[py·W + px] and smooth[py·W + px] for every pixel (the harness poisons both), using
 * only launches and memsets on @p stream. A version that needs its workspace zeroed for each run
 * zeroes it itself.
 */
void mandel_render(const mandel_params *p, unsigned *counts, float *smooth, void *workspace,
                   cudaStream_t stream);

/* ---- The CPU side, in reference.c ----------------------------------------------------------- */

/** Which part of the plane (--view). */
typedef enum {
    VIEW_FULL,    /**< the whole set: real −2.5 … 1, imaginary −1.75 … 1.75 */
    VIEW_BOUNDARY /**< a 0.01-wide zoom into the seahorse valley: boundary in every tile */
} mandel_view;

/** The parameters of a W × W image of @p view. */
mandel_params mandel_view_params(mandel_view view, unsigned width, unsigned maxiter);

/** One pixel, as a version with @p arithmetic computes it. */
typedef struct {
    unsigned count; /**< the escape count */
    double smooth;  /**< the smooth value, from the float |z|² in double */
} mandel_pixel;

/** The reference for pixel (px, py), iterating exactly as the GPU does. */
mandel_pixel mandel_reference(const mandel_params *p, mandel_arithmetic arithmetic, unsigned px,
                              unsigned py);

/** The tolerance on the smooth value: |got − ref| <= tolerance · max(1, ref) (see the page). */
#define MANDEL_SMOOTH_TOLERANCE 1.52587890625e-05 /* 2^-16 */

/** What the check found over the whole image. */
typedef struct {
    size_t count_mismatches; /**< pixels whose escape count differs from the reference */
    size_t first_mismatch;   /**< the first of them (pixel index), when there is one */
    double smooth_error;     /**< max |smooth − ref| / max(1, ref); infinity for NaN */
    double iterations;       /**< the reference's total iteration count: the work */
} mandel_check;

/** Compares a whole image with the reference, its rows on every host thread (cl_parallel.h). */
mandel_check mandel_check_image(const mandel_params *p, mandel_arithmetic arithmetic,
                                const unsigned *counts, const float *smooth);

/**
 * Writes the image as an 8-bit PGM: grey from the smooth value on a log scale, black inside the
 * set. Returns 0, or −1 when the file cannot be written.
 */
int mandel_write_pgm(const char *path, unsigned width, unsigned maxiter, const float *smooth);

#ifdef __cplusplus
}
#endif

#endif
