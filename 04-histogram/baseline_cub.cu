/**
 * @file baseline_cub.cu
 * @brief The library baseline: cub::DeviceHistogram::HistogramEven, B bins of width 1 over [0, B).
 *
 * CUB privatizes in shared memory and picks its tiling per architecture; values outside [0, B) are
 * not counted, as in every version here. Its counters have the type of the histogram it is given,
 * and its shared-memory atomics too, so it counts into 32-bit counters in the workspace (what a
 * CUB user would do) and a one-thread-per-bin kernel widens them into the harness's 64-bit
 * histogram afterwards; that second launch is timed with it. When n ≥ 2^32 one bin could pass
 * 2^32, so CUB then counts straight into the 64-bit histogram.
 *
 * CUB 3.0 gives every block a private copy of the histogram in its temporary storage and finds a
 * block's copy at `blockId * num_privatized_bins`, an int product (agent_histogram.cuh): past 2^31
 * counters it wraps negative and the kernel writes outside its allocation (2^24 bins on an H100:
 * 163 blocks for n = 1000003, 396 for 2^24 values). The size of its temporary storage tells how
 * many blocks it will run, so this baseline refuses exactly the shapes that overflow, with one line
 * and exit 2 (the runner shows n/a); see the page and experiments/cub_many_bins.cu, the reproducer
 * without our harness.
 */
#include "cl_cuda_check.h"
#include "cl_options.h"
#include "histogram.h"

#include <cub/device/device_histogram.cuh>

#include <stdint.h>
#include <stdio.h>

#define COUNTS_ALIGN 256 /* CUB's temporary storage starts on this boundary after the counters */

/* The four instantiations CUB needs: 8- or 32-bit samples, 32- or 64-bit counters. */
static cudaError_t cub_histogram(void *temp, size_t *bytes, const void *in, size_t n,
                                 input_type type, unsigned bins, void *hist, int wide_counters,
                                 cudaStream_t stream)
{
    const int levels = (int)bins + 1;
    const int64_t samples = (int64_t)n;
    const unsigned char *pixels = (const unsigned char *)in;
    const unsigned *values = (const unsigned *)in;
    unsigned long long *wide = (unsigned long long *)hist;
    unsigned *narrow = (unsigned *)hist;
    if (type == TYPE_U8 && wide_counters)
        return cub::DeviceHistogram::HistogramEven(temp, *bytes, pixels, wide, levels, 0, (int)bins,
                                                   samples, stream);
    if (type == TYPE_U8)
        return cub::DeviceHistogram::HistogramEven(temp, *bytes, pixels, narrow, levels, 0,
                                                   (int)bins, samples, stream);
    if (wide_counters)
        return cub::DeviceHistogram::HistogramEven(temp, *bytes, values, wide, levels, 0u, bins,
                                                   samples, stream);
    return cub::DeviceHistogram::HistogramEven(temp, *bytes, values, narrow, levels, 0u, bins,
                                               samples, stream);
}

static int narrow_counters(size_t n)
{
    return n < ((size_t)1 << 32);
}

static size_t counts_bytes(unsigned bins)
{
    return ((size_t)bins * sizeof(unsigned) + COUNTS_ALIGN - 1) / COUNTS_ALIGN * COUNTS_ALIGN;
}

/* CUB's own temporary storage for this problem; asked once per problem, since the query is host
   work that should stay out of the timed launches. */
static size_t cub_temp_bytes(size_t n, unsigned bins, input_type type)
{
    static size_t cached_n = 0, cached_bytes = 0;
    static unsigned cached_bins = 0;
    static input_type cached_type = TYPE_U32;
    if (n != cached_n || bins != cached_bins || type != cached_type) {
        cached_bytes = 0;
        CL_CUDA_CHECK(
            cub_histogram(NULL, &cached_bytes, NULL, n, type, bins, NULL, !narrow_counters(n), 0));
        cached_n = n, cached_bins = bins, cached_type = type;
    }
    return cached_bytes;
}

__global__ void widen_counts(const unsigned *counts, unsigned bins, unsigned long long *hist)
{
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < bins)
        hist[b] = counts[b];
}

/* Refuses the shapes where CUB's int block offset passes 2^31 (see the file comment). CUB's
   temporary storage is one private histogram per block of its grid, so its own size query says
   how many blocks it will run. */
static void refuse_overflowing_shapes(size_t n, unsigned bins, input_type type)
{
    const size_t counter_bytes = narrow_counters(n) ? sizeof(unsigned) : sizeof(unsigned long long);
    const size_t blocks = cub_temp_bytes(n, bins, type) / ((size_t)bins * counter_bytes);
    if ((size_t)bins * blocks < ((size_t)1 << 31))
        return;
    char value[16], why[256];
    snprintf(value, sizeof value, "%u", bins);
    snprintf(
        why, sizeof why,
        "CUB's DeviceHistogram offsets each block's private histogram by an int, and its %zu "
        "blocks x %u bins pass 2^31 (it would write outside its memory): at most %zu bins here",
        blocks, bins, (((size_t)1 << 31) - 1) / (blocks ? blocks : 1));
    cl_bad_input("bins", value, why);
}

size_t histogram_workspace_bytes(size_t n, unsigned bins, input_type type)
{
    refuse_overflowing_shapes(n, bins, type);
    return counts_bytes(bins) + cub_temp_bytes(n, bins, type);
}

void histogram(const void *in, size_t n, input_type type, unsigned bins, unsigned long long *hist,
               void *workspace, cudaStream_t stream)
{
    size_t temp_bytes = cub_temp_bytes(n, bins, type);
    void *temp = (char *)workspace + counts_bytes(bins);
    if (!narrow_counters(n)) {
        CL_CUDA_CHECK(cub_histogram(temp, &temp_bytes, in, n, type, bins, hist, 1, stream));
        return;
    }
    unsigned *counts = (unsigned *)workspace;
    CL_CUDA_CHECK(cub_histogram(temp, &temp_bytes, in, n, type, bins, counts, 0, stream));
    widen_counts<<<(bins + 255) / 256, 256, 0, stream>>>(counts, bins, hist);
    CL_LAUNCH_CHECK("widen_counts");
}
