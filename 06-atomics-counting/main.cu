/**
 * @file main.cu
 * @brief Lesson 06's harness, shared by every version: options, the CSR inputs, the checked run,
 * timing, report. A version file brings only count_workspace_bytes() and count_over_limit().
 */
#include "counting.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"
#include "cl_parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_MEAN ((uint64_t)1 << 40) /* so that 2·mean and 4096·mean stay far from overflow */
/* The default --mean: cases at it leave the mean out of their names and of refusals. */
#define DEFAULT_MEAN 16
#define TEXT_OF(x)   #x
#define TEXT(x)      TEXT_OF(x)

static int parse_mean(const char *text, void *target, char *accepted, size_t len)
{
    uint64_t value;
    if (cl_parse_size(text, &value) != 0) {
        snprintf(accepted, len, "a whole count of floats, like 16, 4K or 2^20 (0 to 2^40)");
        return -1;
    }
    if (value > MAX_MEAN) {
        snprintf(accepted, len, "a mean container length from 0 to 2^40");
        return -1;
    }
    *(uint64_t *)target = value;
    return 0;
}

static int parse_limit(const char *text, void *target, char *accepted, size_t len)
{
    char *end;
    const float value = strtof(text, &end);
    if (end == text || *end != '\0' || !isfinite(value)) {
        snprintf(accepted, len, "a finite number");
        return -1;
    }
    *(float *)target = value;
    return 0;
}

typedef struct {
    const float *values;
    const size_t *offsets;
    size_t n, total;
    float limit;
    unsigned long long *count;
    void *workspace;
    reference_count ref;
    unsigned long long got; /* the count copied back */
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    count_over_limit(r->values, r->offsets, r->n, r->total, r->limit, r->count, r->workspace,
                     stream);
}

/* The count starts as 0xFF..FF before a checked run: a version that never writes it fails. */
static void poison_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    cl_poison(r->count, sizeof *r->count, stream);
}

/* Passes when sure <= count <= sure + ambiguous; the error is how far outside that range it is. */
static cl_check_result check_output(void *context, cudaStream_t stream)
{
    run_args *r = (run_args *)context;
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    CL_CUDA_CHECK(cudaMemcpy(&r->got, r->count, sizeof r->got, cudaMemcpyDeviceToHost));
    const double got = (double)r->got, low = (double)r->ref.sure,
                 high = (double)(r->ref.sure + r->ref.ambiguous);
    const double outside = got < low ? low - got : got > high ? got - high : 0.0;
    cl_check_result result = cl_check_scaled(
        outside, 0.0, 1.0, 0.0, "containers outside [sure, sure + ambiguous] of the reference");
    cl_check_where(&result,
                   "counted %llu containers over the limit; the reference allows %zu to %zu",
                   r->got, r->ref.sure, r->ref.sure + r->ref.ambiguous);
    return result;
}

