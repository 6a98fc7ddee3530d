/**
 * @file main.cu
 * @brief Lesson 05's harness, shared by every version: options, inputs, the checked runs, timing,
 * report. A version file brings only conv_workspace_bytes() and conv1d().
 */
#include "conv.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"
#include "cl_parallel.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Declared weak: only a version on the tensor cores defines it (conv.h). */
int conv_uses_split_tf32(void) __attribute__((weak));
/* Declared weak too: only a program with limits of its own defines it (the cuDNN baseline). */
const char *conv_refuses(const conv_shape *s) __attribute__((weak));

static int parse_mask(const char *text, void *target, char *accepted, size_t len)
{
    uint64_t value;
    if (cl_parse_count(text, CONV_MAX_MASK, &value) != 0 || value % 2 == 0) {
        snprintf(accepted, len, "an odd mask width from 1 to %d", CONV_MAX_MASK);
        return -1;
    }
    *(int *)target = (int)value;
    return 0;
}

static int parse_channels(const char *text, void *target, char *accepted, size_t len)
{
    uint64_t value;
    if (cl_parse_count(text, CONV_MAX_CHANNELS, &value) != 0 || value < 1) {
        snprintf(accepted, len, "a count from 1 to %d", CONV_MAX_CHANNELS);
        return -1;
    }
    *(int *)target = (int)value;
    return 0;
}

typedef struct {
    const float *x, *w;
    float *y;
    conv_shape shape;
    void *workspace;
    const float *host_x, *host_w; /* the inputs, for the reference; x NULL: drawn again */
    float *host_y;                /* where the output is copied back (with x) */
    int exact;                    /* integer inputs: the check is exact */
    input_dist dist;              /* how x was drawn */
    uint64_t seed;                /* x's seed, and picks the sampled outputs */
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *a = (const run_args *)context;
    conv1d(a->x, a->w, a->y, &a->shape, a->workspace, stream);
}

/* y starts as NaN everywhere before a checked run, so an output nobody wrote fails. */
static void poison_output(void *context, cudaStream_t stream)
{
    const run_args *a = (const run_args *)context;
    cl_poison(a->y,
              (size_t)a->shape.batch * (size_t)a->shape.channels * a->shape.length * sizeof(float),
              stream);
}

/* |y - ref| / sum|w*x| of one output (cl_scaled_error()). */
/* Copies y back to the host and compares it with the double-precision reference. */
static cl_check_result check_output(void *context, cudaStream_t stream)
{
    const run_args *a = (const run_args *)context;
    const conv_shape *s = &a->shape;
    const size_t rows = (size_t)s->batch * (size_t)s->channels;
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    cl_worst worst;
    if (a->host_x != NULL) {
        cl_copy_to_host(a->host_y, a->y, rows * s->length * sizeof(float), "output signals");
        worst = conv_check_outputs(a->host_x, a->host_w, a->host_y, s, a->seed);
    } else {
        worst = conv_check_sample(a->y, CL_ON_DEVICE, a->host_w, s, a->dist, a->seed, a->seed);
    }
    cl_check_result result = cl_check_scaled(
        worst.error, 0.0, 1.0,
        conv_tolerance(s, a->exact, conv_uses_split_tf32 != NULL && conv_uses_split_tf32()),
        a->exact ? "max |y - ref| / sum|w*x|, exact integers"
                 : "max |y - ref| / sum|w*x| over the checked outputs");
    cl_check_where(&result, "y[%zu][%zu][%zu] = %.9g; the reference is %.17g (the worst checked)",
                   worst.row / (size_t)s->channels, worst.row % (size_t)s->channels, worst.col,
                   worst.got, worst.want);
    return result;
}

