/**
 * @file baseline_cublas.cu
 * @brief The library baseline: cuBLAS SGEMM through cublasGemmEx with CUBLAS_COMPUTE_32F — plain
 * FP32 arithmetic, no TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32 would be another contest).
 *
 * cuBLAS is column-major. A row-major m×n C is a column-major n×m Cᵀ, and Cᵀ = Bᵀ·Aᵀ, where the
 * row-major B and A are exactly the column-major Bᵀ and Aᵀ: so we ask for the n×m product of B
 * (leading dimension n) and A (leading dimension k), and no data moves. The handle is created once,
 * outside the timed launches. cuBLAS has no min-plus product: with --semiring min-plus this
 * program says so and exits 2.
 *
 * <!-- measured:begin -->
 * Measured on NVIDIA H100 80GB HBM3, 2026-11-22 (generated from docs/results/02-gemm.csv):
 * - n=2^10 m=1024 k=1024 plus-times:
 *   0.06546 ms, 32.81 TFLOP/s = 50.2% of FP32 rate; 34.76x v1, 1.000x cublas
 * - n=2^11 m=2048 k=2048 plus-times:
 *   0.34235 ms, 50.18 TFLOP/s = 76.8% of FP32 rate; 51.67x v1, 1.000x cublas
 * - n=2^12 m=4096 k=4096 plus-times:
 *   2.65957 ms, 51.68 TFLOP/s = 79.1% of FP32 rate; 53.07x v1, 1.000x cublas
 * - n=2^13 m=8192 k=8192 plus-times:
 *   21.37568 ms, 51.44 TFLOP/s = 78.8% of FP32 rate; 52.38x v1, 1.000x cublas
 * <!-- measured:end -->
 */
#include "cl_cuda_check.h"
#include "gemm.h"

#include <cublas_v2.h>

#include <stdio.h>
#include <stdlib.h>

static void cublas_check(cublasStatus_t status, const char *what)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s: cuBLAS error %d (%s)\n", what, (int)status,
                cublasGetStatusString(status));
        exit(1);
    }
}

static cublasHandle_t handle = NULL;

/* At exit, before the CUDA runtime's own teardown (registered earlier, so run later): without it
   compute-sanitizer reports cuBLAS's workspace as leaked. */
static void destroy_handle(void)
{
    cublasDestroy(handle);
}

static cublasHandle_t the_handle(void)
{
    if (handle == NULL) {
        cublas_check(cublasCreate(&handle), "cublasCreate");
        cublas_check(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
        atexit(destroy_handle);
    }
    return handle;
}

int gemm_supports(semiring ring)
{
    return ring == SEMIRING_PLUS_TIMES;
}

void gemm(const float *a, const float *b, float *c, int m, int n, int k, semiring ring,
          cudaStream_t stream)
{
    (void)ring; /* the harness never asks for what gemm_supports() refuses */
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t handle = the_handle();
    cublas_check(cublasSetStream(handle, stream), "cublasSetStream");
    cublas_check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_32F, n, a,
                              CUDA_R_32F, k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
}
