/**
 * @file four_claims.cu
 * @brief Exercise "A bigger sample" of 04-histogram (part 2), a solution: v14 with the first four
 * vectors per thread claiming cache slots instead of one.
 *
 * A larger sample sees more of the frequent bins before the slots are fixed, at the cost of four
 * loads and claims per thread before the first count. Which bins end up cached decides how many
 * values count in shared memory and how many go to global atomics.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "histogram.h"

#define BLOCK_SIZE    1024        /* at 128 KB a block, one per SM: as many warps as it allows */
#define CACHE_SLOTS   16384       /* slots of (bin, 32-bit count): 128 KB, fewer on a smaller GPU */
#define FREE_SLOT     0xffffffffu /* the tag of a slot no bin holds (bins <= 2^24) */
#define ROUND_VECTORS 4           /* 16-byte loads per thread per round: 16 u32 values */
#define HANDOFF       0x8000u /* 2^15: where a 16-bit counter hands its count to global memory */
#define NO_VALUE      0xffffffffu /* never < bins (bins <= 2^24) */
#define FULL_WARP     0xffffffffu

/* One 32-bit histogram per block, in as much shared memory as the block may opt in to (v4's
   kernel with a larger histogram). */
__global__ void __launch_bounds__(BLOCK_SIZE, 1)
    histogram_block(const void *in, size_t n, int is_u8, unsigned bins, unsigned long long *hist)
{
    extern __shared__ unsigned block_hist[];
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE)
        block_hist[b] = 0;
    __syncthreads();
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
                for (int byte = 0; byte < 4; byte++) {
                    const unsigned v = (words[k] >> (8 * byte)) & 0xffu;
                    if (v < bins)
                        atomicAdd(&block_hist[v], 1u);
                }
            } else if (words[k] < bins) {
                atomicAdd(&block_hist[words[k]], 1u);
            }
        }
    }
    for (size_t i = vectors * per_vector + first; i < n; i += stride) {
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

/* Lets bin v take its slot if the slot is free (the first value to ask gets it). */
static __device__ void claim_slot(unsigned *tags, unsigned slots, unsigned v, unsigned bins)
{
    if (v < bins)
        atomicCAS(&tags[v & (slots - 1)], FREE_SLOT, v);
}

/* Counts v in its slot if the slot holds v's bin, in global memory otherwise. */
static __device__ void count_cached(const unsigned *tags, unsigned *counts, unsigned slots,
                                    unsigned v, unsigned bins, unsigned long long *hist)
{
    if (v >= bins)
        return;
    const unsigned slot = v & (slots - 1);
    if (tags[slot] == v)
        atomicAdd(&counts[slot], 1u);
    else
        atomicAdd(&hist[v], 1ull);
}

__global__ void __launch_bounds__(BLOCK_SIZE, 1)
    histogram_cached(const unsigned *in, size_t n, unsigned bins, unsigned slots,
                     unsigned long long *hist)
{
    extern __shared__ unsigned cache[];
    unsigned *tags = cache, *counts = cache + slots;
    for (unsigned s = threadIdx.x; s < slots; s += BLOCK_SIZE)
        tags[s] = FREE_SLOT, counts[s] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    const size_t first = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const size_t vectors = n / 4;
    const uint4 *vec = (const uint4 *)in;
    /* the sample: the block's first vector per thread chooses the bins the slots hold; after the
       barrier the tags only are read */
    for (size_t j = first; j < vectors && j < first + 4 * stride; j += stride) {
        /* the one change: the first four vectors per thread claim slots, not one */
        const uint4 w = __ldg(vec + j);
        claim_slot(tags, slots, w.x, bins), claim_slot(tags, slots, w.y, bins);
        claim_slot(tags, slots, w.z, bins), claim_slot(tags, slots, w.w, bins);
    }
    __syncthreads();
    size_t i = first;
    for (; i + stride < vectors; i += 2 * stride) {
        const uint4 w = __ldg(vec + i), u = __ldg(vec + i + stride);
        count_cached(tags, counts, slots, w.x, bins, hist);
        count_cached(tags, counts, slots, w.y, bins, hist);
        count_cached(tags, counts, slots, w.z, bins, hist);
        count_cached(tags, counts, slots, w.w, bins, hist);
        count_cached(tags, counts, slots, u.x, bins, hist);
        count_cached(tags, counts, slots, u.y, bins, hist);
        count_cached(tags, counts, slots, u.z, bins, hist);
        count_cached(tags, counts, slots, u.w, bins, hist);
    }
    for (; i < vectors; i += stride) {
        const uint4 w = __ldg(vec + i);
        count_cached(tags, counts, slots, w.x, bins, hist);
        count_cached(tags, counts, slots, w.y, bins, hist);
        count_cached(tags, counts, slots, w.z, bins, hist);
        count_cached(tags, counts, slots, w.w, bins, hist);
    }
    for (size_t i = vectors * 4 + first; i < n; i += stride)
        count_cached(tags, counts, slots, in[i], bins, hist);
    __syncthreads();
    /* a slot counts at most this block's share of n, far below 2^32 (see v6) */
    for (unsigned s = threadIdx.x; s < slots; s += BLOCK_SIZE)
        if (tags[s] != FREE_SLOT && counts[s] != 0)
            atomicAdd(&hist[tags[s]], (unsigned long long)counts[s]);
}

/* Adds @p count to bin v's 16-bit counter; the thread whose add takes it to HANDOFF or past moves
   HANDOFF to the global histogram (count <= 32, so the counter stays below 2^16: see the top). */
static __device__ void add_packed(unsigned *pairs, unsigned v, unsigned count,
                                  unsigned long long *hist)
{
    const unsigned shift = 16 * (v & 1);
    const unsigned old = (atomicAdd(&pairs[v / 2], count << shift) >> shift) & 0xffffu;
    if (old < HANDOFF && old + count >= HANDOFF) {
        atomicSub(&pairs[v / 2], HANDOFF << shift);
        atomicAdd(&hist[v], (unsigned long long)HANDOFF);
    }
}

/* Counts one value per lane; all 32 lanes call it together, a lane without a value with NO_VALUE.
   A warp whose lanes all hold one bin adds 32 once. */
static __device__ void count_packed(unsigned *pairs, unsigned v, unsigned bins,
                                    unsigned long long *hist)
{
    const unsigned lead = __shfl_sync(FULL_WARP, v, 0);
    if (__all_sync(FULL_WARP, v == lead)) {
        if (threadIdx.x % 32 == 0 && v < bins)
            add_packed(pairs, v, 32, hist);
    } else if (v < bins) {
        add_packed(pairs, v, 1, hist);
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
       end counts NO_VALUE; next[] holds the round after the one being counted */
    uint4 next[ROUND_VECTORS];
#pragma unroll
    for (int k = 0; k < ROUND_VECTORS; k++) {
        const size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x + k * stride;
        next[k] = i < vectors ? __ldg(vec + i) : make_uint4(NO_VALUE, NO_VALUE, NO_VALUE, NO_VALUE);
    }
    for (size_t round = (size_t)blockIdx.x * BLOCK_SIZE; round < vectors;
         round += ROUND_VECTORS * stride) {
        uint4 w[ROUND_VECTORS];
#pragma unroll
        for (int k = 0; k < ROUND_VECTORS; k++) {
            w[k] = next[k];
            const size_t i = round + ROUND_VECTORS * stride + threadIdx.x + k * stride;
            next[k] =
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
    /* The device's limit is read once, not on every (timed) call. */
    static int shared_optin = -1;
    if (shared_optin < 0) {
        int device;
        CL_CUDA_CHECK(cudaGetDevice(&device));
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
    if (!is_u8 && (size_t)bins * sizeof(unsigned) > (size_t)shared_optin) {
        unsigned slots = CACHE_SLOTS; /* a power of two, so that a slot is v & (slots - 1) */
        while (2 * slots * sizeof(unsigned) > (size_t)shared_optin)
            slots /= 2;
        const size_t shared_bytes = 2 * slots * sizeof(unsigned);
        static size_t cached_limit; /* as allowed so far */
        cl_allow_shared_bytes((const void *)histogram_cached, shared_bytes, &cached_limit);
        const size_t resident =
            cl_resident_blocks((const void *)histogram_cached, BLOCK_SIZE, shared_bytes);
        const size_t wanted = (n / 4 + BLOCK_SIZE) / BLOCK_SIZE;
        histogram_cached<<<(unsigned)(wanted < resident ? wanted : resident), BLOCK_SIZE,
                           shared_bytes, stream>>>((const unsigned *)in, n, bins, slots, hist);
        CL_LAUNCH_CHECK("histogram_cached");
        return;
    }
    const size_t shared_bytes = bins * sizeof(unsigned);
    static size_t block_limit; /* as allowed so far */
    cl_allow_shared_bytes((const void *)histogram_block, shared_bytes, &block_limit);
    const size_t resident =
        cl_resident_blocks((const void *)histogram_block, BLOCK_SIZE, shared_bytes);
    const size_t wanted = (n / (is_u8 ? 16 : 4) + BLOCK_SIZE) / BLOCK_SIZE;
    histogram_block<<<(unsigned)(wanted < resident ? wanted : resident), BLOCK_SIZE, shared_bytes,
                      stream>>>(in, n, is_u8, bins, hist);
    CL_LAUNCH_CHECK("histogram_block");
}