int main(int argc, char **argv)
{
    cl_options opt;
    conv_shape shape = {1, 1, 7, 0};
    static const char *const dist_names[] = {"real", "int"}; /* the order of input_dist */
    cl_choice dist = {dist_names, 2, DIST_REAL};
    const cl_extra_option extra[] = {
        {"mask", "K", "taps per filter, odd, 1 to 511", "7", parse_mask, &shape.mask},
        {"channels", "C", "input = output channels, 1 to 1024", "1", parse_channels,
         &shape.channels},
        {"batch", "B", "signals per batch, 1 to 1024", "1", parse_channels, &shape.batch},
        {"dist", "D", "inputs: real (in [-1, 1)) or int (-2..2, exact sums)", "real",
         cl_parse_choice, &dist}};
    cl_options_defaults(&opt, 1u << 24);
    cl_parse_options(argc, argv,
                     "Lesson 05: the 1D convolution layer y = conv(x, w) (Conv1d, \"same\" zero "
                     "padding), checked against double precision. --n is the signal length L.",
                     &opt, extra, 4);
    shape.length = (size_t)opt.n;
    const size_t rows = (size_t)shape.batch * (size_t)shape.channels;
    if (opt.n > UINT64_MAX / rows)
        cl_bad_input("n", opt.n_text, "too large: batch x channels x n overflows 64 bits");
    const size_t signal_bytes = cl_buffer_bytes(opt.n_text, opt.n * rows, sizeof(float));
    const size_t weight_bytes =
        (size_t)shape.channels * (size_t)shape.channels * (size_t)shape.mask * sizeof(float);
    const char *refusal = conv_refuses != NULL ? conv_refuses(&shape) : NULL;
    if (refusal != NULL) {
        char length[32];
        snprintf(length, sizeof length, "%zu", shape.length);
        cl_bad_input("n", length, refusal);
    }
    /* Where every output is checked, the host holds x and y; where a sample is, neither: x is
       made in pieces that cross the bus as they are made, and drawn again under each sample. */
    const int host_signals = opt.check && conv_checks_every_output(&shape);
    cl_require_host_memory(opt.n_text, (host_signals ? 2 * signal_bytes : 0) + weight_bytes);

    cl_bench bench;
    cl_bench_open(&bench, "05-convolution", argv[0], &opt);
    const size_t workspace_bytes = conv_workspace_bytes(&shape);
    cl_require_device_memory(&bench.dev, opt.n_text,
                             2 * signal_bytes + weight_bytes + workspace_bytes);

    float *x = NULL, *y = NULL;
    float *w = (float *)cl_host_alloc(opt.n_text, weight_bytes, "the weights");
    fill_inputs(w, weight_bytes / sizeof(float), (input_dist)dist.value, opt.seed + 1);
    float *d_x, *d_w, *d_y;
    CL_CUDA_CHECK(cudaMalloc(&d_x, signal_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_y, signal_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_w, weight_bytes));
    if (host_signals) {
        x = (float *)cl_host_alloc(opt.n_text, signal_bytes, "the input signals");
        y = (float *)cl_host_alloc(opt.n_text, signal_bytes, "the output signals");
        fill_inputs(x, signal_bytes / sizeof(float), (input_dist)dist.value, opt.seed);
        cl_copy_to_device(d_x, x, signal_bytes, "input signals");
    } else {
        make_inputs(d_x, CL_ON_DEVICE, signal_bytes / sizeof(float), (input_dist)dist.value,
                    opt.seed);
    }
    CL_CUDA_CHECK(cudaMemcpy(d_w, w, weight_bytes, cudaMemcpyHostToDevice));
    void *workspace = cl_device_alloc_zeroed(workspace_bytes);
    run_args args = {d_x, d_w, d_y, shape, workspace, x, w, y, 0, (input_dist)dist.value, opt.seed};
    args.exact = args.dist == DIST_INT;
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    cl_report_append_case(report, "mask=%d channels=%d batch=%d", shape.mask, shape.channels,
                          shape.batch);
    /* 2 C K flops per output; the fewest bytes are x read once, y written once, w read once. The
       binding ceiling is the roofline: the FP32 rate, or the copy bandwidth times flops per byte,
       whichever is lower (memory-bound for small C K, compute-bound for large). */
    report->unit = "GFLOP/s";
    report->ceiling_name = "roofline";
    report->work = 2.0 * (double)rows * (double)shape.length * shape.channels * shape.mask;
    report->unit_per_second = 1e9;

    /* The checked run; the last timed run is checked again after timing. */
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL) {
        const double bytes = 2.0 * (double)signal_bytes + (double)weight_bytes;
        const double memory_bound = ceilings->copy_gbps * report->work / bytes;
        report->ceiling =
            memory_bound < ceilings->fp32_gflops ? memory_bound : ceilings->fp32_gflops;
    }
    free(x);
    free(y);
    free(w);

    CL_CUDA_CHECK(cudaFree(d_x));
    CL_CUDA_CHECK(cudaFree(d_y));
    CL_CUDA_CHECK(cudaFree(d_w));
    CL_CUDA_CHECK(cudaFree(workspace));
    return cl_bench_finish(&bench);
}
