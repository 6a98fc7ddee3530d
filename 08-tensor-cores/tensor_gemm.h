/**
 * @file tensor_gemm.h
 * @brief The problem of lesson 08: C = A·B on the tensor cores, A (m×k) and B (k×n) in BF16, C in
 * FP32, accumulated in FP32, all row-major. A version implements gemm(); the harness (main.cu)
 * does everything else, and launch.h holds what every version's launch repeats.
 */
#ifndef TENSOR_GEMM_H
#define TENSOR_GEMM_H

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Writes C[0..m)[0..n) = A·B. A is m×k, B is k×n, C is m×n, all row-major and densely packed (the
 * leading dimensions are k, n, n). BF16 has 8 significant bits and FP32's exponent range; the
 * products are exact in FP32 and summed in FP32. The version sets every element of C: the harness
 * poisons it first. @p workspace holds gemm_workspace_bytes(m, n, k) bytes of device memory,
 * allocated once by the harness, outside the timed launches (as cuBLAS keeps its own).
 */
void gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
          void *workspace, cudaStream_t stream);

/** Bytes of device workspace gemm() needs for this shape on the current device (0: none). */
size_t gemm_workspace_bytes(int m, int n, int k);

#ifdef __cplusplus
}
#endif

#endif