int main(int argc, char **argv)
{
    cl_options opt;
    uint64_t mean = DEFAULT_MEAN;
    float limit = 8.0f;
    static const char *const length_names[] = {"fixed", "uniform", "powerlaw"}; /* length_dist */
    static const char *const dist_names[] = {"real", "int"};                    /* value_dist */
    cl_choice lengths = {length_names, 3, LENGTHS_FIXED}, dist = {dist_names, 2, DIST_REAL};
    const cl_extra_option extra[] = {
        {"lengths", "L",
         "container lengths: fixed (all --mean), uniform (1 to 2*mean-1) or powerlaw (mean ~ "
         "--mean, up to 4096*mean)",
         "fixed", cl_parse_choice, &lengths},
        {"mean", "M", "mean container length, in floats (0 to 2^40)", TEXT(DEFAULT_MEAN),
         parse_mean, &mean},
        {"limit", "X", "count the containers whose sum is greater than X", "8", parse_limit,
         &limit},
        {"dist", "D", "values: real (uniform in [-1, 2)) or int (-1, 0, 1, 2: exact sums)", "real",
         cl_parse_choice, &dist}};
    cl_options_defaults(&opt, 1u << 20);
    cl_parse_options(argc, argv,
                     "Lesson 06: how many of n containers (CSR) sum to more than a limit.", &opt,
                     extra, 4);
    const size_t n = (size_t)opt.n;
    /* a first estimate (exact for fixed lengths) refuses sizes that cannot fit before any host
       allocation: 8 bytes of offset and mean floats per container */
    /* the size is n and mean together: a refusal names --mean too where it is not the default */
    char size_text[96];
    if (mean == DEFAULT_MEAN)
        snprintf(size_text, sizeof size_text, "%s", opt.n_text);
    else
        snprintf(size_text, sizeof size_text, "%s --mean %llu", opt.n_text,
                 (unsigned long long)mean);
    const size_t estimate = cl_buffer_bytes(size_text, opt.n + 1, 8 + 4 * mean);
    /* the host holds the offsets alone: the values are made in pieces that cross the bus as they
       are made, and counted on the way */
    cl_require_host_memory(size_text, cl_buffer_bytes(size_text, opt.n + 1, 8));

    cl_bench bench;
    cl_bench_open(&bench, "06-atomics-counting", argv[0], &opt);
    cl_require_device_memory(&bench.dev, size_text, estimate);

    size_t *offsets = (size_t *)cl_host_alloc(opt.n_text, (n + 1) * sizeof *offsets, "the offsets");
    const uint64_t total = fill_offsets(offsets, n, (length_dist)lengths.value, mean, opt.seed);
    const size_t value_bytes = cl_buffer_bytes(opt.n_text, total, sizeof(float));
    const size_t offset_bytes = (n + 1) * sizeof *offsets;
    const size_t workspace_bytes = count_workspace_bytes(n, total);
    cl_require_device_memory(&bench.dev, opt.n_text, value_bytes + offset_bytes + workspace_bytes);
    float *d_values = NULL;
    size_t *d_offsets = NULL;
    unsigned long long *d_count = NULL;
    CL_CUDA_CHECK(cudaMalloc(&d_values, value_bytes ? value_bytes : 1));
    CL_CUDA_CHECK(cudaMalloc(&d_offsets, offset_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_count, sizeof *d_count));
    cl_copy_to_device(d_offsets, offsets, offset_bytes, "offsets");
    void *workspace = cl_device_alloc_zeroed(workspace_bytes);
    run_args args = {d_values, d_offsets, n, total, limit, d_count, workspace, {0, 0, 0}, 0};
    make_values(d_values, CL_ON_DEVICE, total, (value_dist)dist.value, opt.seed, offsets, n, limit,
                dist.value == DIST_INT, opt.check ? &args.ref : NULL);
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    cl_report_append_case(report, "lengths=%s", cl_choice_name(&lengths));
    if (mean != DEFAULT_MEAN)
        cl_report_append_case(report, "mean=%llu", (unsigned long long)mean);
    if (dist.value != DIST_REAL)
        cl_report_append_case(report, "dist=%s", cl_choice_name(&dist));
    if (limit != 8.0f)
        cl_report_append_case(report, "limit=%g", (double)limit);
    /* Memory-bound: every float and every offset is read once; one count is written. */
    const double input_bytes = (double)value_bytes + (double)offset_bytes;
    report->unit = "GB/s";
    report->ceiling_name = "read bandwidth";
    report->work = input_bytes;
    report->unit_per_second = 1e9;

    /* The checked run; the last timed run is checked again after timing. */
    free(offsets);
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL)
        report->ceiling = ceilings->read_gbps;
    cl_report_note(report,
                   "  input  %zu containers, %llu floats (mean %.2f), %.3g GB with the offsets", n,
                   (unsigned long long)total, (double)total / (double)n, input_bytes * 1e-9);
    if (report->checked)
        cl_report_note(report,
                       "  count  %llu; the reference: %zu surely over the limit, %zu within "
                       "rounding of it, longest container %zu floats",
                       args.got, args.ref.sure, args.ref.ambiguous, args.ref.longest);
    if (report->timing.repeats > 0)
        cl_report_note(report, "  rate   %.2f Gcontainers/s",
                       (double)n / report->timing.median_ms * 1e-6);

    CL_CUDA_CHECK(cudaFree(d_values));
    CL_CUDA_CHECK(cudaFree(d_offsets));
    CL_CUDA_CHECK(cudaFree(d_count));
    CL_CUDA_CHECK(cudaFree(workspace));
    return cl_bench_finish(&bench);
}
