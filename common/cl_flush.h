/**
 * @file cl_flush.h
 * @brief Emptying the L2 between timed runs and leaving it clean (no dirty lines to write back).
 */
#ifndef CL_FLUSH_H
#define CL_FLUSH_H

#include "cl_device.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Two device buffers of twice the L2 size: one written, one read, by every flush. */
typedef struct {
    void *dirty;
    void *clean;
    float *sink;
    size_t bytes;
    unsigned blocks;
} cl_l2_flusher;

/** Allocates the buffers (4 × the L2 size in all). */
void cl_l2_flusher_init(cl_l2_flusher *f, const cl_device_info *dev);

/**
 * Queues on @p stream a write of twice the L2 size (evicting, and writing back, whatever the last
 * run left), then a read of another twice-the-L2 buffer, so the L2 ends full of clean lines that
 * no timed kernel needs. @p pass varies the written byte.
 */
void cl_l2_flush(const cl_l2_flusher *f, int pass, cudaStream_t stream);

/** Frees the buffers (cl_bench_finish() calls it). */
void cl_l2_flusher_free(cl_l2_flusher *f);

#ifdef __cplusplus
}
#endif

#endif
