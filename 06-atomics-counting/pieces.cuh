/**
 * @file pieces.cuh
 * @brief The second kernel of v7 to v13: the long containers, listed by the first kernel as pieces
 * of PIECE floats, each summed by one warp; a container of several pieces is finished in its slot
 * (slots.cuh) by the warp that draws the last ticket.
 *
 * v7 introduces it and the page shows it there; v8 to v13 change only the first kernel, the one
 * for short containers. A version defines BLOCK_SIZE (its blocks, the pieces kernel's too) and
 * SHORT_MAX (the longest container its first kernel sums) before including this file. The list,
 * the pieces and the slots live in the workspace, which the kernels leave zeroed.
 */
#ifndef PIECES_CUH
#define PIECES_CUH

#include "cl_cuda_check.h"
#include "cl_device.h"
#include "slots.cuh"

#define PIECE     512 /* floats per piece: one warp, 16 loads per lane */
#define FULL_MASK 0xffffffffu

/* The second kernel's work list, in the workspace (zeroed once; the kernels leave it zeroed). */
typedef struct {
    unsigned long long pieces; /* pieces listed so far */
    unsigned blocks_done;      /* the second kernel's blocks that have finished */
} piece_list;

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

/* The most pieces a problem can list: every container longer than SHORT_MAX, cut every PIECE. */
static size_t max_pieces(size_t total)
{
    return total / (SHORT_MAX + 1) + total / PIECE + 1;
}

/* Where the list lives in the workspace: its counters, then per piece its container and its
   container's first piece, then (indexed by that first piece) the slot of a container cut into
   several. */
typedef struct {
    piece_list *list;
    size_t *piece_container, *piece_first;
    float *slot_sums;
    unsigned *slot_tickets;
} piece_workspace;

static size_t piece_workspace_bytes(size_t total)
{
    return 256 + max_pieces(total) * (2 * sizeof(size_t) + sizeof(float) + sizeof(unsigned));
}

static piece_workspace piece_workspace_at(void *workspace, size_t total)
{
    const size_t most = max_pieces(total);
    piece_workspace w;
    w.list = (piece_list *)workspace;
    w.piece_container = (size_t *)((char *)workspace + 256);
    w.piece_first = w.piece_container + most;
    w.slot_sums = (float *)(w.piece_first + most);
    w.slot_tickets = (unsigned *)(w.slot_sums + most);
    return w;
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

#endif
