/**
 * @file cl_timing.h
 * @brief Event timing of one launch function: warm-up, L2 flushed before every repeat, median and
 * min.
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
 * flushed (a write of twice its size) before every run, outside the events.
 */
cl_timing cl_time_launches(const cl_device_info *dev, cl_launch_fn launch, void *context,
                           int warmup, int repeat);

/** Median of @p count values (sorts them in place); 0 when count is 0. */
double cl_median(double *values, int count);

/** Smallest of @p count values; 0 when count is 0. */
double cl_minimum(const double *values, int count);

#ifdef __cplusplus
}
#endif

#endif
