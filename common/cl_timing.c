/**
 * @file cl_timing.c
 * @brief Event timing with a clean L2 flush between repeats, so each run reads its inputs from DRAM
 * and writes back nothing but its own outputs.
 */
#include "cl_timing.h"

#include "cl_cuda_check.h"
#include "cl_flush.h"

#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cl_median(double *values, int count)
{
    if (count <= 0)
        return 0.0;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

double cl_minimum(const double *values, int count)
{
    double best = count > 0 ? values[0] : 0.0;
    for (int i = 1; i < count; i++)
        if (values[i] < best)
            best = values[i];
    return best;
}

/* One flusher per process, made at the first timing (the ceiling probes') and freed at exit: its
   buffers and their first fill are start-up work, not per-measurement work. */
static cl_l2_flusher flush;
static int flush_ready = 0;

static void free_flusher(void)
{
    cl_l2_flusher_free(&flush);
}

cl_timing cl_time_launches(const cl_device_info *dev, cl_launch_fn launch, void *context,
                           int warmup, int repeat, cl_launch_fn before_last)
{
    cl_timing result = {0.0, 0.0, repeat};
    if (repeat <= 0)
        return result;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    double *times = (double *)malloc(sizeof(double) * (size_t)repeat);
    if (times == NULL)
        cl_cuda_check_(cudaErrorMemoryAllocation, "malloc of the timing array", __FILE__, __LINE__);
    if (!flush_ready) {
        cl_l2_flusher_init(&flush, dev);
        atexit(free_flusher);
        flush_ready = 1;
    }
    CL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CL_CUDA_CHECK(cudaEventCreate(&start));
    CL_CUDA_CHECK(cudaEventCreate(&stop));

    for (int i = 0; i < warmup; i++)
        launch(context, stream);
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));

    for (int i = 0; i < repeat; i++) {
        if (i == repeat - 1 && before_last != NULL)
            before_last(context, stream); /* e.g. poison the output: the last run is checked too */
        cl_l2_flush(&flush, i, stream);
        CL_CUDA_CHECK(cudaEventRecord(start, stream));
        launch(context, stream);
        CL_CUDA_CHECK(cudaEventRecord(stop, stream));
        CL_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CL_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times[i] = ms;
    }
    CL_CUDA_CHECK(cudaGetLastError());
    result.min_ms = cl_minimum(times, repeat);
    result.median_ms = cl_median(times, repeat);

    CL_CUDA_CHECK(cudaEventDestroy(start));
    CL_CUDA_CHECK(cudaEventDestroy(stop));
    CL_CUDA_CHECK(cudaStreamDestroy(stream));
    free(times);
    return result;
}
