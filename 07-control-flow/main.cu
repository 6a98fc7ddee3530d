/**
 * @file main.cu
 * @brief Lesson 07's harness, shared by every version: options, the view, the checked run, timing,
 * report. A version file brings only mandel_version_arithmetic, mandel_workspace_bytes() and
 * mandel_render().
 */
#include "mandelbrot.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * FP32 instructions of one pinned iteration with the escape test amortized: two FMUL (x², y²),
 * FSUB and FADD (x), FADD (x + x) and FFMA (y). The test adds one FADD (x² + y²) per test.
 */
#define FP32_INSTRUCTIONS_PER_ITERATION 6

static int parse_maxiter(const char *text, void *target, char *accepted, size_t len)
{
    uint64_t value;
    if (cl_parse_size(text, &value) != 0 || value < 1 || value > MANDEL_MAX_ITER) {
        snprintf(accepted, len, "an iteration count from 1 to 2^20");
        return -1;
    }
    *(unsigned *)target = (unsigned)value;
    return 0;
}

static int parse_path(const char *text, void *target, char *accepted, size_t len)
{
    if (text[0] == '\0') {
        snprintf(accepted, len, "a file name");
        return -1;
    }
    *(const char **)target = text;
    return 0;
}

typedef struct {
    mandel_params params;
    unsigned *counts;
    float *smooth;
    void *workspace;
    size_t pixels;
    unsigned *host_counts; /* the output copied back */
    float *host_smooth;
    double iterations; /* the reference's total iteration count: the work */
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    mandel_render(&r->params, r->counts, r->smooth, r->workspace, stream);
}

/* 0xFFFFFFFF is no count (at most 2^20) and NaN no smooth value: an unwritten pixel fails. */
static void poison_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    cl_poison(r->counts, r->pixels * sizeof(unsigned), stream);
    cl_poison(r->smooth, r->pixels * sizeof(float), stream);
}

static void copy_back(run_args *r, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    CL_CUDA_CHECK(cudaMemcpy(r->host_counts, r->counts, r->pixels * sizeof(unsigned),
                             cudaMemcpyDeviceToHost));
    CL_CUDA_CHECK(
        cudaMemcpy(r->host_smooth, r->smooth, r->pixels * sizeof(float), cudaMemcpyDeviceToHost));
}

static cl_check_result check_output(void *context, cudaStream_t stream)
{
    run_args *r = (run_args *)context;
    copy_back(r, stream);
    const mandel_check c =
        mandel_check_image(&r->params, mandel_version_arithmetic, r->host_counts, r->host_smooth);
    r->iterations = c.iterations;
    cl_check_result result = cl_check_scaled(c.smooth_error, 0.0, 1.0, MANDEL_SMOOTH_TOLERANCE,
                                             "max |smooth - ref| / max(1, ref), counts exact");
    if (c.count_mismatches > 0) {
        const size_t i = c.first_mismatch, w = r->params.width;
        const mandel_pixel ref = mandel_reference(&r->params, mandel_version_arithmetic,
                                                  (unsigned)(i % w), (unsigned)(i / w));
        cl_check_where(&result,
                       "%zu escape counts differ; the first at (%zu, %zu): %u, reference %u",
                       c.count_mismatches, i % w, i / w, r->host_counts[i], ref.count);
        result.error = INFINITY;
    }
    result.pass = result.error <= result.tolerance;
    return result;
}

int main(int argc, char **argv)
{
    cl_options opt;
    static const char *const view_names[] = {"full", "boundary"}; /* the order of mandel_view */
    cl_choice view = {view_names, 2, VIEW_FULL};
    unsigned maxiter = 1024;
    const char *image_path = NULL;
    const cl_extra_option extra[] = {
        {"view", "V",
         "full (the whole set) or boundary (a zoom into the seahorse valley, divergent warps)",
         "full", cl_parse_choice, &view},
        {"maxiter", "M", "iterations at most per pixel, 1 to 2^20", "1024", parse_maxiter,
         &maxiter},
        {"image", "FILE", "write the picture of the checked run as an 8-bit PGM", "none",
         parse_path, &image_path}};
    cl_options_defaults(&opt, 4096);
    cl_parse_options(argc, argv,
                     "Lesson 07: the escape-time Mandelbrot image, W x W pixels (--n W); escape "
                     "counts checked bit for bit against a CPU replay of the same arithmetic, "
                     "smooth values to 2^-16.",
                     &opt, extra, 3);
    if (opt.n > MANDEL_MAX_WIDTH)
        cl_bad_input("n", opt.n_text,
                     "at most 65535 (the image width; W^2 pixels must fit in 32 bits)");
    const unsigned width = (unsigned)opt.n;
    const size_t pixels = (size_t)width * width;
    const size_t output_bytes =
        cl_buffer_bytes(opt.n_text, pixels, sizeof(unsigned) + sizeof(float));
    cl_require_host_memory(opt.n_text, output_bytes);
    if (image_path !=
        NULL) { /* a picture that cannot be written is bad input, found before the run */
        FILE *image = fopen(image_path, "ab");
        if (image == NULL)
            cl_bad_input("image", image_path, strerror(errno));
        fclose(image);
    }

    cl_bench bench;
    cl_bench_open(&bench, "07-control-flow", argv[0], &opt);
    const mandel_params params = mandel_view_params((mandel_view)view.value, width, maxiter);
    const size_t workspace_bytes = mandel_workspace_bytes(&params);
    cl_require_device_memory(&bench.dev, opt.n_text, output_bytes + workspace_bytes);

    run_args args;
    memset(&args, 0, sizeof args);
    args.params = params;
    args.pixels = pixels;
    args.host_counts =
        (unsigned *)cl_host_alloc(opt.n_text, pixels * sizeof(unsigned), "the image");
    args.host_smooth = (float *)cl_host_alloc(opt.n_text, pixels * sizeof(float), "the image");
    CL_CUDA_CHECK(cudaMalloc(&args.counts, pixels * sizeof(unsigned)));
    CL_CUDA_CHECK(cudaMalloc(&args.smooth, pixels * sizeof(float)));
    args.workspace = cl_device_alloc_zeroed(workspace_bytes);
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    cl_report_append_case(report, "view=%s maxiter=%u", cl_choice_name(&view), maxiter);
    report->unit = "Giter/s";
    report->ceiling_name = "FP32 rate / 6";
    report->unit_per_second = 1e9;

    /* The checked run; the last timed run is checked again after timing. */
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL) /* FMA counted as 2 flops = 1 instruction: instructions/s = GFLOP/s / 2 */
        report->ceiling = ceilings->fp32_gflops / 2.0 / FP32_INSTRUCTIONS_PER_ITERATION;
    if (!opt.check) { /* no reference: the work is what this version counted, in its last run */
        if (opt.repeat == 0)
            launch(&args, bench.stream);
        copy_back(&args, bench.stream);
        for (size_t i = 0; i < pixels; i++)
            args.iterations += args.host_counts[i];
    }
    report->work = args.iterations;
    /* the picture of the last run, which was checked (or, under --no-check, copied back above) */
    if (image_path != NULL && mandel_write_pgm(image_path, width, maxiter, args.host_smooth) != 0)
        cl_bad_input("image", image_path, "cannot write the file");

    CL_CUDA_CHECK(cudaFree(args.counts));
    CL_CUDA_CHECK(cudaFree(args.smooth));
    CL_CUDA_CHECK(cudaFree(args.workspace));
    free(args.host_counts);
    free(args.host_smooth);
    return cl_bench_finish(&bench);
}
