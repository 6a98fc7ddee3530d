/**
 * @file baseline_cublas.cu
 * @brief The library baseline: cublasGemmEx with CUBLAS_COMPUTE_32F and CUBLAS_GEMM_DEFAULT (the
 * library's heuristic picks the algorithm; no workspace is set, so it uses its default one). For
 * FP32 inputs that is plain SGEMM on the CUDA cores, no TF32 tensor cores
 * (CUBLAS_COMPUTE_32F_FAST_TF32 would be another contest: the tensor cores are lesson 08's).
 *
 * cuBLAS is column-major. A row-major m×n C is a column-major n×m Cᵀ, and Cᵀ = Bᵀ·Aᵀ, where the
 * row-major B and A are exactly the column-major Bᵀ and Aᵀ: so we ask for the n×m product of B
 * (leading dimension n) and A (leading dimension k), and no data moves. The handle is created once,
 * outside the timed launches. cuBLAS has no min-plus product: with --semiring min-plus this
 * program says so and exits 2.
 */
#include "cl_cuda_check.h"
#include "gemm.h"

#include "cl_cublas.h"

int gemm_supports(semiring ring)
{
    return ring == SEMIRING_PLUS_TIMES;
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    (void)m, (void)n, (void)k;
    return 0;
}

void gemm(const float *a, const float *b, float *c, int m, int n, int k, semiring ring,
          void *workspace, cudaStream_t stream)
{
    (void)workspace;
    (void)ring; /* the harness never asks for what gemm_supports() refuses */
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t handle = cl_cublas_handle(stream);
    cl_cublas_check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_32F, n,
                                 a, CUDA_R_32F, k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT),
                    "cublasGemmEx");
}
