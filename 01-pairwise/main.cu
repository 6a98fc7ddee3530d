/**
 * @file main.cu
 * @brief Lesson 01's harness, shared by every version: options, inputs, the checked run, timing,
 * report. A version file brings only pairwise_workspace_bytes() and pairwise_sum().
 */
#include "cal.h"
#include "pairwise.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const float *a, *b;
    size_t n;
    double *sum;
    void *workspace;
    long double ref; /* the exact sum */
    input_dist dist;
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    pairwise_sum(r->a, r->b, r->n, r->sum, r->workspace, stream);
}

/* The sum starts as NaN before a checked run, so a version that never writes it fails. */
static void poison_output(void *context, cudaStream_t stream)
{
    cl_poison(((const run_args *)context)->sum, sizeof(double), stream);
}

static cl_check_result check_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    const long double ref = r->ref;
    const input_dist dist = r->dist;
    double got;
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    CL_CUDA_CHECK(cudaMemcpy(&got, r->sum, sizeof got, cudaMemcpyDeviceToHost));
    /* cal >= 0, so sum |terms| = S; for n = 1 with a[0] == b[0], S = 0 and the error is absolute */
    cl_check_result result =
        cl_check_scaled(got, (double)ref, fabs((double)ref), pairwise_tolerance(dist),
                        dist == DIST_INT ? "|S - ref| / S, exact integers" : "|S - ref| / S");
    cl_check_where(&result, "the sum S is %.17g; the reference is %.17Lg", got, ref);
    return result;
}

int main(int argc, char **argv)
{
    cl_options opt;
    static const char *const dist_names[] = {"real", "int"}; /* the order of input_dist */
    cl_choice dist = {dist_names, 2, DIST_REAL};
    const cl_extra_option extra[] = {
        {"dist", "D", "inputs: real (a uniform, b triangular) or int (0..15, exact sums)", "real",
         cl_parse_choice, &dist}};
    cl_options_defaults(&opt, 1u << 16);
    cl_parse_options(argc, argv,
                     "Lesson 01: S = sum over all pairs (i, j) of cal(a[i], b[j]), "
                     "cal(x, y) = |x - y|, checked against an exact CPU sum.",
                     &opt, extra, 1);
    const size_t n = (size_t)opt.n;
    if (opt.n > PAIRWISE_MAX_N)
        cl_bad_input("n", opt.n_text,
                     "at most 2^24 for this lesson (n^2 pairs: 2^48 already take "
                     "minutes)");
    if (!CAL_IS_ABS_DIFF && opt.check && n > ((size_t)1 << 14))
        cl_bad_input("n", opt.n_text,
                     "cal is not |x - y|: the brute-force check allows at most "
                     "2^14 (or use --no-check)");
    const size_t input_bytes = cl_buffer_bytes(opt.n_text, opt.n, sizeof(float));
    cl_require_host_memory(opt.n_text, 2 * input_bytes);

    cl_bench bench;
    cl_bench_open(&bench, "01-pairwise", argv[0], &opt);
    const size_t workspace_bytes = pairwise_workspace_bytes(n);
    cl_require_device_memory(&bench.dev, opt.n_text,
                             2 * input_bytes + workspace_bytes + sizeof(double));

    float *a = (float *)cl_host_alloc(opt.n_text, input_bytes, "the inputs");
    float *b = (float *)cl_host_alloc(opt.n_text, input_bytes, "the inputs");
    fill_inputs(a, b, n, (input_dist)dist.value, opt.seed);
    float *d_a = NULL, *d_b = NULL;
    double *d_sum = NULL;
    CL_CUDA_CHECK(cudaMalloc(&d_a, input_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_b, input_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_sum, sizeof(double)));
    CL_CUDA_CHECK(cudaMemcpy(d_a, a, input_bytes, cudaMemcpyHostToDevice));
    CL_CUDA_CHECK(cudaMemcpy(d_b, b, input_bytes, cudaMemcpyHostToDevice));
    void *workspace = cl_device_alloc_zeroed(workspace_bytes);
    run_args args = {d_a, d_b, n, d_sum, workspace, 0.0L, (input_dist)dist.value};
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    cl_report_append_case(report, "dist=%s", cl_choice_name(&dist));
    report->unit = "Gpairs/s";
    report->ceiling_name = "FP32 rate";
    report->work = (double)n * (double)n;
    report->unit_per_second = 1e9;

    /* The checked run; the last timed run is checked again after timing. */
    if (opt.check)
        args.ref = CAL_IS_ABS_DIFF ? reference_abs_diff(a, b, n) : reference_brute(a, b, n);
    free(a);
    free(b);
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL) /* FMA counted as 2 flops = 1 instruction: instructions/s = GFLOP/s / 2 */
        report->ceiling = ceilings->fp32_gflops / 2.0 / CAL_FP32_INSTRUCTIONS;

    CL_CUDA_CHECK(cudaFree(d_a));
    CL_CUDA_CHECK(cudaFree(d_b));
    CL_CUDA_CHECK(cudaFree(d_sum));
    CL_CUDA_CHECK(cudaFree(workspace));
    return cl_bench_finish(&bench);
}
