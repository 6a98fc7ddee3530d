/**
 * @file baseline_cub.cu
 * @brief The library baseline, as a CUB user writes it: `cub::DeviceSegmentedReduce::Sum` of every
 * container into a workspace of n sums, then `cub::DeviceReduce::TransformReduce` counting the sums
 * over the limit. Both launches are timed.
 *
 * DeviceSegmentedReduce gives one thread block to each segment, whatever its length: a block of
 * CUB's tuning reduces 16 floats, then exits, and the next block starts. The n sums (4 bytes per
 * container) are written and read back once more by the second call. CUB has no fused "segmented
 * reduce then count" call, and no segmented reduction that balances load across segments of skewed
 * lengths; its DeviceSegmentedReduce is the library's closest fit, so it is the baseline.
 */
#include "cl_cuda_check.h"
#include "counting.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#define SUMS_ALIGN 256 /* CUB's temporary storage starts on this boundary after the sums */

/* 1 for a container sum over the limit: the transform of the counting reduction. */
struct over_limit {
    float limit;
    __host__ __device__ unsigned long long operator()(float sum) const
    {
        return sum > limit ? 1ull : 0ull;
    }
};

static size_t sums_bytes(size_t n)
{
    return (n * sizeof(float) + SUMS_ALIGN - 1) / SUMS_ALIGN * SUMS_ALIGN;
}

/* The larger of the two calls' temporary storage; asked once per size, since the query is host
   work that should stay out of the timed launches. */
static size_t cub_temp_bytes(size_t n)
{
    static size_t cached_n = 0, cached_bytes = 0;
    if (n != cached_n) {
        size_t segmented = 0, counting = 0;
        const float *values = NULL;
        const size_t *offsets = NULL;
        float *sums = NULL;
        unsigned long long *count = NULL;
        CL_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(NULL, segmented, values, sums, (int64_t)n,
                                                      offsets, offsets + 1));
        CL_CUDA_CHECK(cub::DeviceReduce::TransformReduce(
            NULL, counting, sums, count, n, cuda::std::plus<>{}, over_limit{0.0f}, 0ull));
        cached_bytes = segmented > counting ? segmented : counting;
        cached_n = n;
    }
    return cached_bytes;
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)total;
    return sums_bytes(n) + cub_temp_bytes(n);
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    (void)total;
    float *sums = (float *)workspace;
    void *temp = (char *)workspace + sums_bytes(n);
    size_t temp_bytes = cub_temp_bytes(n);
    CL_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, values, sums, (int64_t)n,
                                                  offsets, offsets + 1, stream));
    temp_bytes = cub_temp_bytes(n);
    CL_CUDA_CHECK(cub::DeviceReduce::TransformReduce(
        temp, temp_bytes, sums, count, n, cuda::std::plus<>{}, over_limit{limit}, 0ull, stream));
}
