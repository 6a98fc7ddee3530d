/**
 * @file cl_timing.h
 * @brief What a timing is: the launch function being timed, the median and min of its repeats.
 * The timing itself, with the harness's stream, events and L2 flusher, is cl_time_launches()
 * (cl_bench.h).
 */
#ifndef CL_TIMING_H
#define CL_TIMING_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The harness's device, stream, events, flusher and ceilings (cl_bench.h). */
typedef struct cl_bench cl_bench;

/** The work being timed: launches only, no allocation, copy or host work. */
typedef void (*cl_launch_fn)(void *context, cudaStream_t stream);

/** Median and minimum over the timed repeats, in milliseconds. */
typedef struct {
    double median_ms;
    double min_ms;
    int repeats;
} cl_timing;

/** Median of @p count values (sorts them in place); 0 when count is 0. */
double cl_median(double *values, int count);

/** Smallest of @p count values; 0 when count is 0. */
double cl_minimum(const double *values, int count);

#ifdef __cplusplus
}
#endif

#endif
