/**
 * @file main.cu
 * @brief Lesson 04's harness, shared by every version: options, inputs, the checked run, timing,
 * report. A version file brings only histogram_workspace_bytes() and histogram().
 */
#include "histogram.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"
#include "cl_parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_bins(const char *text, void *target, char *accepted, size_t len)
{
    uint64_t value;
    if (cl_parse_size(text, &value) != 0 || value < 1 || value > HISTOGRAM_MAX_BINS) {
        snprintf(accepted, len, "a bin count from 1 to 2^24");
        return -1;
    }
    *(unsigned *)target = (unsigned)value;
    return 0;
}

typedef struct {
    const void *in;
    size_t n;
    input_type type;
    unsigned bins;
    unsigned long long *hist;
    void *workspace;
    const unsigned long long *ref; /* the exact counts */
    unsigned long long *got;       /* where the bins are copied back */
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    histogram(r->in, r->n, r->type, r->bins, r->hist, r->workspace, stream);
}

/* Every counter starts as 0xFF..FF before a checked run, so a bin nobody wrote fails. */
static void poison_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    cl_poison(r->hist, (size_t)r->bins * sizeof(unsigned long long), stream);
}

/* Copies the bins back to the host and compares them with the exact counts. */
static cl_check_result check_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    const unsigned long long *ref = r->ref;
    unsigned long long *got = r->got;
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    CL_CUDA_CHECK(cudaMemcpy(got, r->hist, (size_t)r->bins * sizeof *got, cudaMemcpyDeviceToHost));
    size_t wrong = 0, first_wrong = 0;
    for (size_t b = r->bins; b-- > 0;)
        if (got[b] != ref[b]) {
            wrong++;
            first_wrong = b;
        }
    cl_check_result result =
        cl_check_scaled((double)wrong, 0.0, 1.0, 0.0, "bins that differ from the exact count");
    if (wrong)
        cl_check_where(&result, "bin %zu, the first that differs: %llu counted, %llu expected",
                       first_wrong, got[first_wrong], ref[first_wrong]);
    return result;
}

int main(int argc, char **argv)
{
    cl_options opt;
    unsigned bins = 256;
    static const char *const type_names[] = {"u32", "u8"}; /* the order of input_type */
    static const char *const dist_names[] = {"uniform", "one", "zipf"}; /* of input_dist */
    cl_choice type = {type_names, 2, TYPE_U32}, dist = {dist_names, 3, DIST_UNIFORM};
    const cl_extra_option extra[] = {
        {"bins", "B", "number of bins (1 to 2^24; at most 256 for u8)", "256", parse_bins, &bins},
        {"type", "T", "input type: u32 (unsigned values) or u8 (8-bit pixels)", "u32",
         cl_parse_choice, &type},
        {"dist", "D", "values: uniform, one (all in one bin) or zipf (skewed)", "uniform",
         cl_parse_choice, &dist}};
    cl_options_defaults(&opt, 1u << 26);
    cl_parse_options(argc, argv, "Lesson 04: the histogram of n values, checked exactly.", &opt,
                     extra, 3);
    if (type.value == TYPE_U8 && bins > 256) {
        char text[16];
        snprintf(text, sizeof text, "%u", bins);
        cl_bad_input("bins", text, "at most 256 with --type u8 (8-bit values)");
    }
    const size_t n = (size_t)opt.n;
    const size_t input_bytes =
        cl_buffer_bytes(opt.n_text, opt.n, element_bytes((input_type)type.value));
    const size_t hist_bytes = (size_t)bins * sizeof(unsigned long long);
    cl_require_host_memory(opt.n_text, 2 * hist_bytes);

    cl_bench bench;
    cl_bench_open(&bench, "04-histogram", argv[0], &opt);
    const size_t workspace_bytes = histogram_workspace_bytes(n, bins, (input_type)type.value);
    cl_require_device_memory(&bench.dev, opt.n_text, input_bytes + hist_bytes + workspace_bytes);

    unsigned long long *ref =
        (unsigned long long *)cl_host_alloc(opt.n_text, hist_bytes, "the reference");
    unsigned long long *got =
        (unsigned long long *)cl_host_alloc(opt.n_text, hist_bytes, "the output");
    void *d_in = NULL;
    unsigned long long *d_hist = NULL;
    CL_CUDA_CHECK(cudaMalloc(&d_in, input_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_hist, hist_bytes));
    /* The inputs are made on the host in pieces that cross the bus as they are made, and counted
       on the way for the checked run: the host never holds them all. */
    make_inputs(d_in, CL_ON_DEVICE, n, (input_type)type.value, bins, (input_dist)dist.value,
                opt.seed, opt.check ? ref : NULL);
    void *workspace = cl_device_alloc_zeroed(workspace_bytes);
    run_args args = {d_in, n, (input_type)type.value, bins, d_hist, workspace, ref, got};
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    cl_report_append_case(report, "bins=%u type=%s dist=%s", bins, cl_choice_name(&type),
                          cl_choice_name(&dist));
    /* Memory-bound: every value read once; the bins are written once (negligible). */
    report->unit = "Gelem/s";
    report->ceiling_name = "read bandwidth";
    report->work = (double)n;
    report->unit_per_second = 1e9;

    /* The checked run; the last timed run is checked again after timing. */
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL)
        report->ceiling = ceilings->read_gbps / (double)element_bytes((input_type)type.value);
    free(ref);
    free(got);

    CL_CUDA_CHECK(cudaFree(d_in));
    CL_CUDA_CHECK(cudaFree(d_hist));
    CL_CUDA_CHECK(cudaFree(workspace));
    return cl_bench_finish(&bench);
}
