/**
 * @file cl_ceilings.h
 * @brief The two ceilings that bind the lessons, measured on the device in use.
 */
#ifndef CL_CEILINGS_H
#define CL_CEILINGS_H

#include "cl_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Best rates seen on this device in this process. */
typedef struct {
    double read_gbps;   /**< streaming read of a large buffer with 16-byte loads, GB/s (10^9 B/s) */
    double fp32_gflops; /**< FP32 fused multiply-adds, counted as 2 flops each, GFLOP/s */
} cl_ceilings;

/**
 * Measures both ceilings (about 50 ms): the read probe streams min(1 GiB, free/4) bytes, the FMA
 * probe runs 8 independent FMA chains per thread on a full grid. The best of 10 timed runs each.
 */
cl_ceilings cl_measure_ceilings(const cl_device_info *dev);

#ifdef __cplusplus
}
#endif

#endif
