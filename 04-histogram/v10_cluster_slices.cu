/**
 * @file v10_cluster_slices.cu
 * @brief v10: a new path — histograms too large for one block's shared memory. The bins are cut
 * into slices over the blocks of a thread-block cluster, each slice in its block's shared memory,
 * and every value is counted in the slice that owns it through distributed shared memory.
 *
 * v2–v9 fall back to v1's global atomics past 12288 bins (48 KB of 32-bit counters). This path
 * starts again from v4's single histogram per block, which needs the least shared memory per bin,
 * and gives it all the shared memory a block may opt in to (227 KB on an H100: 58112 bins). Past
 * that, a cluster of C blocks (compute capability 9.0) holds C slices of 2^15 bins (128 KB each):
 * any block of the cluster may address the others' shared memory (`__cluster_map_shared_rank`
 * maps a pointer into another block's window), so the cluster holds one histogram of up to
 * 8 × 2^15 = 2^18 bins, and each block counts its values into whichever slice owns them. A count
 * for another block's slice travels over the network between the SMs of a GPC: the cost this step
 * measures. Two cluster barriers fence the slices: nobody counts before every slice is zeroed,
 * and nobody reads a slice before every count into it has landed.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "histogram.h"

#define BLOCK_SIZE  1024 /* at 128 KB a block, one per SM: as many warps as it allows */
#define SLICE_SHIFT 15   /* a cluster's slices hold 2^15 bins each, 128 KB of 32-bit counters */
#define CLUSTER_MAX 8    /* the largest portable cluster */
#define ONE_SLICE   24   /* one block holds every bin: v >> 24 is 0 for any v < 2^24 */

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

/* Waits for every thread of the cluster (of the block, below compute capability 9.0, where the
   host never asks for a cluster); its shared-memory writes are then visible to all of them. */
static __device__ void cluster_sync(void)
{
#if __CUDA_ARCH__ >= 900
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
#else
    __syncthreads();
#endif
}

static __device__ unsigned cluster_rank(void)
{
#if __CUDA_ARCH__ >= 900
    return __clusterRelativeBlockRank();
#else
    return 0;
#endif
}

/* Adds one to bin v, which lives in the slice of block v >> slice_shift of the cluster: a shared
   atomic when that is this block, a distributed one (through the other block's window) otherwise.
 */
static __device__ void count_value(unsigned *slice, unsigned v, unsigned bins, unsigned slice_shift,
                                   unsigned rank)
{
    if (v >= bins)
        return;
    const unsigned owner = v >> slice_shift;
    const unsigned offset = v & ((1u << slice_shift) - 1);
    if (owner == rank) {
        atomicAdd(&slice[offset], 1u);
    } else {
#if __CUDA_ARCH__ >= 900
        atomicAdd((unsigned *)__cluster_map_shared_rank(slice, owner) + offset, 1u);
#endif
    }
}

__global__ void __launch_bounds__(BLOCK_SIZE, 1)
    histogram_cluster(const void *in, size_t n, int is_u8, unsigned bins, unsigned slice_shift,
                      unsigned slice_bins, unsigned long long *hist)
{
    extern __shared__ unsigned slice[];
    const unsigned rank = cluster_rank();
    for (unsigned b = threadIdx.x; b < slice_bins; b += BLOCK_SIZE)
        slice[b] = 0;
    cluster_sync();
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    const size_t first = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const size_t per_vector = is_u8 ? 16 : 4;
    const size_t vectors = n / per_vector;
    for (size_t i = first; i < vectors; i += stride) {
        const uint4 w = ((const uint4 *)in)[i];
        const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (is_u8) {
#pragma unroll
                for (int byte = 0; byte < 4; byte++)
                    count_value(slice, (words[k] >> (8 * byte)) & 0xffu, bins, slice_shift, rank);
            } else {
                count_value(slice, words[k], bins, slice_shift, rank);
            }
        }
    }
    for (size_t i = vectors * per_vector + first; i < n; i += stride)
        count_value(slice, is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i], bins,
                    slice_shift, rank);
    cluster_sync();
    const unsigned slice_first = rank << slice_shift;
    for (unsigned b = threadIdx.x; b < slice_bins && slice_first + b < bins; b += BLOCK_SIZE) {
        const unsigned count = slice[b];
        if (count)
            atomicAdd(&hist[slice_first + b], (unsigned long long)count);
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
    /* The device's limits are read once, not on every (timed) call. */
    static int shared_optin = -1, has_clusters;
    if (shared_optin < 0) {
        int device;
        CL_CUDA_CHECK(cudaGetDevice(&device));
        CL_CUDA_CHECK(cudaDeviceGetAttribute(&has_clusters, cudaDevAttrClusterLaunch, device));
        CL_CUDA_CHECK(
            cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    }
    unsigned cluster = 1, slice_shift = ONE_SLICE, slice_bins = bins;
    if ((size_t)bins * sizeof(unsigned) > (size_t)shared_optin) {
        cluster = (bins + (1u << SLICE_SHIFT) - 1) >> SLICE_SHIFT;
        slice_shift = SLICE_SHIFT;
        slice_bins = 1u << SLICE_SHIFT;
    }
    if (cluster > CLUSTER_MAX || (cluster > 1 && !has_clusters)) {
        const size_t blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE; /* v1's kernel */
        histogram_global<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, type == TYPE_U8, bins,
                                                                      hist);
        CL_LAUNCH_CHECK("histogram_global");
        return;
    }
    const size_t shared_bytes = slice_bins * sizeof(unsigned);
    static size_t cluster_limit; /* as allowed so far */
    cl_allow_shared_bytes((const void *)histogram_cluster, shared_bytes, &cluster_limit);
    cudaLaunchAttribute cluster_shape = {};
    cluster_shape.id = cudaLaunchAttributeClusterDimension;
    cluster_shape.val.clusterDim.x = cluster, cluster_shape.val.clusterDim.y = 1;
    cluster_shape.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(cluster), config.blockDim = dim3(BLOCK_SIZE);
    config.dynamicSmemBytes = shared_bytes, config.stream = stream;
    config.attrs = &cluster_shape, config.numAttrs = cluster > 1;
    /* as many clusters as the GPU holds at once, no more than the input's vectors need */
    size_t resident;
    if (cluster > 1) {
        static int clusters[CLUSTER_MAX + 1]; /* once per size: slices are always 128 KB */
        if (clusters[cluster] == 0)
            CL_CUDA_CHECK(
                cudaOccupancyMaxActiveClusters(&clusters[cluster], histogram_cluster, &config));
        resident = (size_t)cluster * (size_t)(clusters[cluster] > 0 ? clusters[cluster] : 1);
    } else {
        resident = cl_resident_blocks((const void *)histogram_cluster, BLOCK_SIZE, shared_bytes);
    }
    const size_t wanted = (n / (type == TYPE_U8 ? 16 : 4) + BLOCK_SIZE) / BLOCK_SIZE;
    const size_t wanted_blocks = (wanted + cluster - 1) / cluster * cluster;
    config.gridDim = dim3((unsigned)(wanted_blocks < resident ? wanted_blocks : resident));
    CL_CUDA_CHECK(cudaLaunchKernelEx(&config, histogram_cluster, in, n, (int)(type == TYPE_U8),
                                     bins, slice_shift, slice_bins, hist));
}
