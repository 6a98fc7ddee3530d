/**
 * @file cl_cuda_check.h
 * @brief Checked CUDA calls: a failure names the call, the file and the line, then exits 1.
 */
#ifndef CL_CUDA_CHECK_H
#define CL_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Prints "file:line: call failed: reason" and exits 1 when @p err is not cudaSuccess. */
void cl_cuda_check_(cudaError_t err, const char *call, const char *file, int line);

#ifdef __cplusplus
}
#endif

/** Wraps a CUDA runtime call: `CL_CUDA_CHECK(cudaMalloc(&p, bytes));` */
#define CL_CUDA_CHECK(call) cl_cuda_check_((call), #call, __FILE__, __LINE__)

/** After a `<<<...>>>` launch: catches bad configurations at once; faults surface at the next sync.
 */
#define CL_LAUNCH_CHECK(kernel_name)                                                               \
    cl_cuda_check_(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)

#endif
