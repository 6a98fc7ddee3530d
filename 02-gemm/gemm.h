/**
 * @file gemm.h
 * @brief The problem of lesson 02: C = A·B for row-major matrices, A m×k, B k×n, C float, in one
 * of two semirings. A version of the FP32 path implements gemm(); one of the tensor-core path,
 * whose A and B are BF16, implements gemm_bf16(); the harness (main.cu) does everything else.
 */
#ifndef GEMM_H
#define GEMM_H

#include "cl_check.h"

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __CUDACC__
#include <cuda_bf16.h> /* __nv_bfloat16, for gemm_bf16() */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The largest --m, --n or --k. */
#define GEMM_MAX_DIM 65536

/** What "multiply" and "add" mean (--semiring). */
typedef enum {
    SEMIRING_PLUS_TIMES, /**< the matrix product: c = Σ a·b */
    SEMIRING_MIN_PLUS    /**< the shortcut exercise's "shortcut" step: c = min over p of a + b */
} semiring;

/**
 * Writes C[0..m)[0..n) = A·B in @p ring. A is m×k, B is k×n, C is m×n, all row-major and densely
 * packed (the leading dimensions are k, n, n). The version sets every element of C: the harness
 * poisons it first. @p workspace holds gemm_workspace_bytes(m, n, k) bytes of device memory,
 * allocated once by the harness, outside the timed launches (as cuBLAS keeps its own).
 */
void gemm(const float *a, const float *b, float *c, int m, int n, int k, semiring ring,
          void *workspace, cudaStream_t stream);

/** Bytes of device workspace gemm() needs for this shape on the current device (0: none). */
size_t gemm_workspace_bytes(int m, int n, int k);

/**
 * The tensor-core path's product: A and B in BF16 (8 significant bits, FP32's exponent range), C
 * in FP32, accumulated in FP32; plus-times only. The same layouts and contract as gemm(). A version
 * defines gemm(), gemm_bf16() or both: the harness calls the one --type names, and a version that
 * lacks it refuses the case (exit 2).
 */
#ifdef __CUDACC__
void gemm_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
               void *workspace, cudaStream_t stream);
#endif

/** 1 when the version computes @p ring (cuBLAS has no min-plus product). */
int gemm_supports(semiring ring);

/**
 * For a version that needs more than any CUDA GPU has: exits with 77 (skipped) and one line unless
 * the device in use has compute capability @p major.@p minor or later; with @p exact, that one
 * alone (code built for sm_90a runs on 9.0 only); and, with @p built 0, always (the build left
 * the needed target out). Looks once: later calls cost nothing.
 */
void gemm_require_device(int major, int minor, int exact, int built, const char *feature);

/* ---- The CPU side, in reference.c ----------------------------------------------------------- */

/** Fills x[0..count) with floats uniform in [-1, 1) from @p seed. */
void fill_matrix(float *x, size_t count, unsigned long long seed);

/**
 * Rounds x[0..count) to BF16 (to nearest, ties to even) in place, and writes the BF16 bit patterns
 * to bits[0..count): the floats left in x are exactly the values the GPU receives.
 */
void round_to_bf16(float *x, unsigned short *bits, size_t count);

/**
 * The exact element (i, j) in double (plus-times), or the float min-plus value (exact: a + b is
 * one rounding, the same on both sides, and min is exact); @p magnitude receives Σ |a·b| for the
 * error bound (0 for min-plus).
 */
double reference_element(const float *a, const float *b, int n, int k, int i, int j, semiring ring,
                         double *magnitude);

/* Up to this many multiply-adds the check recomputes every element of C; above, it recomputes the
   first and last rows and columns (where partial tiles live) and GEMM_CHECK_SAMPLES elements drawn
   at random from the seed. */
#define GEMM_FULL_CHECK_MACS (1ull << 28)
#define GEMM_CHECK_SAMPLES   4096

/**
 * Compares C with the reference, as above, on every host thread: the worst element by |c - exact|
 * / Σ|a·b| (for min-plus: 1 where it differs), the first among equals, and where it is. A row of
 * C is computed by walking B's rows, and a column from B's column gathered once, so a check at
 * 32768³ reads B contiguously.
 */
cl_worst gemm_check_product(const float *a, const float *b, const float *c, int m, int n, int k,
                            semiring ring, uint64_t seed);

#ifdef __cplusplus
}
#endif

/* ---- The one place where the semiring lives: every kernel calls these -------------------- */
#ifdef __CUDACC__
#include <math.h>

/** The value C starts from, and what pads a partial tile: 0 for +·, +∞ for min-plus (x + ∞ = ∞
 * leaves any min unchanged, as 0·x = 0 leaves any sum). */
static __host__ __device__ __forceinline__ float semiring_zero(semiring ring)
{
    return ring == SEMIRING_MIN_PLUS ? INFINITY : 0.0f;
}

/** x ⊕ y: the sum, or the min (how partial results of one element combine). */
static __device__ __forceinline__ float semiring_add(float x, float y, semiring ring)
{
    return ring == SEMIRING_MIN_PLUS ? fminf(x, y) : x + y;
}

/** acc ⊕ (a ⊗ b): one FMA, or an add and a min. */
static __device__ __forceinline__ float semiring_mac(float acc, float a, float b, semiring ring)
{
    return ring == SEMIRING_MIN_PLUS ? fminf(acc, a + b) : fmaf(a, b, acc);
}
#endif

#endif
