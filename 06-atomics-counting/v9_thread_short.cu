/**
 * @file v9_thread_short.cu
 * @brief v9: v8 with v3's short path — one thread per container of up to 128 floats and a
 * `__syncthreads_count` per block — and the places of the long containers' pieces reserved with one
 * atomic per warp.
 *
 * On uniform lengths v3, one thread per container, beat v6's lane groups (the barrier seems to keep
 * a block's reads of neighbouring containers together in L1), and it does here too for the short
 * containers of the power law. With one thread per container, up to 32 lanes of a warp can meet a
 * long container at once, so their pieces' places are reserved together: a scan of their piece
 * counts across the warp, and one `atomicAdd` on the list's counter by its last lane.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"

#define BLOCK_SIZE 256
#define SHORT_MAX  128 /* longer containers are cut into pieces */
#include "pieces.cuh"

/* Reserves places in the list for this lane's `pieces` (0 for a short container): one atomic per
   warp, each lane's share found by a scan. All 32 lanes call it. */
static __device__ __forceinline__ unsigned long long reserve_pieces(piece_list *list,
                                                                    unsigned long long pieces)
{
    const unsigned lane = threadIdx.x % 32;
    unsigned long long inclusive = pieces;
    for (int offset = 1; offset < 32; offset *= 2) {
        const unsigned long long up = __shfl_up_sync(FULL_MASK, inclusive, offset);
        if (lane >= offset)
            inclusive += up;
    }
    unsigned long long base = 0;
    if (lane == 31 && inclusive)
        base = atomicAdd(&list->pieces, inclusive);
    return __shfl_sync(FULL_MASK, base, 31) + inclusive - pieces;
}

/* Lists the pieces of this lane's container of `length` floats (0: a short one, nothing to list),
   their places reserved with one atomic per warp. All 32 lanes call it. */
static __device__ __forceinline__ void list_pieces(piece_list *list, size_t *piece_container,
                                                   size_t *piece_first, size_t c, size_t length)
{
    const size_t pieces = (length + PIECE - 1) / PIECE;
    if (!__any_sync(FULL_MASK, pieces != 0))
        return;
    const unsigned long long first = reserve_pieces(list, pieces);
    for (size_t k = 0; k < pieces; k++)
        piece_container[first + k] = c, piece_first[first + k] = first;
}

/* The end of the short kernel: this thread's container of `length` floats listed if it is
   longer than `short_max`, the block's short containers over the limit counted by
   __syncthreads_count, one atomic per block. All threads of the block call it. */
static __device__ void finish_short(piece_list *list, size_t *piece_container, size_t *piece_first,
                                    size_t c, size_t n, size_t length, size_t short_max, float sum,
                                    float limit, unsigned long long *count)
{
    const int is_long = length > short_max;
    list_pieces(list, piece_container, piece_first, c, is_long ? length : 0);
    const int block_count = __syncthreads_count(c < n && !is_long && sum > limit);
    if (threadIdx.x == 0 && block_count)
        atomicAdd(count, (unsigned long long)block_count);
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_short(const float *values, const size_t *offsets, size_t n, float limit,
                unsigned long long *count, piece_list *list, size_t *piece_container,
                size_t *piece_first)
{
    const size_t c = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t begin = 0, end = 0;
    if (c < n)
        begin = offsets[c], end = offsets[c + 1];
    const int is_long = end - begin > SHORT_MAX;
    float sum = 0.0f;
    if (!is_long)
        for (size_t j = begin; j < end; j++)
            sum += values[j];
    finish_short(list, piece_container, piece_first, c, n, end - begin, SHORT_MAX, sum, limit,
                 count);
}

/* The second kernel, v8's unchanged: a warp per listed piece, a container of several finished in
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
    const size_t grid = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    count_short<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(values, offsets, n, limit, count, w.list,
                                                           w.piece_container, w.piece_first);
    CL_LAUNCH_CHECK("count_short");
    launch_pieces(values, offsets, limit, count, &w, stream);
}
