/**
 * @file cl_cublas.h
 * @brief One cuBLAS handle per program, for the files that call cuBLAS (02-gemm's baseline,
 * 05-convolution's im2col version): created at the first call — the harness's checked run, never
 * a timed one — with pedantic math (plain FP32, no TF32 tensor cores), destroyed at exit. Header
 * only, so that programs without cuBLAS do not link it.
 */
#ifndef CL_CUBLAS_H
#define CL_CUBLAS_H

#include <cublas_v2.h>

#include <stdio.h>
#include <stdlib.h>

/** Exits 1 naming @p what when @p status is an error. */
static void cl_cublas_check(cublasStatus_t status, const char *what)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s: cuBLAS error %d (%s)\n", what, (int)status,
                cublasGetStatusString(status));
        exit(1);
    }
}

static cublasHandle_t cl_cublas_handle_ = NULL;

/* At exit, before the CUDA runtime's own teardown (registered earlier, so run later): without it
   compute-sanitizer reports cuBLAS's workspace as leaked. */
static void cl_cublas_destroy_(void)
{
    cublasDestroy(cl_cublas_handle_);
}

/** The program's handle, bound to @p stream. */
static cublasHandle_t cl_cublas_handle(cudaStream_t stream)
{
    if (cl_cublas_handle_ == NULL) {
        cl_cublas_check(cublasCreate(&cl_cublas_handle_), "cublasCreate");
        cl_cublas_check(cublasSetMathMode(cl_cublas_handle_, CUBLAS_PEDANTIC_MATH),
                        "cublasSetMathMode");
        atexit(cl_cublas_destroy_);
    }
    cl_cublas_check(cublasSetStream(cl_cublas_handle_, stream), "cublasSetStream");
    return cl_cublas_handle_;
}

#endif
