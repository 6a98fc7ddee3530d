/**
 * @file baseline_cub_scan.cu
 * @brief The library's other formulation: a prefix sum of every float (`cub::DeviceScan`, in
 * double), then a difference at each container's two offsets, counted over the limit by
 * `cub::DeviceReduce::TransformReduce`. Both launches are timed.
 *
 * A CUB user who knows that `DeviceSegmentedReduce` gives one block to each container writes the
 * count as a scan instead: with P[0] = 0 and P[i + 1] = P[i] + values[i], container c sums to
 * P[offsets[c + 1]] − P[offsets[c]]. The scan balances itself (every float costs the same, however
 * the lengths are skewed), and it moves 4 bytes in and 8 out per float, then 16 per container. Its
 * rival, `reduce_by_key`, needs a key per float that CSR does not store: written by one more pass
 * and read again, more bytes than the scan's, so the scan is the formulation measured here.
 *
 * The prefix is kept in double. In float it would carry the rounding of every float before the
 * container (|P| grows with the whole input) into each difference. The lesson's real inputs are
 * multiples of 2^−24 in [−1, 2), so every double prefix below 2^29 in magnitude is exact and each
 * difference is the container's exact sum, inside the reference's band; integer inputs stay exact.
 * Past that (about 6 · 10^8 real floats, beyond the sweep and the tests) the prefixes round, by
 * errors that differ along CUB's look-back chains, and a container of one or two floats within
 * about 2^−22 of the limit, where the reference's band is zero or nearly so, could be miscounted.
 */
#include "cl_cuda_check.h"
#include "counting.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#define PREFIX_ALIGN 256 /* CUB's temporary storage starts on this boundary after the prefix */

/* A float widened to double: the scan's input. */
struct widen {
    __host__ __device__ double operator()(float v) const
    {
        return (double)v;
    }
};

/* 1 for container c whose prefix difference is over the limit: the count's transform. */
struct over_limit {
    const double *prefix; /* P[0 .. total], P[0] = 0 */
    const size_t *offsets;
    float limit;
    __host__ __device__ unsigned long long operator()(size_t c) const
    {
        return prefix[offsets[c + 1]] - prefix[offsets[c]] > (double)limit ? 1ull : 0ull;
    }
};

typedef thrust::transform_iterator<widen, const float *> widened_values;
typedef thrust::transform_iterator<over_limit, thrust::counting_iterator<size_t>> container_flags;

static size_t prefix_bytes(size_t total)
{
    return ((total + 1) * sizeof(double) + PREFIX_ALIGN - 1) / PREFIX_ALIGN * PREFIX_ALIGN;
}

/* The larger of the two calls' temporary storage, asked once per size (host work kept out of the
   timed launches). */
static size_t cub_temp_bytes(size_t n, size_t total)
{
    static size_t cached_n = 0, cached_total = 0, cached_bytes = 0;
    if (n != cached_n || total != cached_total || cached_bytes == 0) {
        size_t scan = 0, counting = 0;
        const widened_values in(NULL, widen{});
        const container_flags flags(thrust::counting_iterator<size_t>(0),
                                    over_limit{NULL, NULL, 0.0f});
        unsigned long long *count = NULL;
        CL_CUDA_CHECK(cub::DeviceScan::InclusiveSum(NULL, scan, in, (double *)NULL, total));
        CL_CUDA_CHECK(cub::DeviceReduce::Sum(NULL, counting, flags, count, n));
        cached_bytes = scan > counting ? scan : counting;
        cached_n = n, cached_total = total;
    }
    return cached_bytes;
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    return prefix_bytes(total) + cub_temp_bytes(n, total);
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    double *prefix = (double *)workspace;
    void *temp = (char *)workspace + prefix_bytes(total);
    size_t temp_bytes = cub_temp_bytes(n, total);
    /* P[0] = 0 stays from the harness's zeroed workspace, and no call writes it */
    if (total > 0)
        CL_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
            temp, temp_bytes, widened_values(values, widen{}), prefix + 1, total, stream));
    temp_bytes = cub_temp_bytes(n, total);
    const container_flags flags(thrust::counting_iterator<size_t>(0),
                                over_limit{prefix, offsets, limit});
    CL_CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, flags, count, n, stream));
}
