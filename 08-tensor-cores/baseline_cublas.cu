/**
 * @file baseline_cublas.cu
 * @brief The library baseline: cublasGemmEx with BF16 A and B, an FP32 C and CUBLAS_COMPUTE_32F
 * (the tensor cores, accumulating in FP32: the lesson's contract), CUBLAS_GEMM_DEFAULT (the
 * library's heuristic picks the algorithm; no workspace is set, so it uses its default one), in
 * the default math mode, with split-k partial sums kept in FP32.
 *
 * cuBLAS is column-major. A row-major m×n C is a column-major n×m Cᵀ, and Cᵀ = Bᵀ·Aᵀ, where the
 * row-major B and A are exactly the column-major Bᵀ and Aᵀ: so we ask for the n×m product of B
 * (leading dimension n) and A (leading dimension k), and no data moves. The handle is created once,
 * outside the timed launches.
 */
#include "cl_cuda_check.h"
#include "tensor_gemm.h"

#include "cl_cublas.h"

size_t gemm_workspace_bytes(int m, int n, int k)
{
    (void)m, (void)n, (void)k;
    return 0;
}

void gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
          void *workspace, cudaStream_t stream)
{
    (void)workspace;
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t handle = cl_cublas_handle(stream);
    /* the handle starts in pedantic mode (02's FP32 contest); BF16 gets the default math (tensor
       cores), with split-k partial sums kept in FP32 */
    cl_cublas_check(
        cublasSetMathMode(handle, (cublasMath_t)(CUBLAS_DEFAULT_MATH |
                                                 CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
        "cublasSetMathMode");
    cl_cublas_check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, n,
                                 a, CUDA_R_16BF, k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT),
                    "cublasGemmEx (BF16)");
}
