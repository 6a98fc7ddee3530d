/**
 * @file cudnn_layer.cu
 * @brief Standalone reproducer: cudnnConvolutionForward on one 1D layer (a 2D convolution of
 * height 1), every sum-of-products algorithm in FP32 with FMA math, checked exactly, no harness.
 *
 * usage: cudnn_layer L C K N [apart]   (x is N × C × 1 × L, w is C × C × 1 × K, padding
 * (0, (K − 1) / 2); "apart" leaves 2 MB between x and y, which are otherwise adjacent as in the
 * lesson's harness). The inputs are the harness's for --dist int --seed 42: integers in −2..2, so
 * every output is an integer far below 2^24 and any algorithm that sums products in FP32 must
 * return it exactly. It prints cudnnFindConvolutionForwardAlgorithm's ranking; then, on the legacy
 * default stream, a created blocking stream and a non-blocking one, for each of GEMM,
 * IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM and DIRECT: three runs into one workspace (not cleared in
 * between) and one into a zeroed workspace twice as large, each with the outputs that differ from
 * the CPU's, the worst error as a fraction of Σ|w·x|, and whether x was overwritten. Inputs are
 * uploaded and the device synchronized before any run. Exit 0 when every algorithm that runs is
 * exact, 1 otherwise, 2 on bad arguments, 3 on a CUDA or cuDNN error.
 */
#include "cl_random.h"

#include <cudnn.h>

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s: %s\n", #call, cudaGetErrorString(err_));                                   \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_CUDNN(call)                                                                          \
    do {                                                                                           \
        cudnnStatus_t st_ = (call);                                                                \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                         \
            printf("%s: %s\n", #call, cudnnGetErrorString(st_));                                   \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

static const char *const algo_names[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
    "WINOGRAD",      "WINOGRAD_NONFUSED"};

