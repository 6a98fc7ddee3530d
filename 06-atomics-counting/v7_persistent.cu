/**
 * @file v7_persistent.cu
 * @brief v7: v6's tiles, but as many blocks as the GPU holds, each walking a run of consecutive
 * tiles; a small kernel finds every tile's start first.
 *
 * v6 launched one block per 4096-item tile, and each block began with two 32-way searches of the
 * offsets (five dependent trips to memory) and ended, almost always, with a ticket round trip for
 * the container that crosses its end. Here a first kernel runs every tile-boundary search at once,
 * and each resident block takes tiles t0 … t1 in order: the next tile's start is loaded while the
 * current tile is counted, and the container open at a tile's end is carried to the next tile in
 * registers. Only a container that crosses a block's first or last tile still needs a slot, so
 * there are two slot round trips per block instead of one or two per tile.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "merge_path.cuh"
#include "slots.cuh"

/* Where every tile starts: one warp per tile boundary, all at once, before the counting kernel. */
__global__ void partition_tiles(const size_t *offsets, size_t n, size_t total, size_t tiles,
                                size_t *tile_starts)
{
    const size_t boundary = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (boundary > tiles)
        return;
    const size_t d = boundary * TILE < n + total ? boundary * TILE : n + total;
    const size_t found = ends_before(offsets, n, total, d);
    if (threadIdx.x % 32 == 0)
        tile_starts[boundary] = found;
}

#define NO_CONTAINER ((size_t)-1)

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_persistent(const float *values, const size_t *offsets, size_t n, size_t total,
                     float limit, unsigned long long *count, float *slot_sums,
                     unsigned *slot_tickets, const size_t *tile_starts, size_t tiles,
                     size_t tiles_per_block)
{
    __shared__ tile_item tile[TILE];
    __shared__ int thread_keys[BLOCK_SIZE + 1], warp_last_key[WARPS], warp_first_key[WARPS];
    __shared__ float warp_carry[WARPS];
    __shared__ size_t open_key;
    __shared__ float open_sum;
    __shared__ unsigned long long block_count;
    const size_t items = n + total, first = (size_t)blockIdx.x * tiles_per_block;
    const size_t last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
    size_t c0 = tile_starts[first], c1 = tile_starts[first + 1];
    size_t run_key = NO_CONTAINER; /* the container open at the last tile's end, and its sum */
    float run_sum = 0.0f;
    int over = 0;
    if (threadIdx.x == 0)
        block_count = 0;
    for (size_t t = first; t < last; t++) {
        const size_t c_after = t + 2 <= tiles ? tile_starts[t + 2] : 0; /* used next tile */
        const size_t d0 = t * TILE, d1 = d0 + TILE < items ? d0 + TILE : items, f0 = d0 - c0;
        const int nc = (int)(c1 - c0), nf = (int)(d1 - c1 - f0);
        load_tile(tile, values, offsets, c0, f0, nc, nf);
        __syncthreads();
        const int dt = min((int)threadIdx.x * ITEMS, nc + nf);
        const int key = ends_before_item(tile, nc, nf, dt);
        thread_keys[threadIdx.x] = key;
        if (threadIdx.x == 0)
            thread_keys[BLOCK_SIZE] = nc;
        __syncthreads();
        const int key_end = thread_keys[threadIdx.x + 1];
        const walk_result w =
            walk_items(tile, nc, key, dt - key, key_end, min(dt + ITEMS, nc + nf) - key_end, limit);
        over += w.over;
        float previous;
        int previous_key;
        const float carry = scan_pieces(w.sum, w.key, warp_last_key, warp_first_key, warp_carry,
                                        &previous, &previous_key);
        if (w.head >= 0) { /* the first container this thread finished: add what came before */
            float piece = w.head_sum + (previous_key == w.head ? previous : 0.0f);
            if (w.head == 0 && c0 == run_key)
                piece += run_sum; /* the earlier tiles of this block */
            /* only the tile's first container can have begun before this block's tiles */
            const size_t first_tile = w.head == 0 ? (c0 + offsets[c0]) / TILE : t;
            if (first_tile < first) {
                const size_t first_block = first_tile / tiles_per_block;
                over += finish_in_slot(slot_sums, slot_tickets, first_block,
                                       (unsigned)(blockIdx.x - first_block + 1), piece, limit);
            } else {
                over += piece > limit;
            }
        }
        if (threadIdx.x == BLOCK_SIZE - 1) { /* the container still open goes to the next tile */
            const int open = c1 < n && d1 - c1 > offsets[c1];
            open_key = open ? c1 : NO_CONTAINER;
            open_sum = carry + (open && c1 == run_key ? run_sum : 0.0f);
        }
        __syncthreads();
        run_key = open_key, run_sum = open_sum;
        c0 = c1, c1 = c_after;
    }
    if (threadIdx.x == 0 && run_key != NO_CONTAINER) {
        /* it goes on past this block's tiles: add this block's piece to its slot */
        const size_t first_block = (run_key + offsets[run_key]) / TILE / tiles_per_block;
        const size_t last_block = (run_key + offsets[run_key + 1]) / TILE / tiles_per_block;
        over += finish_in_slot(slot_sums, slot_tickets, first_block,
                               (unsigned)(last_block - first_block + 1), run_sum, limit);
    }
    add_block_count(over, &block_count, count);
}

/* As many blocks as the GPU holds, each with the same number of consecutive tiles. */
static size_t tiles_per_block(size_t tiles)
{
    const size_t resident = cl_resident_blocks((const void *)count_persistent, BLOCK_SIZE, 0);
    const size_t blocks = tiles < resident ? tiles : resident;
    return (tiles + blocks - 1) / blocks;
}

/* workspace: a slot (sum and ticket) per block, then the tile starts, 8-byte aligned */
size_t count_workspace_bytes(size_t n, size_t total)
{
    const size_t tiles = tiles_for(n, total),
                 blocks = (tiles + tiles_per_block(tiles) - 1) / tiles_per_block(tiles);
    return (blocks * (sizeof(float) + sizeof(unsigned)) + 7) / 8 * 8 + (tiles + 1) * sizeof(size_t);
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    const size_t tiles = tiles_for(n, total), per_block = tiles_per_block(tiles);
    const size_t blocks = (tiles + per_block - 1) / per_block;
    float *slot_sums = (float *)workspace;
    unsigned *slot_tickets = (unsigned *)(slot_sums + blocks);
    size_t *tile_starts =
        (size_t *)((char *)workspace + (blocks * (sizeof(float) + sizeof(unsigned)) + 7) / 8 * 8);
    const size_t warps_per_block = BLOCK_SIZE / 32;
    partition_tiles<<<(unsigned)((tiles + 1 + warps_per_block - 1) / warps_per_block), BLOCK_SIZE,
                      0, stream>>>(offsets, n, total, tiles, tile_starts);
    CL_LAUNCH_CHECK("partition_tiles");
    count_persistent<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(values, offsets, n, total, limit,
                                                                  count, slot_sums, slot_tickets,
                                                                  tile_starts, tiles, per_block);
    CL_LAUNCH_CHECK("count_persistent");
}
