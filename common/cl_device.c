/**
 * @file cl_device.c
 * @brief Device selection (exit 77 without a usable device) and the memory-fit check (exit 2).
 */
#define _DEFAULT_SOURCE /* madvise() and MADV_HUGEPAGE */
#include "cl_device.h"

#include "cl_cuda_check.h"
#include "cl_options.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

void cl_cuda_check_(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorString(err),
            cudaGetErrorName(err));
    exit(1);
}

static void version_text(int version, char *out, size_t len)
{
    snprintf(out, len, "%d.%d", version / 1000, (version % 1000) / 10);
}

void cl_device_open(int index, cl_device_info *info)
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        /* All of these mean "cannot run here", which CTest reports as skipped (exit code 77); the
           line says which, in words that fit the machine. */
        fprintf(stderr, "%s\n", cl_no_device_reason(err));
        exit(77);
    }
    if (index >= count) {
        char text[16], why[64];
        snprintf(text, sizeof text, "%d", index);
        snprintf(why, sizeof why, "no such device (%d found, indices 0 to %d)", count, count - 1);
        cl_bad_input("device", text, why);
    }
    CL_CUDA_CHECK(cudaSetDevice(index));
    struct cudaDeviceProp prop;
    CL_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    info->l2_bytes = prop.l2CacheSize;
    CL_CUDA_CHECK(cudaDeviceGetAttribute(&info->sm_clock_khz, cudaDevAttrClockRate, index));
    CL_CUDA_CHECK(cudaDriverGetVersion(&info->driver_version));
    CL_CUDA_CHECK(cudaRuntimeGetVersion(&info->runtime_version));
    version_text(info->driver_version, info->driver_text, sizeof info->driver_text);
    version_text(info->runtime_version, info->runtime_text, sizeof info->runtime_text);
    /* The first runtime call that needs a context creates it here; a driver too old for this
       build fails now, not in the middle of a run. */
    const cudaError_t ctx = cudaMemGetInfo(&info->free_bytes, &info->total_bytes);
    if (ctx == cudaErrorInsufficientDriver || ctx == cudaErrorCompatNotSupportedOnDevice ||
        ctx == cudaErrorSystemDriverMismatch || ctx == cudaErrorNoDevice) {
        fprintf(stderr, "no usable CUDA device: %s\n", cudaGetErrorString(ctx));
        exit(77);
    }
    CL_CUDA_CHECK(ctx);
}

const char *cl_no_device_reason(cudaError_t err)
{
    static char text[256];
    /* The runtime reports a missing driver library as an "insufficient" driver: tell them apart. */
    void *driver = err == cudaErrorInsufficientDriver ? dlopen("libcuda.so.1", RTLD_LAZY) : NULL;
    if (driver != NULL)
        dlclose(driver);
    if (err == cudaSuccess)
        snprintf(text, sizeof text, "no CUDA device found: the NVIDIA driver sees no GPU");
    else if (err == cudaErrorInsufficientDriver && driver == NULL)
        snprintf(text, sizeof text,
                 "no CUDA device found: this machine has no NVIDIA driver (libcuda.so.1), so "
                 "nothing can run here");
    else if (err == cudaErrorInsufficientDriver) {
        int driver_version = 0, runtime_version = 0;
        cudaDriverGetVersion(&driver_version);
        cudaRuntimeGetVersion(&runtime_version);
        snprintf(text, sizeof text,
                 "no usable CUDA device: the NVIDIA driver supports CUDA %d.%d, this build needs "
                 "%d.%d: update the driver",
                 driver_version / 1000, (driver_version % 1000) / 10, runtime_version / 1000,
                 (runtime_version % 1000) / 10);
    } else if (err == cudaErrorNoDevice)
        snprintf(text, sizeof text,
                 "no CUDA device found: the NVIDIA driver sees no GPU (is CUDA_VISIBLE_DEVICES "
                 "set?)");
    else
        snprintf(text, sizeof text, "no CUDA device found: %s", cudaGetErrorString(err));
    return text;
}

void cl_allow_shared_bytes(const void *kernel, size_t bytes, size_t *allowed)
{
    if (bytes <= *allowed)
        return;
    CL_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    *allowed = bytes;
}

size_t cl_resident_blocks(const void *kernel, int threads, size_t shared_bytes)
{
    /* A few entries are enough: a program launches at most a handful of grid-stride kernels. */
    static struct {
        const void *kernel;
        int threads, device;
        size_t shared_bytes, blocks;
    } cache[16];
    static int cached = 0;
    int device, sms, per_sm;
    CL_CUDA_CHECK(cudaGetDevice(&device));
    for (int i = 0; i < cached; i++)
        if (cache[i].kernel == kernel && cache[i].threads == threads &&
            cache[i].shared_bytes == shared_bytes && cache[i].device == device)
            return cache[i].blocks;
    CL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CL_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
    const size_t blocks = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1);
    if (cached < (int)(sizeof cache / sizeof cache[0])) {
        cache[cached].kernel = kernel;
        cache[cached].threads = threads;
        cache[cached].device = device;
        cache[cached].shared_bytes = shared_bytes;
        cache[cached].blocks = blocks;
        cached++;
    }
    return blocks;
}

