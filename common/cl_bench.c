/**
 * @file cl_bench.c
 * @brief The harness's one object: the device, one stream and two events for the whole program,
 * the clean L2 flush between timed runs, the ceilings, and the report's last word.
 */
#include "cl_bench.h"

#include "cl_cuda_check.h"
#include "cl_parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run longer than this says where its time went. */
#define CL_WALL_NOTE_SECONDS 1.0

/* The harness uploads its inputs with cudaMemcpy, on the legacy default stream, and launches on
   its own non-blocking stream, which does not wait for that stream. From pageable host memory
   cudaMemcpy returns once the data is staged, maybe before it reaches the device: a kernel
   launched next could read the input's last bytes before they arrive (cuDNN did, at small layers:
   lesson 05's page). So the first launch waits for the whole device. */
static void cl_bench_wait_for_uploads(void)
{
    CL_CUDA_CHECK(cudaDeviceSynchronize());
}

void cl_bench_open_device(cl_bench *b, int index)
{
    memset(b, 0, sizeof *b);
    b->opened_at = cl_seconds();
    cl_device_open(index, &b->dev);
    CL_CUDA_CHECK(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
    CL_CUDA_CHECK(cudaEventCreate(&b->start));
    CL_CUDA_CHECK(cudaEventCreate(&b->stop));
}

void cl_bench_open(cl_bench *b, const char *lesson, const char *argv0, const cl_options *opt)
{
    cl_bench_open_device(b, opt->device);
    b->opt = opt;
    cl_report_begin(&b->report, lesson, argv0, opt);
}

cl_timing cl_time_launches(cl_bench *b, cl_launch_fn launch, void *context, int warmup, int repeat,
                           cl_launch_fn before_last)
{
    cl_timing result = {0.0, 0.0, repeat};
    if (repeat <= 0)
        return result;
    double *times = (double *)malloc(sizeof(double) * (size_t)repeat);
    if (times == NULL)
        cl_cuda_check_(cudaErrorMemoryAllocation, "malloc of the timing array", __FILE__, __LINE__);
    cl_bench_wait_for_uploads();
    /* The flusher's buffers and their first fill are start-up work, made once per program. */
    if (!b->flusher_ready) {
        cl_l2_flusher_init(&b->flusher, &b->dev);
        b->flusher_ready = 1;
    }

    for (int i = 0; i < warmup; i++)
        launch(context, b->stream);
    CL_CUDA_CHECK(cudaStreamSynchronize(b->stream));

    for (int i = 0; i < repeat; i++) {
        if (i == repeat - 1 && before_last != NULL)
            before_last(context, b->stream); /* e.g. poison the output: the last run is checked */
        cl_l2_flush(&b->flusher, i, b->stream);
        CL_CUDA_CHECK(cudaEventRecord(b->start, b->stream));
        launch(context, b->stream);
        CL_CUDA_CHECK(cudaEventRecord(b->stop, b->stream));
        CL_CUDA_CHECK(cudaEventSynchronize(b->stop));
        float ms = 0.0f;
        CL_CUDA_CHECK(cudaEventElapsedTime(&ms, b->start, b->stop));
        times[i] = ms;
    }
    CL_CUDA_CHECK(cudaGetLastError());
    result.min_ms = cl_minimum(times, repeat);
    result.median_ms = cl_median(times, repeat);
    free(times);
    return result;
}

/* The check, its host time counted apart from the GPU's: the launch it follows finishes first. */
static cl_check_result timed_check(cl_bench *b, const cl_run *run)
{
    CL_CUDA_CHECK(cudaStreamSynchronize(b->stream));
    const double start = cl_seconds();
    const cl_check_result result = run->check(run->context, b->stream);
    b->check_seconds += cl_seconds() - start;
    return result;
}

void cl_bench_check(cl_bench *b, const cl_run *run)
{
    cl_bench_wait_for_uploads();
    b->setup_seconds = cl_seconds() - b->opened_at;
    if (!b->report.checked)
        return;
    run->poison(run->context, b->stream);
    run->launch(run->context, b->stream);
    b->report.check = timed_check(b, run);
}

const cl_ceilings *cl_bench_time(cl_bench *b, const cl_run *run)
{
    cl_report *r = &b->report;
    if (b->opt->repeat <= 0)
        return NULL;
    r->timing = cl_time_launches(b, run->launch, run->context, b->opt->warmup, b->opt->repeat,
                                 r->checked ? run->poison : NULL);
    if (r->checked) {
        r->check = cl_check_last_run(r->check, timed_check(b, run));
        r->last_run_checked = 1;
    }
    /* After the version, not before: for some milliseconds after the probes short kernels run
       slower, and a case whose warm-ups and repeats last a few milliseconds in all would be timed
       in that wake (common/experiments/ceiling_order.cu measures it). */
    if (!b->ceilings_ready) {
        b->ceilings = cl_measure_ceilings(b);
        b->ceilings_ready = 1;
    }
    return &b->ceilings;
}

int cl_bench_finish(cl_bench *b)
{
    if (b->opt != NULL) {
        cl_print_report(&b->report, &b->dev, b->opt->csv);
        const double wall = cl_seconds() - b->opened_at;
        if (!b->opt->csv && wall > CL_WALL_NOTE_SECONDS)
            printf(
                "  wall   %.1f s: %.1f s setting up (inputs, reference, copies to the GPU), %.1f s "
                "checking, on %d host thread%s; %.1f s on the GPU (the runs, L2 flushes and "
                "ceiling probes)\n",
                wall, b->setup_seconds, b->check_seconds, cl_threads(),
                cl_threads() == 1 ? "" : "s", wall - b->setup_seconds - b->check_seconds);
    }
    if (b->flusher_ready)
        cl_l2_flusher_free(&b->flusher);
    CL_CUDA_CHECK(cudaEventDestroy(b->start));
    CL_CUDA_CHECK(cudaEventDestroy(b->stop));
    CL_CUDA_CHECK(cudaStreamDestroy(b->stream));
    return b->report.checked && !b->report.check.pass ? 1 : 0;
}
