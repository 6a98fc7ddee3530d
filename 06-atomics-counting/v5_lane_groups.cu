/**
 * @file v5_lane_groups.cu
 * @brief v5: v4 with coalescing — four lanes per container, reading its floats side by side, and a
 * two-step shuffle to add their sums before the warp's ballot.
 *
 * A warp now covers 8 neighbouring containers, and their floats are contiguous in CSR, so each
 * load instruction reads a few whole 32-byte sectors instead of 32 scattered ones: the coalescing
 * v1–v4 never had. Each group of four lanes adds every fourth float of its container, the shuffles
 * bring the four sums to the group's first lane, and the ballot and the one atomic per warp are
 * v4's. The grid still has one group per container, so it holds four times v4's threads. Load
 * balance is still per container: a group of four lanes with a 65536-float container works alone
 * while its warp's 28 other lanes idle, and that is what the power law punishes.
 */
#include "cl_cuda_check.h"
#include "counting.h"

#define BLOCK_SIZE 256
#define GROUP      4 /* lanes per container */
#define GROUPS     (BLOCK_SIZE / GROUP)

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_lane_groups(const float *values, const size_t *offsets, size_t n, float limit,
                      unsigned long long *count)
{
    const unsigned lane = threadIdx.x % 32, member = threadIdx.x % GROUP;
    const size_t c = (size_t)blockIdx.x * GROUPS + threadIdx.x / GROUP;
    float sum = 0.0f;
    if (c < n) {
        const size_t end = offsets[c + 1];
        for (size_t j = offsets[c] + member; j < end; j += GROUP)
            sum += values[j];
    }
    for (int offset = GROUP / 2; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    const unsigned hits = __ballot_sync(0xffffffffu, c < n && member == 0 && sum > limit);
    if (lane == 0 && hits)
        atomicAdd(count, (unsigned long long)__popc(hits));
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)n, (void)total;
    return 0;
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    (void)total, (void)workspace;
    CL_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    const size_t blocks = (n + GROUPS - 1) / GROUPS;
    count_lane_groups<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(values, offsets, n, limit,
                                                                   count);
    CL_LAUNCH_CHECK("count_lane_groups");
}
