/**
 * @file main.cu
 * @brief Lesson 02's harness, shared by every version: options, inputs, the checked run, timing,
 * report. A version file brings gemm(), gemm_workspace_bytes() and gemm_supports().
 */
#include "gemm.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"
#include "cl_parallel.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    const float *a, *b;
    float *c;
    void *workspace; /* gemm_workspace_bytes() of it, for the versions that need one */
    int m, n, k;
    semiring ring;
    const cl_product_check *check; /* the reference (none with --no-check) */
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    gemm(r->a, r->b, r->c, r->m, r->n, r->k, r->ring, r->workspace, stream);
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
    const int min_plus = r->ring == SEMIRING_MIN_PLUS;
    /* Any order of k fused multiply-adds errs by at most gamma_k Σ|a·b| (Higham, Thm 3.1 with
       FMA); min-plus is exact. */
    return cl_product_verdict(cl_product_check_run(r->check, r->c, CL_ON_DEVICE), min_plus,
                              cl_float_gamma((double)r->k));
}

int main(int argc, char **argv)
{
    cl_options opt;
    int m = 0, k = 0;                                                   /* 0: the same as --n */
    static const char *const ring_names[] = {"plus-times", "min-plus"}; /* order of semiring */
    cl_choice ring = {ring_names, 2, SEMIRING_PLUS_TIMES};
    const cl_extra_option extra[] = {
        {"m", "M", "rows of A and C (1 to 65536)", "--n", cl_parse_matrix_dim, &m},
        {"k", "K", "columns of A, rows of B (1 to 65536)", "--n", cl_parse_matrix_dim, &k},
        {"semiring", "S", "plus-times (C = A·B) or min-plus (c = min a + b)", "plus-times",
         cl_parse_choice, &ring}};
    cl_options_defaults(&opt, 2048);
    cl_parse_options(argc, argv,
                     "Lesson 02: C = A·B (m×k times k×n, row-major), checked against double "
                     "precision. --n sets the columns of B and C, and m and k unless given.",
                     &opt, extra, 3);
    if (opt.n < 1 || opt.n > CL_GEMM_MAX_DIM)
        cl_bad_input("n", opt.n_text, "expected a matrix dimension from 1 to 65536");
    const int n = (int)opt.n;
    m = m ? m : n;
    k = k ? k : n;
    if (!gemm_supports((semiring)ring.value))
        cl_bad_input("semiring", cl_choice_name(&ring), "this version computes plus-times only");
    const size_t a_bytes = (size_t)m * (size_t)k * sizeof(float);
    const size_t b_bytes = (size_t)k * (size_t)n * sizeof(float);
    const size_t c_bytes = (size_t)m * (size_t)n * sizeof(float);

    cl_bench bench;
    cl_bench_open(&bench, "02-gemm", argv[0], &opt);
    const size_t workspace_bytes = gemm_workspace_bytes(m, n, k);
    cl_require_device_memory(&bench.dev, opt.n_text, a_bytes + b_bytes + c_bytes + workspace_bytes);

    float *d_a, *d_b, *d_c;
    CL_CUDA_CHECK(cudaMalloc(&d_a, a_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_b, b_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_c, c_bytes));
    void *workspace = cl_device_alloc_zeroed(workspace_bytes);
    /* made on their way to the GPU: the host keeps no copy (the check draws again what it needs) */
    const cl_product product = {m, n, k, opt.seed, 0};
    cl_make_product(d_a, d_b, CL_ON_DEVICE, product);
    cl_product_check *check =
        opt.check
            ? cl_product_check_open(product, ring.value == SEMIRING_MIN_PLUS, opt.seed, opt.n_text)
            : NULL;
    run_args args = {d_a, d_b, d_c, workspace, m, n, k, (semiring)ring.value, check};
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    cl_report_append_case(report, "m=%d k=%d %s", m, k, cl_choice_name(&ring));
    /* 2mnk operations (a multiply and an add, or an add and a min, per term). An FFMA does both
       for +·; min-plus needs an FADD and an FMNMX, so its ceiling is half the FP32 FMA rate. */
    report->unit = "TFLOP/s";
    report->ceiling_name = "FP32 rate";
    report->work = 2.0 * (double)m * (double)n * (double)k;
    report->unit_per_second = 1e12;

    /* The checked run; the last timed run is checked again after timing. */
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL)
        report->ceiling =
            ceilings->fp32_gflops / 1e3 / (ring.value == SEMIRING_MIN_PLUS ? 2.0 : 1.0);
    /* the roofline's lower arm: A and B read once and C written once, 4 bytes an element (at
       m = 16 each element of B read takes part in 32 operations) */
    if (ceilings != NULL)
        cl_product_read_bound(report, 4.0 * ((double)m * k + (double)k * n + (double)m * n),
                              ceilings->read_gbps);
    cl_product_check_close(check);

    CL_CUDA_CHECK(cudaFree(d_a));
    CL_CUDA_CHECK(cudaFree(d_b));
    CL_CUDA_CHECK(cudaFree(d_c));
    CL_CUDA_CHECK(cudaFree(workspace));
    return cl_bench_finish(&bench);
}
