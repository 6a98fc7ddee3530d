/**
 * @file main.cu
 * @brief Lesson 03's harness, shared by every version: options, inputs, the checked run, timing,
 * report. A version file brings only reduce_workspace_bytes() and reduce_sum().
 */
#include "reduction.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"
#include "cl_parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const float *in;
    size_t n;
    float *sum;
    void *workspace;
    double ref, ref_abs; /* the reference sum and sum of magnitudes */
    int exact;           /* integer inputs whose float sums are exact */
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *a = (const run_args *)context;
    reduce_sum(a->in, a->n, a->sum, a->workspace, stream);
}

/* The output starts as NaN before a checked run, so a sum nobody wrote fails. */
static void poison_output(void *context, cudaStream_t stream)
{
    cl_poison(((const run_args *)context)->sum, sizeof(float), stream);
}

static cl_check_result check_output(void *context, cudaStream_t stream)
{
    const run_args *a = (const run_args *)context;
    float got;
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    CL_CUDA_CHECK(cudaMemcpy(&got, a->sum, sizeof got, cudaMemcpyDeviceToHost));
    cl_check_result result =
        cl_check_scaled(got, a->ref, a->ref_abs, reduction_tolerance(a->n, a->exact),
                        a->exact ? "|sum - ref| / sum|x|, exact integers" : "|sum - ref| / sum|x|");
    cl_check_where(&result, "the sum is %.9g; the reference is %.17g", got, a->ref);
    return result;
}

int main(int argc, char **argv)
{
    cl_options opt;
    static const char *const dist_names[] = {"real", "int"}; /* the order of input_dist */
    cl_choice dist = {dist_names, 2, DIST_REAL};
    const cl_extra_option extra[] = {
        {"dist", "D", "inputs: real (mixed signs and magnitudes) or int ({-1,0,1}, exact sums)",
         "real", cl_parse_choice, &dist}};
    cl_options_defaults(&opt, 1u << 24);
    cl_parse_options(argc, argv, "Lesson 03: the sum of n floats, checked against a double sum.",
                     &opt, extra, 1);
    const size_t n = (size_t)opt.n;
    const size_t input_bytes = cl_buffer_bytes(opt.n_text, opt.n, sizeof(float));

    cl_bench bench;
    cl_bench_open(&bench, "03-reduction", argv[0], &opt);
    const size_t workspace_bytes = reduce_workspace_bytes(n);
    cl_require_device_memory(&bench.dev, opt.n_text, input_bytes + workspace_bytes + sizeof(float));

    float *d_in = NULL, *d_sum = NULL;
    CL_CUDA_CHECK(cudaMalloc(&d_in, input_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
    void *workspace = cl_device_alloc_zeroed(workspace_bytes);
    run_args args = {d_in, n, d_sum, workspace, 0.0, 0.0, 0};
    /* The inputs are made on the host in pieces that cross the bus as they are made, and summed in
       double on the way for the checked run: the host never holds them all. */
    int whole = 0;
    make_inputs(d_in, CL_ON_DEVICE, n, (input_dist)dist.value, opt.seed,
                opt.check ? &args.ref : NULL, &args.ref_abs, &whole);
    args.exact = opt.check && sum_is_exact_in_float(whole, args.ref_abs);
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    cl_report_append_case(report, "dist=%s", cl_choice_name(&dist));
    report->unit = "GB/s";
    report->ceiling_name = "read bandwidth";
    report->work = (double)input_bytes; /* every input read once; the output is 4 bytes */
    report->unit_per_second = 1e9;

    /* The checked run; the last timed run is checked again after timing. */
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL)
        report->ceiling = ceilings->read_gbps;

    CL_CUDA_CHECK(cudaFree(d_in));
    CL_CUDA_CHECK(cudaFree(d_sum));
    CL_CUDA_CHECK(cudaFree(workspace));
    return cl_bench_finish(&bench);
}
