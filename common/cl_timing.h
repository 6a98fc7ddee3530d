/**
 * @file cl_timing.h
 * @brief Event timing of one launch function: warm-up, a clean L2 flush before every repeat, median
 * and min.
 */
#ifndef CL_TIMING_H
#define CL_TIMING_H

#include "cl_device.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The work being timed: launches only, no allocation, copy or host work. */
typedef void (*cl_launch_fn)(void *context, cudaStream_t stream);

/** Median and minimum over the timed repeats, in milliseconds. */
typedef struct {
    double median_ms;
    double min_ms;
    int repeats;
} cl_timing;

/**
 * Runs @p launch @p warmup times, then @p repeat times between two events each, with the L2 cache
 * emptied before every run, outside the events, and left holding only clean lines (cl_l2_flush():
 * a write of twice its size, then a read of twice its size). @p before_last, when not NULL, runs
 * on the same stream before the last timed run's flush, outside the events: the harnesses poison
 * the output there, so that the last timed run's output can be checked like the first run's.
 */
cl_timing cl_time_launches(const cl_device_info *dev, cl_launch_fn launch, void *context,
                           int warmup, int repeat, cl_launch_fn before_last);

/** Median of @p count values (sorts them in place); 0 when count is 0. */
double cl_median(double *values, int count);

/** Smallest of @p count values; 0 when count is 0. */
double cl_minimum(const double *values, int count);

#ifdef __cplusplus
}
#endif

#endif
