/**
 * @file main.cu
 * @brief Lesson 08's harness, shared by every version: options, inputs, the checked run, timing,
 * report. A version file brings gemm() and gemm_workspace_bytes() (tensor_gemm.h).
 */
#include "tensor_gemm.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"
#include "cl_gemm_check.h"
#include "cl_parallel.h"
#include "tensor_ceiling.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    const __nv_bfloat16 *a, *b;
    float *c;
    void *workspace; /* gemm_workspace_bytes() of it, for the versions that need one */
    int m, n, k;
    const cl_product_check *check; /* the reference (none with --no-check) */
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    gemm(r->a, r->b, r->c, r->m, r->n, r->k, r->workspace, stream);
}

/* C starts as NaN everywhere before a checked run, so an element nobody wrote fails. */
static void poison_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    cl_poison(r->c, (size_t)r->m * (size_t)r->n * sizeof(float), stream);
}

/* Checks C, where the GPU left it, against the double-precision reference. */
static cl_check_result check_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    /* Any order of k fused multiply-adds errs by at most gamma_k Σ|a·b| (Higham, Thm 3.1 with
       FMA). BF16 products are exact in FP32 (8 + 8 significant bits), but the tensor cores add
       them with truncation, not rounding: up to twice the error per addition, so gamma_2k bounds
       it. */
    return cl_product_verdict(cl_product_check_run(r->check, r->c, CL_ON_DEVICE), 0,
                              cl_float_gamma(2.0 * r->k));
}

int main(int argc, char **argv)
{
    cl_options opt;
    int m = 0, k = 0; /* 0: the same as --n */
    const cl_extra_option extra[] = {
        {"m", "M", "rows of A and C (1 to 65536)", "--n", cl_parse_matrix_dim, &m},
        {"k", "K", "columns of A, rows of B (1 to 65536)", "--n", cl_parse_matrix_dim, &k}};
    cl_options_defaults(&opt, 2048);
    cl_parse_options(argc, argv,
                     "Lesson 08: C = A·B on the tensor cores (m×k times k×n, row-major; A and B "
                     "BF16, C FP32), checked against double precision. --n sets the columns of B "
                     "and C, and m and k unless given.",
                     &opt, extra, 2);
    if (opt.n < 1 || opt.n > CL_GEMM_MAX_DIM)
        cl_bad_input("n", opt.n_text, "expected a matrix dimension from 1 to 65536");
    const int n = (int)opt.n;
    m = m ? m : n;
    k = k ? k : n;
    const size_t a_count = (size_t)m * (size_t)k, b_count = (size_t)k * (size_t)n;
    const size_t a_bytes = a_count * sizeof(__nv_bfloat16);
    const size_t b_bytes = b_count * sizeof(__nv_bfloat16);
    const size_t c_bytes = (size_t)m * (size_t)n * sizeof(float);

    cl_bench bench;
    cl_bench_open(&bench, "08-tensor-cores", argv[0], &opt);
    const size_t workspace_bytes = gemm_workspace_bytes(m, n, k);
    cl_require_device_memory(&bench.dev, opt.n_text, a_bytes + b_bytes + c_bytes + workspace_bytes);

    __nv_bfloat16 *d_a, *d_b;
    float *d_c;
    CL_CUDA_CHECK(cudaMalloc(&d_a, a_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_b, b_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_c, c_bytes));
    void *workspace = cl_device_alloc_zeroed(workspace_bytes);
    /* rounded to BF16 as they are made, on their way to the GPU, outside any timing: the host
       keeps no copy (the check draws again what it needs) */
    const cl_product product = {m, n, k, opt.seed, 1};
    cl_make_product(d_a, d_b, CL_ON_DEVICE, product);
    cl_product_check *check =
        opt.check ? cl_product_check_open(product, 0, opt.seed, opt.n_text) : NULL;
    run_args args = {d_a, d_b, d_c, workspace, m, n, k, check};
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    cl_report_append_case(report, "m=%d k=%d", m, k);
    /* 2mnk operations, on the tensor cores, whose dense BF16 rate a probe measures
       (tensor_ceiling.cu) */
    report->unit = "TFLOP/s";
    report->ceiling_name = "BF16 tensor rate";
    report->work = 2.0 * (double)m * (double)n * (double)k;
    report->unit_per_second = 1e12;

    /* The checked run; the last timed run is checked again after timing. */
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL)
        report->ceiling = measure_bf16_tensor_tflops(&bench);
    /* the roofline's lower arm: A and B (2 bytes an element) read once and C (4) written once; at
       m = 16 each element of B read takes part in 32 operations */
    if (ceilings != NULL)
        cl_product_read_bound(report,
                              2.0 * ((double)a_count + (double)b_count) + 4.0 * m * (double)n,
                              ceilings->read_gbps);
    cl_product_check_close(check);

    CL_CUDA_CHECK(cudaFree(d_a));
    CL_CUDA_CHECK(cudaFree(d_b));
    CL_CUDA_CHECK(cudaFree(d_c));
    CL_CUDA_CHECK(cudaFree(workspace));
    return cl_bench_finish(&bench);
}
