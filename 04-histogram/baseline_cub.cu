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
 * <!-- measured:begin -->
 * Measured on NVIDIA H100 80GB HBM3, 2026-11-22 (generated from docs/results/04-histogram.csv):
 * - n=2^28 bins=256 type=u32 dist=uniform:
 *   0.58395 ms, 459.69 Gelem/s = 61.3% of read bandwidth; 73.29x v1, 1.000x cub
 * - n=2^28 bins=256 type=u32 dist=one:
 *   0.51629 ms, 519.93 Gelem/s = 69.2% of read bandwidth; 381.54x v1, 1.000x cub
 * - n=2^28 bins=256 type=u32 dist=zipf:
 *   0.59163 ms, 453.72 Gelem/s = 60.4% of read bandwidth; 148.58x v1, 1.000x cub
 * - n=2^28 bins=4096 type=u32 dist=uniform:
 *   3.20627 ms, 83.72 Gelem/s = 11.2% of read bandwidth; 1.24x v1, 1.000x cub
 * - n=2^28 bins=4096 type=u32 dist=one:
 *   0.81221 ms, 330.50 Gelem/s = 44.1% of read bandwidth; 244.43x v1, 1.000x cub
 * - n=2^28 bins=4096 type=u32 dist=zipf:
 *   3.27939 ms, 81.86 Gelem/s = 10.9% of read bandwidth; 20.00x v1, 1.000x cub
 * - n=2^30 bins=256 type=u8 dist=uniform:
 *   0.50168 ms, 2140.29 Gelem/s = 71.2% of read bandwidth; 340.68x v1, 1.000x cub
 * - n=2^30 bins=256 type=u8 dist=one:
 *   0.39738 ms, 2702.08 Gelem/s = 90.2% of read bandwidth; 1977.41x v1, 1.000x cub
 * - n=2^30 bins=256 type=u8 dist=zipf:
 *   0.41698 ms, 2575.07 Gelem/s = 85.8% of read bandwidth; 840.73x v1, 1.000x cub
 * <!-- measured:end -->
 */
#include "cl_cuda_check.h"
#include "histogram.h"

#include <cub/device/device_histogram.cuh>

#include <stdint.h>

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

size_t histogram_workspace_bytes(size_t n, unsigned bins, input_type type)
{
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
