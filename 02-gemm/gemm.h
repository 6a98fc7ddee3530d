/**
 * @file gemm.h
 * @brief The problem of lesson 02: C = A·B for row-major FP32 matrices, A m×k, B k×n, in one of
 * two semirings. A version implements gemm(); the harness (main.cu) does everything else. (The
 * same product in BF16 on the tensor cores is lesson 08's.)
 */
#ifndef GEMM_H
#define GEMM_H

#include "cl_gemm_check.h" /* the inputs and the check, shared with lesson 08 */

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/** 1 when the version computes @p ring (cuBLAS has no min-plus product). */
int gemm_supports(semiring ring);

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
