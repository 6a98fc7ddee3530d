/**
 * @file v3_coarsened.cu
 * @brief v3: v2 with coarsening — as many blocks as the GPU holds at once, each walking the input
 * with a grid-stride loop, so zeroing and merging the private histogram is paid once per block.
 *
 * v2 merges up to B bins for every 256 values. Here the grid is multiprocessors × resident blocks
 * (asked from the occupancy calculator for this block's shared memory), and each block counts
 * ~n / grid values before its single merge: for n = 2^28 and 256 bins, the global atomics fall
 * from ~n to a few hundred thousand. A block's 32-bit counters cannot overflow: no block sees
 * 2^32 values below n = 2^32 × grid.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
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

__global__ void histogram_coarsened(const void *in, size_t n, int is_u8, unsigned bins,
                                    unsigned long long *hist)
{
    extern __shared__ unsigned block_hist[];
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE)
        block_hist[b] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    for (size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += stride) {
        const unsigned v = is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i];
        if (v < bins)
            atomicAdd(&block_hist[v], 1u);
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE) {
        const unsigned count = block_hist[b];
        if (count)
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
    const size_t resident =
        cl_resident_blocks((const void *)histogram_coarsened, BLOCK_SIZE, bins * sizeof(unsigned));
    const size_t grid = blocks < resident ? blocks : resident;
    histogram_coarsened<<<(unsigned)grid, BLOCK_SIZE, bins * sizeof(unsigned), stream>>>(
        in, n, type == TYPE_U8, bins, hist);
    CL_LAUNCH_CHECK("histogram_coarsened");
}
