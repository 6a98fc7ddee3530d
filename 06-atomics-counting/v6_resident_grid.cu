/**
 * @file v6_resident_grid.cu
 * @brief v6: v5 with a resident grid — as many blocks as the GPU holds at once, each striding over
 * the containers, and one atomic per block for its whole run.
 *
 * v5 launches a block per 64 containers, and each of its warps adds its hits to the one counter:
 * at 2^24 containers 2^21 atomics on one address, which its L2 slice serves one at a time. Here the
 * grid is what the SMs hold at once (asked from the occupancy calculator), each block strides over
 * the containers as 03 and 04 do, each warp keeps its ballot counts in a register for the whole
 * run, and the block adds them in shared memory before one global atomic at the end. The loop stays
 * warp-uniform: every lane steps while the warp's first container exists, because the shuffles need
 * all 32.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"

#define BLOCK_SIZE 256
#define GROUP      4 /* lanes per container */
#define GROUPS     (BLOCK_SIZE / GROUP)

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_lane_groups(const float *values, const size_t *offsets, size_t n, float limit,
                      unsigned long long *count)
{
    __shared__ unsigned long long block_count;
    if (threadIdx.x == 0)
        block_count = 0;
    __syncthreads();
    const unsigned lane = threadIdx.x % 32, member = threadIdx.x % GROUP;
    const size_t stride = (size_t)gridDim.x * GROUPS;
    unsigned long long warp_hits = 0;
    /* warp-uniform: every lane steps while the warp's first container exists (shuffles need all) */
    for (size_t c = (size_t)blockIdx.x * GROUPS + threadIdx.x / GROUP; c - lane / GROUP < n;
         c += stride) {
        float sum = 0.0f;
        if (c < n) {
            const size_t end = offsets[c + 1];
            for (size_t j = offsets[c] + member; j < end; j += GROUP)
                sum += values[j];
        }
        for (int offset = GROUP / 2; offset > 0; offset /= 2)
            sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        warp_hits += __popc(__ballot_sync(0xffffffffu, c < n && member == 0 && sum > limit));
    }
    if (lane == 0 && warp_hits)
        atomicAdd(&block_count, warp_hits);
    __syncthreads();
    if (threadIdx.x == 0 && block_count)
        atomicAdd(count, block_count);
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
    const size_t wanted = (n + GROUPS - 1) / GROUPS;
    const size_t resident = cl_resident_blocks((const void *)count_lane_groups, BLOCK_SIZE, 0);
    const size_t grid = wanted < resident ? wanted : resident;
    count_lane_groups<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(values, offsets, n, limit, count);
    CL_LAUNCH_CHECK("count_lane_groups");
}
