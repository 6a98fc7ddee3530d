/**
 * @file v10_staged_short.cu
 * @brief v10: v9 with the short containers' floats read coalesced: a warp stages the floats of its
 * 32 containers in shared memory with 16-byte loads, and each lane then sums its own container
 * there.
 *
 * v9's short kernel waits on memory: each lane walks its own container one float at a time, so a
 * load instruction of a warp touches up to 32 different lines, and the walk of the longest
 * container holds the warp. But the 32 containers of a warp lie one after another in memory. So
 * the warp reads them as one run: every lane loads CHUNK / 128 float4s (all issued before the first
 * store, so that their trips to DRAM overlap), stores them to shared memory, and the serial walk —
 * still one lane per container, in the same order of additions as v9 — reads shared memory instead
 * of DRAM. A long container splits the warp's containers into runs, and its floats are left to the
 * pieces.
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

#define CHUNK 640 /* floats a warp stages at once: 5 float4 loads per lane */

/* Loads values[base, base + 128 · loads) ∩ values[.., hi) into part[0 .. loads) (lane l holds
   float4s l, l + 32, …; `loads` is a constant of the caller, so the loop unrolls): base is a
   multiple of 4, so every float4 is aligned, and every load is in flight before the caller's first
   store (a loop that stores each value as it arrives waits for DRAM once per value). Floats past
   `hi` come along only when they share a float4 with ours; the last float4 of the array may be cut
   short at `total`. */
static __device__ __forceinline__ void load_chunk(float4 *part, int loads, const float *values,
                                                  size_t base, size_t hi, size_t total)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < loads; i++) {
        const size_t j = base + (size_t)(i * 32 + lane) * 4;
        part[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (j + 4 <= total && j < hi)
            part[i] = *(const float4 *)(values + j);
        else if (j < hi)
            part[i] = make_float4(values[j], j + 1 < total ? values[j + 1] : 0.0f,
                                  j + 2 < total ? values[j + 2] : 0.0f, 0.0f);
    }
}

/* Takes the warp's next run out of `todo` (a mask of lanes): the lanes first..last, which follow
   one another with no lane missing (a long container ends a run). Warp-uniform. */
static __device__ void next_run(unsigned *todo, int *first, int *last)
{
    *first = __ffs(*todo) - 1;
    const unsigned gaps = ~*todo >> *first;
    *last = gaps ? *first + __ffs(gaps) - 2 : 31;
    *todo = *last == 31 ? 0 : *todo & (~0u << (*last + 1));
}

#define PADDED (CHUNK + CHUNK / 32) /* floats of a padded chunk (v10 and v11) */

/* Float p of a chunk lives at p + p / 32: one pad word per 32, so that lanes walking containers of
   16 floats (or any even stride) hit different banks, and so do the stores below. */
static __device__ unsigned padded(unsigned p)
{
    return p + p / 32;
}

/* v10 and v11: stages values[base, base + CHUNK) ∩ values[.., hi) in shared memory, padded. */
static __device__ void stage_chunk_padded(float *staged, const float *values, size_t base,
                                          size_t hi, size_t total)
{
    const unsigned lane = threadIdx.x % 32;
    float4 part[CHUNK / 128];
    load_chunk(part, CHUNK / 128, values, base, hi, total);
#pragma unroll
    for (int i = 0; i < CHUNK / 128; i++) {
        const unsigned p = (i * 32 + lane) * 4;
        staged[padded(p)] = part[i].x, staged[padded(p + 1)] = part[i].y;
        staged[padded(p + 2)] = part[i].z, staged[padded(p + 3)] = part[i].w;
    }
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_short(const float *values, const size_t *offsets, size_t n, size_t total, float limit,
                unsigned long long *count, piece_list *list, size_t *piece_container,
                size_t *piece_first)
{
    __shared__ float staged_block[BLOCK_SIZE / 32][PADDED];
    float *staged = staged_block[threadIdx.x / 32];
    const unsigned lane = threadIdx.x % 32;
    const size_t c = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t begin = 0, end = 0;
    if (c < n)
        begin = offsets[c], end = offsets[c + 1];
    const int is_long = end - begin > SHORT_MAX;
    float sum = 0.0f;
    /* the warp's short containers, as runs of consecutive lanes between long ones (warp-uniform) */
    unsigned todo = ~__ballot_sync(FULL_MASK, c >= n || is_long);
    while (todo) {
        int first, last;
        next_run(&todo, &first, &last);
        const size_t lo = __shfl_sync(FULL_MASK, begin, first);
        const size_t hi = __shfl_sync(FULL_MASK, end, last);
        const int in_run = (int)lane >= first && (int)lane <= last;
        for (size_t base = lo & ~(size_t)3; base < hi; base += CHUNK) {
            stage_chunk_padded(staged, values, base, hi, total);
            __syncwarp();
            const size_t start = begin > base ? begin : base;
            const size_t stop = end < base + CHUNK ? end : base + CHUNK;
            if (in_run && start < stop)
                for (unsigned p = (unsigned)(start - base); p < (unsigned)(stop - base); p++)
                    sum += staged[padded(p)];
            __syncwarp(); /* everyone has read the chunk before the next one overwrites it */
        }
    }
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
    count_short<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(
        values, offsets, n, total, limit, count, w.list, w.piece_container, w.piece_first);
    CL_LAUNCH_CHECK("count_short");
    launch_pieces(values, offsets, limit, count, &w, stream);
}
