/**
 * @file pieces.cuh
 * @brief The list of pieces that v7 to v13 hand from their first kernel to their second: long
 * containers cut into pieces of PIECE floats, each summed by one warp of the second kernel
 * (count_pieces, in each version file); a container of several pieces is finished in its slot
 * (slots.cuh) by the warp that draws the last ticket.
 *
 * A version defines SHORT_MAX (the longest container its first kernel sums) before including this
 * file, and may define its own piece_list (with PIECE_LIST) when its list carries more than the
 * two counters below (v14 keeps the count there too). The list, the pieces and the slots live in
 * the workspace, which the kernels leave zeroed.
 */
#ifndef PIECES_CUH
#define PIECES_CUH

#include "slots.cuh"

#define PIECE     512 /* floats per piece: one warp, 16 loads per lane */
#define FULL_MASK 0xffffffffu

#ifndef PIECE_LIST
/* The second kernel's work list, in the workspace (zeroed once; the kernels leave it zeroed). */
typedef struct {
    unsigned long long pieces; /* pieces listed so far */
    unsigned blocks_done;      /* the second kernel's blocks that have finished */
} piece_list;
#endif

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
   long, the block's short containers over the limit counted by __syncthreads_count, one atomic
   per block. All threads of the block call it. */
static __device__ void finish_short(piece_list *list, size_t *piece_container, size_t *piece_first,
                                    size_t c, size_t n, size_t length, float sum, float limit,
                                    unsigned long long *count)
{
    const int is_long = length > SHORT_MAX;
    list_pieces(list, piece_container, piece_first, c, is_long ? length : 0);
    const int block_count = __syncthreads_count(c < n && !is_long && sum > limit);
    if (threadIdx.x == 0 && block_count)
        atomicAdd(count, (unsigned long long)block_count);
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

#endif
