/**
 * @file v4_warp_ballot.cu
 * @brief v4: v3 with `__ballot_sync` + `__popc` — each warp counts its hits in one register and
 * its first lane adds them with one `atomicAdd`: no block barrier at all.
 *
 * v3 made every warp of a block wait at the barrier for the block's slowest container; a warp now
 * leaves as soon as its own 32 containers are summed. The price is 8 atomics per block instead of
 * one, all on one address, which its L2 slice serves one at a time (v5 measures the rate). What
 * remains is the same uncoalesced walk of one container per thread.
 */
#include "cl_cuda_check.h"
#include "counting.h"

#define SIDE 16 /* blocks of SIDE x SIDE threads, as the post's BLOCK_SIZE */

__global__ void __launch_bounds__(SIDE *SIDE)
    count_warp_ballot(const float *values, const size_t *offsets, size_t n, float limit,
                      unsigned long long *count)
{
    const unsigned thread = threadIdx.y * SIDE + threadIdx.x;
    const size_t c = (size_t)blockIdx.x * SIDE * SIDE + thread;
    float sum = 0.0f;
    if (c < n)
        for (size_t j = offsets[c]; j < offsets[c + 1]; j++)
            sum += values[j];
    const unsigned hits = __ballot_sync(0xffffffffu, c < n && sum > limit);
    if (thread % 32 == 0 && hits)
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
    const size_t blocks = (n + SIDE * SIDE - 1) / (SIDE * SIDE);
    count_warp_ballot<<<(unsigned)blocks, dim3(SIDE, SIDE), 0, stream>>>(values, offsets, n, limit,
                                                                         count);
    CL_LAUNCH_CHECK("count_warp_ballot");
}
