/**
 * @file v7_merge_path.cu
 * @brief v7: v6 with load balance for every float: every block takes the same number of items,
 * floats and container ends together (a merge path over the CSR), whatever the container
 * boundaries.
 *
 * A segmented scan joins the pieces of a container that several threads share, and a container
 * that spans blocks is finished by whichever block adds the last piece. This is the textbook answer
 * to v6's imbalance, and it treats every float alike; the page measures what that costs, and the
 * second path (v8 to v14) treats the short containers and the long ones apart instead.
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
#include "counting.h"
#include "slots.cuh"

#define BLOCK_SIZE 256
#define ITEMS      16 /* merged items (floats and ends) per thread */
#define TILE       (BLOCK_SIZE * ITEMS)
#define WARPS      (BLOCK_SIZE / 32)
#define FULL_MASK  0xffffffffu

/* A tile in shared memory: its container ends (relative to its first float), then its floats. */
typedef union {
    int end;
    float value;
    unsigned word;
} tile_item;

/* How many container ends come among the first d merged items: the smallest i whose end
   offsets[i + 1] comes after float d - i - 1. The whole warp searches, 32 probes per step. */
static __device__ size_t ends_before(const size_t *offsets, size_t n, size_t total, size_t d)
{
    const unsigned lane = threadIdx.x % 32;
    size_t lo = d > total ? d - total : 0, hi = d < n ? d : n;
    while (lo < hi) {
        const size_t step = (hi - lo + 31) / 32, probe = lo + lane * step;
        const int consumed = probe < hi && offsets[probe + 1] <= d - probe - 1;
        const unsigned below = __popc(__ballot_sync(FULL_MASK, consumed)); /* a prefix of lanes */
        if (below == 0)
            return lo;
        lo = lo + (below - 1) * step + 1;
        hi = hi < lo - 1 + step ? hi : lo - 1 + step;
    }
    return lo;
}

/* Copies the tile's nc container ends (relative to its first float f0) and nf floats into shared
   memory. All 16 loads are issued before the first store: a loop that stores each value as it
   arrives waits for DRAM 16 times in a row. An end lies within the tile, so the low 32 bits of its
   64-bit offset, minus f0's, give it exactly. */
static __device__ void load_tile(tile_item *tile, const float *values, const size_t *offsets,
                                 size_t c0, size_t f0, int nc, int nf)
{
    const unsigned *end_words = (const unsigned *)(offsets + c0 + 1); /* little-endian: low first */
    unsigned words[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const int p = k * BLOCK_SIZE + threadIdx.x;
        words[k] = p < nc        ? end_words[2 * p] - (unsigned)f0
                   : p < nc + nf ? __float_as_uint(values[f0 + p - nc])
                                 : 0u;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const int p = k * BLOCK_SIZE + threadIdx.x;
        if (p < nc + nf)
            tile[p].word = words[k];
    }
}

/* The ends before item dt of the tile: this thread's start on the tile's merge path. */
static __device__ int ends_before_item(const tile_item *tile, int nc, int nf, int dt)
{
    int lo = max(0, dt - nf), hi = min(dt, nc);
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (tile[mid].end <= dt - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* What a thread's walk leaves: the first container it finished (head, -1 if none) with the sum of
   its floats seen here, the containers it finished whole that are over the limit, and the open
   container (key) with its piece (sum). */
typedef struct {
    int head, key, over;
    float head_sum, sum;
} walk_result;

static __device__ walk_result walk_items(const tile_item *tile, int nc, int key, int fi,
                                         int key_end, int fi_end, float limit)
{
    walk_result w = {-1, key, 0, 0.0f, 0.0f};
    for (; w.key < key_end; w.key++) { /* the containers that end in this thread's items */
        for (const int stop = tile[w.key].end; fi < stop; fi++)
            w.sum += tile[nc + fi].value;
        if (w.head < 0)
            w.head = w.key, w.head_sum = w.sum; /* may have begun before this thread */
        else
            w.over += w.sum > limit;
        w.sum = 0.0f;
    }
    for (; fi < fi_end; fi++) /* and the piece of the one still open */
        w.sum += tile[nc + fi].value;
    return w;
}

/* The block's inclusive scan of the open pieces, keyed by container (keys only grow, so a key's
   pieces are neighbours): returns this thread's total for its key, and in *previous the total of
   the thread before it, for *previous_key. Ends with the block synchronized. */
static __device__ float scan_pieces(float sum, int key, int *warp_last_key, int *warp_first_key,
                                    float *warp_carry, float *previous, int *previous_key)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float carry = sum;
    for (int offset = 1; offset < 32; offset *= 2) {
        const float up = __shfl_up_sync(FULL_MASK, carry, offset);
        const int up_key = __shfl_up_sync(FULL_MASK, key, offset);
        if (lane >= offset && up_key == key)
            carry += up;
    }
    const int first_key = __shfl_sync(FULL_MASK, key, 0);
    if (lane == 31)
        warp_last_key[warp] = key, warp_first_key[warp] = first_key, warp_carry[warp] = carry;
    __syncthreads();
    int before_key = -1;
    float before = 0.0f;
    if (warp > 0) { /* the warps before, back to the one where before_key's piece begins */
        before_key = warp_last_key[warp - 1];
        for (int w = (int)warp - 1; w >= 0 && warp_last_key[w] == before_key; w--) {
            before += warp_carry[w];
            if (warp_first_key[w] != before_key)
                break;
        }
    }
    if (key == before_key)
        carry += before;
    *previous = __shfl_up_sync(FULL_MASK, carry, 1);
    *previous_key = __shfl_up_sync(FULL_MASK, key, 1);
    if (lane == 0)
        *previous = before, *previous_key = before_key;
    return carry;
}

/* The block's count into the global one: one atomic per block. */
static __device__ void add_block_count(int over, unsigned long long *block_count,
                                       unsigned long long *count)
{
    for (int offset = 16; offset > 0; offset /= 2)
        over += __shfl_xor_sync(FULL_MASK, over, offset);
    if (threadIdx.x % 32 == 0 && over)
        atomicAdd(block_count, (unsigned long long)over);
    __syncthreads();
    if (threadIdx.x == 0 && *block_count)
        atomicAdd(count, *block_count);
}

/* Tiles of TILE merged items that cover the n container ends and the floats. */
static size_t tiles_for(size_t n, size_t total)
{
    return (n + total + TILE - 1) / TILE;
}

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