void cl_format_bytes(size_t bytes, char *out, size_t out_len)
{
    const double b = (double)bytes, gib = 1024.0 * 1024 * 1024;
    if (b >= 1024.0 * gib)
        snprintf(out, out_len, "%.2f TiB", b / (1024.0 * gib));
    else if (b >= gib)
        snprintf(out, out_len, "%.2f GiB", b / gib);
    else if (b >= 1024.0 * 1024)
        snprintf(out, out_len, "%.2f MiB", b / (1024.0 * 1024));
    else
        snprintf(out, out_len, "%zu bytes", bytes);
}

int cl_fits_device_memory(size_t bytes, size_t free_bytes, const char *device_name, char *why,
                          size_t why_len)
{
    /* Keep a margin for the L2-flush buffer, the ceiling probes and the runtime itself. */
    const size_t margin = (size_t)256 << 20;
    if (bytes <= free_bytes && free_bytes - bytes >= margin)
        return 1;
    char need[32], have[32];
    cl_format_bytes(bytes, need, sizeof need);
    cl_format_bytes(free_bytes, have, sizeof have);
    snprintf(why, why_len,
             "needs %s of device memory (plus 256 MiB of working room), %s free on %s", need, have,
             device_name);
    return 0;
}

void cl_require_device_memory(const cl_device_info *info, const char *n_text, size_t bytes)
{
    char why[384];
    if (!cl_fits_device_memory(bytes, info->free_bytes, info->name, why, sizeof why))
        cl_bad_input("n", n_text, why);
}

void cl_require_compute_capability(int major, int minor, int exact, const char *feature)
{
    /* the device's capability, read once: a version calls this on every (timed) call */
    static int have_major = -1, have_minor;
    if (have_major < 0) {
        int device;
        CL_CUDA_CHECK(cudaGetDevice(&device));
        CL_CUDA_CHECK(
            cudaDeviceGetAttribute(&have_minor, cudaDevAttrComputeCapabilityMinor, device));
        CL_CUDA_CHECK(
            cudaDeviceGetAttribute(&have_major, cudaDevAttrComputeCapabilityMajor, device));
    }
    const int cc = have_major * 10 + have_minor, needed = major * 10 + minor;
    if (exact ? cc != needed : cc < needed) {
        fprintf(stderr,
                "%s needs a GPU of compute capability %d.%d%s; this one is %d.%d: skipped\n",
                feature, major, minor, exact ? "" : " or later", have_major, have_minor);
        exit(77);
    }
}

void cl_require_host_memory(const char *n_text, size_t bytes)
{
    const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_bytes <= 0)
        return; /* unknown: the allocations will tell */
    const double installed = (double)pages * (double)page_bytes;
    if ((double)bytes <= installed)
        return;
    char need[32], have[32], why[128];
    cl_format_bytes(bytes, need, sizeof need);
    cl_format_bytes((size_t)installed, have, sizeof have);
    snprintf(why, sizeof why, "needs %s of host memory, this machine has %s", need, have);
    cl_bad_input("n", n_text, why);
}

/* A host buffer of 64 MiB or more asks for 2 MiB pages (where the kernel has them): filling it then
   faults once per 2 MiB instead of once per 4 KiB page, and freeing it unmaps 512 times fewer. */
#define CL_HUGE_PAGE ((size_t)2 << 20)

void *cl_host_alloc(const char *n_text, size_t bytes, const char *what)
{
    void *p = NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= 32 * CL_HUGE_PAGE) {
        if (posix_memalign(&p, CL_HUGE_PAGE, bytes) != 0)
            p = NULL;
        else
            (void)madvise(p, bytes / CL_HUGE_PAGE * CL_HUGE_PAGE, MADV_HUGEPAGE); /* a hint */
    } else
#endif
        p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        char need[32], why[160];
        cl_format_bytes(bytes, need, sizeof need);
        snprintf(why, sizeof why, "cannot allocate %s of host memory for %s", need, what);
        cl_bad_input("n", n_text, why);
    }
    return p;
}

size_t cl_buffer_bytes(const char *n_text, unsigned long long count, size_t elem_bytes)
{
    size_t bytes;
    if (count > SIZE_MAX || __builtin_mul_overflow((size_t)count, elem_bytes, &bytes))
        cl_bad_input("n", n_text, "too large, the buffers would need more than 2^64 bytes");
    return bytes;
}

void *cl_device_alloc_zeroed(size_t bytes)
{
    void *p = NULL;
    CL_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    CL_CUDA_CHECK(cudaMemset(p, 0, bytes ? bytes : 1));
    return p;
}

void cl_today(char *out, size_t out_len)
{
    const time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(out, out_len, "%Y-%m-%d", &utc);
}