static int sums_products(int algo)
{
    return algo <= CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

/* Compares y with the exact outputs: the count of wrong ones, the worst |error| / Σ|w·x|, and the
   first wrong (batch, channel, position). */
static long long compare(const float *y, const double *exact, const double *magnitude, size_t count,
                         double *worst, size_t *first)
{
    long long wrong = 0;
    *worst = 0.0;
    *first = (size_t)-1;
    for (size_t i = 0; i < count; i++) {
        const double error = fabs((double)y[i] - exact[i]);
        if (error != 0.0 || isnan(y[i])) {
            if (wrong++ == 0)
                *first = i;
            const double relative = magnitude[i] > 0 ? error / magnitude[i] : error;
            if (!(relative <= *worst))
                *worst = relative;
        }
    }
    return wrong;
}

int main(int argc, char **argv)
{
    if (argc != 5 && !(argc == 6 && strcmp(argv[5], "apart") == 0)) {
        fprintf(stderr, "usage: cudnn_layer L C K N [apart]\n");
        return 2;
    }
    const int l = atoi(argv[1]), c = atoi(argv[2]), k = atoi(argv[3]), n = atoi(argv[4]);
    if (l < 1 || c < 1 || k < 1 || k % 2 == 0 || n < 1) {
        fprintf(stderr, "cudnn_layer: L, C, N at least 1, K odd\n");
        return 2;
    }
    const size_t x_count = (size_t)n * c * l, w_count = (size_t)c * c * k, y_count = x_count;
    float *x = (float *)malloc(x_count * sizeof *x), *w = (float *)malloc(w_count * sizeof *w);
    float *y = (float *)malloc(y_count * sizeof *y);
    double *exact = (double *)malloc(y_count * sizeof *exact);
    double *magnitude = (double *)malloc(y_count * sizeof *magnitude);
    /* the harness's inputs for --seed 42 --dist int: splitmix64, x from the seed, w from seed + 1
     */
    uint64_t state = 42;
    for (size_t i = 0; i < x_count; i++)
        x[i] = (float)((int)(cl_next_random(&state) % 5) - 2);
    state = 43;
    for (size_t i = 0; i < w_count; i++)
        w[i] = (float)((int)(cl_next_random(&state) % 5) - 2);
    const int r = (k - 1) / 2;
    for (int b = 0; b < n; b++)
        for (int co = 0; co < c; co++)
            for (int i = 0; i < l; i++) {
                double sum = 0.0, size = 0.0;
                for (int ci = 0; ci < c; ci++)
                    for (int j = 0; j < k; j++) {
                        const int at = i + j - r;
                        if (at < 0 || at >= l)
                            continue;
                        const double term = (double)w[((size_t)co * c + ci) * k + j] *
                                            x[((size_t)b * c + ci) * l + at];
                        sum += term, size += fabs(term);
                    }
                exact[((size_t)b * c + co) * l + i] = sum;
                magnitude[((size_t)b * c + co) * l + i] = size;
            }

    float *x_dev, *w_dev, *y_dev;
    /* the harness's order: x, then y, which the allocator places right after x when both are
       small; with "apart", a spare 2 MB between them */
    const int apart = argc == 6;
    void *gap = NULL;
    CHECK_CUDA(cudaMalloc(&x_dev, x_count * sizeof *x));
    if (apart)
        CHECK_CUDA(cudaMalloc(&gap, 2u << 20));
    CHECK_CUDA(cudaMalloc(&y_dev, y_count * sizeof *y));
    CHECK_CUDA(cudaMalloc(&w_dev, w_count * sizeof *w));
    printf("x at %p, y at %p, w at %p\n", (void *)x_dev, (void *)y_dev, (void *)w_dev);
    float *x_after = (float *)malloc(x_count * sizeof *x);
    CHECK_CUDA(cudaMemcpy(x_dev, x, x_count * sizeof *x, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(w_dev, w, w_count * sizeof *w, cudaMemcpyHostToDevice));

    cudnnHandle_t handle;
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv;
    CHECK_CUDNN(cudnnCreate(&handle));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&x_desc));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&y_desc));
    CHECK_CUDNN(cudnnCreateFilterDescriptor(&w_desc));
    CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&conv));
    CHECK_CUDNN(
        cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, 1, l));
    CHECK_CUDNN(
        cudnnSetTensor4dDescriptor(y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, 1, l));
    CHECK_CUDNN(
        cudnnSetFilter4dDescriptor(w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, c, c, 1, k));
    CHECK_CUDNN(cudnnSetConvolution2dDescriptor(conv, 0, r, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT));
    CHECK_CUDNN(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));
    printf("cuDNN %zu, L=%d C=%d K=%d N=%d, integer inputs in -2..2\n", cudnnGetVersion(), l, c, k,
           n);

    cudnnConvolutionFwdAlgoPerf_t found[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found_count = 0;
    CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithm(handle, x_desc, w_desc, conv, y_desc,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found_count,
                                                     found));
    for (int i = 0; i < found_count; i++)
        if (found[i].status == CUDNN_STATUS_SUCCESS)
            printf("find #%d: %s, math %s, %.4f ms, workspace %zu\n", i, algo_names[found[i].algo],
                   found[i].mathType == CUDNN_FMA_MATH ? "FMA" : "other", found[i].time,
                   found[i].memory);

    int failed = 0;
    const float one = 1.0f, zero = 0.0f;
    /* the legacy default stream, a created stream that synchronizes with it, and one that does
       not (cudaStreamNonBlocking, as a harness timing on its own stream creates) */
    static const char *const stream_names[] = {"default stream", "blocking stream",
                                               "non-blocking stream"};
    for (int mode = 0; mode < 3; mode++) {
        cudaStream_t stream = 0;
        if (mode > 0)
            CHECK_CUDA(cudaStreamCreateWithFlags(&stream, mode == 1 ? cudaStreamDefault
                                                                    : cudaStreamNonBlocking));
        CHECK_CUDNN(cudnnSetStream(handle, stream));
        printf("== %s\n", stream_names[mode]);
        for (int algo = 0; algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; algo++) {
            size_t bytes = 0;
            const cudnnStatus_t status = cudnnGetConvolutionForwardWorkspaceSize(
                handle, x_desc, w_desc, conv, y_desc, (cudnnConvolutionFwdAlgo_t)algo, &bytes);
            if (!sums_products(algo))
                continue; /* FFT and Winograd round differently (and want gigabytes) */
            if (status != CUDNN_STATUS_SUCCESS) {
                printf("%-22s not supported here (%s)\n", algo_names[algo],
                       cudnnGetErrorString(status));
                continue;
            }
            /* three runs into the same workspace, then one into a zeroed workspace twice as large
             */
            void *reused = NULL, *larger = NULL;
            const size_t larger_bytes = 2 * bytes + 256;
            CHECK_CUDA(cudaMalloc(&reused, bytes + 1));
            CHECK_CUDA(cudaMemset(reused, 0, bytes + 1));
            CHECK_CUDA(cudaMalloc(&larger, larger_bytes));
            CHECK_CUDA(cudaMemset(larger, 0, larger_bytes));
            for (int run = 0; run < 4; run++) {
                void *workspace = run < 3 ? reused : larger;
                const size_t run_bytes = run < 3 ? bytes : larger_bytes;
                CHECK_CUDA(cudaMemset(y_dev, 0xff, y_count * sizeof *y)); /* NaN: unwritten shows */
                CHECK_CUDA(cudaDeviceSynchronize());
                const cudnnStatus_t ran = cudnnConvolutionForward(
                    handle, &one, x_desc, x_dev, w_desc, w_dev, conv,
                    (cudnnConvolutionFwdAlgo_t)algo, workspace, run_bytes, &zero, y_desc, y_dev);
                CHECK_CUDA(cudaStreamSynchronize(stream));
                if (ran != CUDNN_STATUS_SUCCESS) {
                    printf("%-22s run %d: %s\n", algo_names[algo], run, cudnnGetErrorString(ran));
                    break;
                }
                CHECK_CUDA(cudaMemcpy(y, y_dev, y_count * sizeof *y, cudaMemcpyDeviceToHost));
                CHECK_CUDA(cudaMemcpy(x_after, x_dev, x_count * sizeof *x, cudaMemcpyDeviceToHost));
                if (memcmp(x_after, x, x_count * sizeof *x) != 0)
                    printf("(x was overwritten) ");
                double worst;
                size_t first;
                const long long wrong = compare(y, exact, magnitude, y_count, &worst, &first);
                printf("%-22s run %d (workspace %zu, %s): ", algo_names[algo], run, run_bytes,
                       run == 0  ? "fresh"
                       : run < 3 ? "reused"
                                 : "zeroed, doubled");
                if (wrong == 0) {
                    printf("exact\n");
                } else {
                    const size_t b = first / ((size_t)c * l), co = first / l % c, i = first % l;
                    printf(
                        "%lld of %zu wrong, worst %.3g of sum|w x|; first y[%zu][%zu][%zu] = %g, "
                        "exact %g\n",
                        wrong, y_count, worst, b, co, i, y[first], exact[first]);
                    failed = 1; /* only sum-of-products algorithms get here */
                }
            }
            CHECK_CUDA(cudaFree(reused));
            CHECK_CUDA(cudaFree(larger));
        }
        if (mode > 0)
            CHECK_CUDA(cudaStreamDestroy(stream));
    }
    printf("%s\n", failed ? "WRONG: a sum-of-products algorithm missed the exact result"
                          : "ok: every sum-of-products algorithm that ran is exact");
    return failed;
}
