/**
 * @file v11_packed_counters.cu
 * @brief v11: v10 with 16-bit counters, two to a 32-bit word, where 32-bit ones would need a
 * cluster: 65536 bins fit one block's 128 KB, and every count stays in the block's own shared
 * memory. A counter that reaches 2^15 moves 2^15 to the global histogram.
 *
 * v10's remote counts cost far more than local ones. Halving the counter halves the bytes per bin,
 * and a histogram of up to twice v10's one-block limit fits one block again. Two bins share a word
 * (bin v is half v % 2 of word v / 2), so one bin's increment is 1 or 2^16, and a counter must
 * never pass 65535: its carry would land in its neighbour. The rule that prevents it: the atomic
 * returns the old word, and the one thread whose add takes a counter from 2^15 − 1 to 2^15
 * subtracts 2^15 from it and adds 2^15 to the bin in global memory. The block counts in rounds
 * separated by barriers, each thread at most 32 values per round, so a counter rises by at most
 * 1024 × 32 = 2^15 in a round; it starts each round below 2^15 (the subtraction of the round it
 * crossed happened before the barrier), so it never passes 2^15 − 1 + 2^15 = 65535, on any data.
 * Up to v10's one-block limit the 32-bit counters stay: halves cost a second instruction per value
 * and the round barriers, for nothing where the 32-bit ones fit.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "histogram.h"

#define BLOCK_SIZE    1024 /* at 128 KB a block, one per SM: as many warps as it allows */
#define SLICE_SHIFT   15   /* a cluster's slices hold 2^15 bins each, 128 KB of 32-bit counters */
#define CLUSTER_MAX   8    /* the largest portable cluster */
#define ONE_SLICE     24   /* one block holds every bin: v >> 24 is 0 for any v < 2^24 */
#define ROUND_VECTORS 8    /* 16-byte loads per thread per round: 32 u32 values */
#define HANDOFF       0x8000u /* 2^15: where a 16-bit counter hands its count to global memory */
#define NO_VALUE      0xffffffffu /* never < bins (bins <= 2^24) */

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

/* Adds one to bin v's 16-bit counter (v >= bins: not counted); the thread whose add takes it to
   HANDOFF moves HANDOFF to the global histogram. */
static __device__ void count_packed(unsigned *pairs, unsigned v, unsigned bins,
                                    unsigned long long *hist)
{
    if (v >= bins)
        return;
    const unsigned shift = 16 * (v & 1);
    const unsigned old = (atomicAdd(&pairs[v / 2], 1u << shift) >> shift) & 0xffffu;
    if (old == HANDOFF - 1) {
        atomicSub(&pairs[v / 2], HANDOFF << shift);
        atomicAdd(&hist[v], (unsigned long long)HANDOFF);
    }
}

__global__ void __launch_bounds__(BLOCK_SIZE, 1)
    histogram_packed(const unsigned *in, size_t n, unsigned bins, unsigned long long *hist)
{
    extern __shared__ unsigned pairs[];
    const unsigned words = (bins + 1) / 2;
    for (unsigned w = threadIdx.x; w < words; w += BLOCK_SIZE)
        pairs[w] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    const size_t vectors = n / 4;
    const uint4 *vec = (const uint4 *)in;
    /* the rounds are the block's, so that every thread reaches every barrier: a thread past the
       end counts NO_VALUE */
    for (size_t round = (size_t)blockIdx.x * BLOCK_SIZE; round < vectors;
         round += ROUND_VECTORS * stride) {
        uint4 w[ROUND_VECTORS];
#pragma unroll
        for (int k = 0; k < ROUND_VECTORS; k++) {
            const size_t i = round + threadIdx.x + k * stride;
            w[k] =
                i < vectors ? __ldg(vec + i) : make_uint4(NO_VALUE, NO_VALUE, NO_VALUE, NO_VALUE);
        }
#pragma unroll
        for (int k = 0; k < ROUND_VECTORS; k++) {
            count_packed(pairs, w[k].x, bins, hist);
            count_packed(pairs, w[k].y, bins, hist);
            count_packed(pairs, w[k].z, bins, hist);
            count_packed(pairs, w[k].w, bins, hist);
        }
        __syncthreads();
    }
    /* the n % 4 values after the last vector: at most one per thread, one more round */
    const size_t i = vectors * 4 + (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    count_packed(pairs, i < n ? in[i] : NO_VALUE, bins, hist);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE) {
        const unsigned count = (pairs[b / 2] >> (16 * (b & 1))) & 0xffffu;
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
    /* The device's limits are read once, not on every (timed) call. */
    static int shared_optin = -1, has_clusters;
    if (shared_optin < 0) {
        int device;
        CL_CUDA_CHECK(cudaGetDevice(&device));
        CL_CUDA_CHECK(cudaDeviceGetAttribute(&has_clusters, cudaDevAttrClusterLaunch, device));
        CL_CUDA_CHECK(
            cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    }
    const int is_u8 = type == TYPE_U8;
    if (!is_u8 && (size_t)bins * sizeof(unsigned) > (size_t)shared_optin &&
        (size_t)(bins + 1) / 2 * sizeof(unsigned) <= (size_t)shared_optin) {
        const size_t shared_bytes = (size_t)(bins + 1) / 2 * sizeof(unsigned);
        static size_t packed_limit; /* as allowed so far */
        cl_allow_shared_bytes((const void *)histogram_packed, shared_bytes, &packed_limit);
        const size_t resident =
            cl_resident_blocks((const void *)histogram_packed, BLOCK_SIZE, shared_bytes);
        const size_t wanted = (n / 4 + BLOCK_SIZE) / BLOCK_SIZE;
        histogram_packed<<<(unsigned)(wanted < resident ? wanted : resident), BLOCK_SIZE,
                           shared_bytes, stream>>>((const unsigned *)in, n, bins, hist);
        CL_LAUNCH_CHECK("histogram_packed");
        return;
    }
    unsigned cluster = 1, slice_shift = ONE_SLICE, slice_bins = bins;
    if ((size_t)bins * sizeof(unsigned) > (size_t)shared_optin) {
        cluster = (bins + (1u << SLICE_SHIFT) - 1) >> SLICE_SHIFT;
        slice_shift = SLICE_SHIFT;
        slice_bins = 1u << SLICE_SHIFT;
    }
    if (cluster > CLUSTER_MAX || (cluster > 1 && !has_clusters)) {
        const size_t blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE; /* v1's kernel */
        histogram_global<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, is_u8, bins, hist);
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
    const size_t wanted = (n / (is_u8 ? 16 : 4) + BLOCK_SIZE) / BLOCK_SIZE;
    const size_t wanted_blocks = (wanted + cluster - 1) / cluster * cluster;
    config.gridDim = dim3((unsigned)(wanted_blocks < resident ? wanted_blocks : resident));
    CL_CUDA_CHECK(cudaLaunchKernelEx(&config, histogram_cluster, in, n, is_u8, bins, slice_shift,
                                     slice_bins, hist));
}
