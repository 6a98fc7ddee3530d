/**
 * @file v6_merge_path.cu
 * @brief v6: load balance — every block takes the same number of items, floats and container ends
 * together (a merge path over the CSR), whatever the container boundaries; a segmented scan joins
 * the pieces of a container that several threads share, and a container that spans blocks is
 * finished by whichever block adds the last piece.
 *
 * Think of the input as one merged list: container c's floats, then its end, then container c+1's.
 * Tile t is items [4096 t, 4096 t + 4096) of that list. A warp finds where the tile starts among
 * the offsets with a 32-way search (32 probes per step, 5 steps for 2^24 containers), and the block
 * copies the tile's ends and floats into shared memory with coalesced loads. Each thread then walks
 * its 16 items: a float is added, an end finishes a container. The piece of the container a thread
 * started inside comes from the threads before it: a scan over the threads keyed by container (the
 * keys only grow, so equal keys are neighbours). A container longer than a tile is split over
 * several blocks; each adds its piece to a float slot with `atomicAdd` and draws a ticket, and the
 * block with the last ticket compares the total, then resets the slot for the next call. A
 * 65536-float container is now 16 blocks' work, not one group's.
 */
#include "cl_cuda_check.h"
#include "merge_path.cuh"
#include "slots.cuh"

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_merge_path(const float *values, const size_t *offsets, size_t n, size_t total,
                     float limit, unsigned long long *count, float *slot_sums,
                     unsigned *slot_tickets)
{
    __shared__ tile_item tile[TILE];
    __shared__ size_t tile_ends[2];
    __shared__ int thread_keys[BLOCK_SIZE + 1], warp_last_key[WARPS], warp_first_key[WARPS];
    __shared__ float warp_carry[WARPS];
    __shared__ unsigned long long block_count;
    const size_t items = n + total, d0 = (size_t)blockIdx.x * TILE;
    const size_t d1 = d0 + TILE < items ? d0 + TILE : items;
    if (threadIdx.x < 64) {
        const size_t found = ends_before(offsets, n, total, threadIdx.x < 32 ? d0 : d1);
        if (threadIdx.x % 32 == 0)
            tile_ends[threadIdx.x / 32] = found;
    }
    if (threadIdx.x == 0)
        block_count = 0;
    __syncthreads();
    const size_t c0 = tile_ends[0], c1 = tile_ends[1], f0 = d0 - c0;
    const int nc = (int)(c1 - c0), nf = (int)(d1 - c1 - f0);
    load_tile(tile, values, offsets, c0, f0, nc, nf);
    __syncthreads();
    /* this thread's items: from its start on the merge path to the next thread's */
    const int dt = min((int)threadIdx.x * ITEMS, nc + nf);
    const int key = ends_before_item(tile, nc, nf, dt);
    thread_keys[threadIdx.x] = key;
    if (threadIdx.x == 0)
        thread_keys[BLOCK_SIZE] = nc;
    __syncthreads();
    const int key_end = thread_keys[threadIdx.x + 1];
    walk_result w =
        walk_items(tile, nc, key, dt - key, key_end, min(dt + ITEMS, nc + nf) - key_end, limit);
    float previous;
    int previous_key;
    const float carry = scan_pieces(w.sum, w.key, warp_last_key, warp_first_key, warp_carry,
                                    &previous, &previous_key);
    if (w.head >= 0) { /* the first container this thread finished: add the threads' before */
        const float piece = w.head_sum + (previous_key == w.head ? previous : 0.0f);
        /* only the tile's first container (head 0) can have begun in an earlier tile */
        const size_t first_tile = w.head == 0 ? (c0 + offsets[c0]) / TILE : blockIdx.x;
        if (first_tile != blockIdx.x)
            w.over += finish_in_slot(slot_sums, slot_tickets, first_tile,
                                     (unsigned)(blockIdx.x - first_tile + 1), piece, limit);
        else
            w.over += piece > limit;
    }
    if (threadIdx.x == BLOCK_SIZE - 1 && c1 < n && d1 - c1 > offsets[c1]) {
        /* container c1 goes on past this tile: this block's piece is the scan's last carry */
        const size_t first_tile = (c1 + offsets[c1]) / TILE;
        const size_t last_tile = (c1 + offsets[c1 + 1]) / TILE;
        w.over += finish_in_slot(slot_sums, slot_tickets, first_tile,
                                 (unsigned)(last_tile - first_tile + 1), carry, limit);
    }
    add_block_count(w.over, &block_count, count);
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    return tiles_for(n, total) * (sizeof(float) + sizeof(unsigned));
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    const size_t tiles = tiles_for(n, total);
    float *slot_sums = (float *)workspace;
    unsigned *slot_tickets = (unsigned *)(slot_sums + tiles);
    count_merge_path<<<(unsigned)tiles, BLOCK_SIZE, 0, stream>>>(values, offsets, n, total, limit,
                                                                 count, slot_sums, slot_tickets);
    CL_LAUNCH_CHECK("count_merge_path");
}
