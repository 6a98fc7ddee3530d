/**
 * @file cl_ceilings.h
 * @brief The ceilings that bind the lessons, measured on the device in use.
 */
#ifndef CL_CEILINGS_H
#define CL_CEILINGS_H

#include "cl_device.h"
#include "cl_timing.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Rates this device sustains, measured in this process. */
typedef struct {
    double read_gbps;   /**< streaming read of a large buffer with 16-byte loads, GB/s (10^9 B/s) */
    double copy_gbps;   /**< device-to-device copy, 16-byte accesses, bytes read + written, GB/s */
    double fp32_gflops; /**< FP32 fused multiply-adds, counted as 2 flops each, GFLOP/s */
} cl_ceilings;

/**
 * Measures the ceilings (about 0.2 s) with the bench's stream, events and flush: the read probe
 * streams min(4 GiB, free/4) bytes, a tile of 16-byte loads per block; the copy probe copies half
 * of that buffer into the other half, tile by tile (bytes read plus bytes written); the FMA probe
 * runs 8 independent FMA chains per thread on a full grid for ~9 ms per run, as long as the
 * FP32-bound kernels it is compared with, so both see the same clocks. Each is the median of 10
 * timed runs, the statistic the lessons report for their own times.
 */
cl_ceilings cl_measure_ceilings(cl_bench *b);

/** The probes' work: @p bytes (a multiple of 16) of @p buffer (the read probe launches a block per
 * tile of it; the copy probe copies its first half into its second the same way; the FMA probe
 * runs @p blocks blocks and uses the sink). */
typedef struct {
    const void *buffer;
    size_t bytes;
    float *sink; /**< written only if the sum is 1234.5 (never, for zeros) */
    unsigned blocks;
} cl_read_probe;

/**
 * Queues the read probe alone (a tile of 16-byte loads per block of 256 threads) on @p probe, a
 * cl_read_probe: a cl_launch_fn, so that cl_time_launches() times it as it times a version.
 */
void cl_launch_read_probe(void *probe, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
