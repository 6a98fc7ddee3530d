/**
 * @file piece_scan.cuh
 * @brief v9's warp-scan reservation, reused unchanged from v11 on: a warp's lanes list the pieces
 * of their long containers with one atomic per warp, and a block counts its short containers with
 * one `__syncthreads_count`. v9 and v10 hold these functions in their own files.
 */
#ifndef PIECE_SCAN_CUH
#define PIECE_SCAN_CUH

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

#endif
