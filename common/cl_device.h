/**
 * @file cl_device.h
 * @brief Choosing the device, describing it, and refusing sizes that do not fit in its memory.
 */
#ifndef CL_DEVICE_H
#define CL_DEVICE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a report says about the device in use. */
typedef struct {
    int index;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int max_threads_per_sm;
    int l2_bytes;
    int sm_clock_khz; /**< from cudaDevAttrClockRate (CUDA 13 dropped cudaDeviceProp::clockRate) */
    int driver_version;   /**< e.g. 13000 */
    int runtime_version;  /**< e.g. 13000 */
    char driver_text[32]; /**< "13.0", from the runtime's own report */
    char runtime_text[32];
    size_t free_bytes, total_bytes;
} cl_device_info;

/**
 * Selects device @p index and fills @p info. No device or an unusable driver: one line, exit 77.
 * An index past the last device: one line, exit 2.
 */
void cl_device_open(int index, cl_device_info *info);

/**
 * Whether @p bytes (all buffers of the run) fit in @p free_bytes of device memory with room to
 * spare for the flush, the ceiling probes and the runtime; if not, writes the reason
 * ("needs X of device memory ..., Y free on DEVICE") into @p why and returns 0.
 */
int cl_fits_device_memory(size_t bytes, size_t free_bytes, const char *device_name, char *why,
                          size_t why_len);

/**
 * For code that needs more than any CUDA GPU has: returns if the current device has compute
 * capability @p major.@p minor or later (with @p exact, that one alone: code built for sm_90a runs
 * on 9.0 only); otherwise one line naming @p feature and exit 77 (skipped). The device's
 * capability is read once per process, so later calls cost a comparison.
 */
void cl_require_compute_capability(int major, int minor, int exact, const char *feature);

/**
 * Exits 2 with "program: --n VALUE: needs X of device memory ..., Y free on DEVICE" when @p bytes
 * do not fit (cl_fits_device_memory()). @p n_text is the size as the user wrote it.
 */
void cl_require_device_memory(const cl_device_info *info, const char *n_text, size_t bytes);

/**
 * Exits 2 with "program: --n VALUE: needs X of host memory, this machine has Y" when @p bytes
 * (the inputs and outputs the harness keeps on the host) exceed the machine's physical memory.
 * Needs no device: a harness calls it before cl_device_open(), so that a size no machine of this
 * kind can run is refused as bad input even where there is no GPU.
 */
void cl_require_host_memory(const char *n_text, size_t bytes);

/**
 * Returns @p count × @p elem_bytes, or exits 2 with "program: --n VALUE: too large, the buffers
 * would need more than 2^64 bytes" when the product overflows size_t.
 */
size_t cl_buffer_bytes(const char *n_text, unsigned long long count, size_t elem_bytes);

/**
 * malloc of @p bytes (at least 1) for the harness's host copy of @p what ("the inputs"), or exits 2
 * with "program: --n VALUE: cannot allocate X of host memory for WHAT" when malloc fails: a size
 * that fits the machine (cl_require_host_memory()) may still not fit what is free.
 */
void *cl_host_alloc(const char *n_text, size_t bytes, const char *what);

/** cudaMalloc of @p bytes (at least 1), set to zero: a version's workspace. */
void *cl_device_alloc_zeroed(size_t bytes);

/**
 * The one line that says why nothing can run here, for the error @p err of cudaGetDeviceCount()
 * (cudaSuccess: it found 0 devices): no driver at all, a driver too old for this build, a driver
 * that sees no GPU.
 */
const char *cl_no_device_reason(cudaError_t err);

/**
 * Blocks of @p kernel that the whole current device holds at once, with @p threads threads and
 * @p shared_bytes of dynamic shared memory each: multiprocessors × resident blocks per
 * multiprocessor (at least one). The grid of a grid-stride kernel. The occupancy query is host
 * work, so the answer is cached per kernel, shape and device and later calls cost nothing.
 */
size_t cl_resident_blocks(const void *kernel, int threads, size_t shared_bytes);

/**
 * Lets @p kernel launch with @p bytes of dynamic shared memory: past 48 KB a kernel must ask
 * (cudaFuncAttributeMaxDynamicSharedMemorySize). The limit stays with the kernel, so the driver is
 * called only when @p bytes exceeds @p *allowed (what this kernel was allowed so far; start it at
 * 0), not on every timed call.
 */
void cl_allow_shared_bytes(const void *kernel, size_t bytes, size_t *allowed);

/** Formats a byte count for people: "8.00 GiB". */
void cl_format_bytes(size_t bytes, char *out, size_t out_len);

/** The UTC date "YYYY-MM-DD" of this run. */
void cl_today(char *out, size_t out_len);

#ifdef __cplusplus
}
#endif

#endif
