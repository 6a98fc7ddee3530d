/**
 * @file merge_every_bin.cu
 * @brief Exercise "Empty bins" of 04-histogram (part 1), a solution: v2 merging every bin of its
 * private histogram into the global one, the empty ones too.
 *
 * v2 starts one block per 256 values and merges after each: with more bins than values per block,
 * most of a block's bins are empty, and each merge is a global atomic that the L2 serialises per
 * address. Skipping the zeros is what keeps the merge proportional to the values, not the bins.
 */
#include "cl_cuda_check.h"
#include "histogram.h"

#define BLOCK_SIZE      256
#define SHARED_BINS_MAX 12288

__global__ void histogram_global(const void *in, size_t n, int is_u8, unsigned bins,
                                 unsigned long long *hist)
{
    const size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i >= n)
        return;
    const unsigned v = is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i];
    if (v < bins)
        atomicAdd(&hist[v], 1ull);
}

__global__ void histogram_private(const void *in, size_t n, int is_u8, unsigned bins,
                                  unsigned long long *hist)
{
    extern __shared__ unsigned block_hist[];
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE)
        block_hist[b] = 0;
    __syncthreads();
    const size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i < n) {
        const unsigned v = is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i];
        if (v < bins)
            atomicAdd(&block_hist[v], 1u);
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE) {
        const unsigned count = block_hist[b]; /* the one change: zeros are merged too */
        atomicAdd(&hist[b], (unsigned long long)count);
    }
}

size_t histogram_workspace_bytes(size_t n, unsigned bins, input_type type)
{
    (void)n, (void)bins, (void)type;
    return 0;
}

void histogram(const void *in, size_t n, input_type type, unsigned bins, unsigned long long *hist,
               void *workspace, cudaStream_t stream)
{
    (void)workspace;
    CL_CUDA_CHECK(cudaMemsetAsync(hist, 0, bins * sizeof(unsigned long long), stream));
    const size_t blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    if (bins > SHARED_BINS_MAX) {
        histogram_global<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, type == TYPE_U8, bins,
                                                                      hist);
        CL_LAUNCH_CHECK("histogram_global");
        return;
    }
    histogram_private<<<(unsigned)blocks, BLOCK_SIZE, bins * sizeof(unsigned), stream>>>(
        in, n, type == TYPE_U8, bins, hist);
    CL_LAUNCH_CHECK("histogram_private");
}
