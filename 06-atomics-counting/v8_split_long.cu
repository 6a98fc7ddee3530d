/**
 * @file v8_split_long.cu
 * @brief v8: a new path — v6 with every container longer than 128 floats cut into pieces of 512
 * floats, which a second kernel gives to a warp each; v6's lane groups keep the short ones.
 *
 * Most containers are short, and v6 counts short ones at close to the bandwidth; only the few
 * long ones unbalance its warps (balancing every float instead costs on every float: the merge
 * path, v7, measured it). So the first kernel is v6 for containers of at most 128 floats;
 * a group that meets a longer one lists its pieces instead (one `atomicAdd` on a global counter
 * reserves their places), and the second kernel's warps each sum one piece with 16 loads in flight
 * per lane. A container cut into several pieces is finished through a slot (slots.cuh): each warp
 * adds its piece to the container's slot and draws a ticket, the last one compares. The second
 * kernel's last block empties the list.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"

#define BLOCK_SIZE 256
#define SHORT_MAX  128 /* longer containers are cut into pieces */
#include "pieces.cuh"

#define GROUP  4 /* lanes per short container */
#define GROUPS (BLOCK_SIZE / GROUP)

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_short(const float *values, const size_t *offsets, size_t n, float limit,
                unsigned long long *count, piece_list *list, size_t *piece_container,
                size_t *piece_first)
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
        size_t begin = 0, end = 0;
        if (c < n)
            begin = offsets[c], end = offsets[c + 1];
        const int is_long = end - begin > SHORT_MAX;
        float sum = 0.0f;
        if (!is_long)
            for (size_t j = begin + member; j < end; j += GROUP)
                sum += values[j];
        /* a long container: its pieces are listed for the second kernel */
        const size_t pieces = (end - begin + PIECE - 1) / PIECE;
        unsigned long long first = 0;
        if (is_long && member == 0)
            first = atomicAdd(&list->pieces, (unsigned long long)pieces);
        first = __shfl_sync(FULL_MASK, first, lane & ~(GROUP - 1));
        if (is_long)
            for (size_t k = member; k < pieces; k += GROUP)
                piece_container[first + k] = c, piece_first[first + k] = first;
        for (int offset = GROUP / 2; offset > 0; offset /= 2)
            sum += __shfl_xor_sync(FULL_MASK, sum, offset);
        warp_hits +=
            __popc(__ballot_sync(FULL_MASK, c < n && !is_long && member == 0 && sum > limit));
    }
    if (lane == 0 && warp_hits)
        atomicAdd(&block_count, warp_hits);
    __syncthreads();
    if (threadIdx.x == 0 && block_count)
        atomicAdd(count, block_count);
}

/* The second kernel: a warp per listed piece, a container of several finished in
   its slot; the last block to finish empties the list for the next call. */
__global__ void __launch_bounds__(BLOCK_SIZE)
    count_pieces(const float *values, const size_t *offsets, float limit, unsigned long long *count,
                 piece_list *list, const size_t *piece_container, const size_t *piece_first,
                 float *slot_sums, unsigned *slot_tickets)
{
    __shared__ unsigned long long block_count;
    __shared__ bool is_last_block;
    if (threadIdx.x == 0)
        block_count = 0;
    __syncthreads();
    const unsigned lane = threadIdx.x % 32;
    const size_t pieces = list->pieces;
    const size_t warps = (size_t)gridDim.x * (BLOCK_SIZE / 32);
    int over = 0;
    for (size_t t = ((size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x) / 32; t < pieces; t += warps) {
        const size_t c = piece_container[t], first = piece_first[t];
        const size_t begin = offsets[c], end = offsets[c + 1];
        const size_t from = begin + (t - first) * PIECE;
        const size_t to = from + PIECE < end ? from + PIECE : end;
        float part[PIECE / 32];
#pragma unroll
        for (int i = 0; i < PIECE / 32; i++) { /* 16 loads in flight per lane */
            const size_t j = from + i * 32 + lane;
            part[i] = j < to ? values[j] : 0.0f;
        }
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < PIECE / 32; i++)
            sum += part[i];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_xor_sync(FULL_MASK, sum, offset);
        const unsigned container_pieces = (unsigned)((end - begin + PIECE - 1) / PIECE);
        if (lane == 0)
            over += container_pieces == 1 ? sum > limit
                                          : finish_in_slot(slot_sums, slot_tickets, first,
                                                           container_pieces, sum, limit);
    }
    for (int offset = 16; offset > 0; offset /= 2)
        over += __shfl_xor_sync(FULL_MASK, over, offset);
    if (lane == 0 && over)
        atomicAdd(&block_count, (unsigned long long)over);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (block_count)
            atomicAdd(count, block_count);
        __threadfence();
        is_last_block = atomicAdd(&list->blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last_block && threadIdx.x == 0) /* every block has read the list: empty it */
        list->pieces = 0, list->blocks_done = 0;
}

/* The second kernel: as many blocks as the GPU holds, over every piece the first one listed. */
static void launch_pieces(const float *values, const size_t *offsets, float limit,
                          unsigned long long *count, const piece_workspace *w, cudaStream_t stream)
{
    const size_t grid = cl_resident_blocks((const void *)count_pieces, BLOCK_SIZE, 0);
    count_pieces<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(values, offsets, limit, count, w->list,
                                                            w->piece_container, w->piece_first,
                                                            w->slot_sums, w->slot_tickets);
    CL_LAUNCH_CHECK("count_pieces");
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)n;
    return piece_workspace_bytes(total, SHORT_MAX);
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    const piece_workspace w = piece_workspace_at(workspace, total, SHORT_MAX);
    const size_t wanted = (n + GROUPS - 1) / GROUPS;
    const size_t resident = cl_resident_blocks((const void *)count_short, BLOCK_SIZE, 0);
    const size_t grid = wanted < resident ? wanted : resident;
    count_short<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(values, offsets, n, limit, count, w.list,
                                                           w.piece_container, w.piece_first);
    CL_LAUNCH_CHECK("count_short");
    launch_pieces(values, offsets, limit, count, &w, stream);
}
