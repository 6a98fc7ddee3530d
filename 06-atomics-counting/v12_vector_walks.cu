/**
 * @file v12_vector_walks.cu
 * @brief v12: v11 with 16-byte shared-memory reads in both walks: the chunk is staged as float4s
 * (swizzled instead of padded), a lane's walk reads a float4 per step, and the warp's medium walk
 * 128 floats per step.
 *
 * v11 still spends most of its instructions in the walks: a step of the serial walk is a load, an
 * add and the loop's index, bound and branch for one float. Reading float4s does the loop's work
 * once per four floats. The first and last float4 of a container hold floats of its neighbours, so
 * those two are added under a mask (a masked float adds 0, which leaves the sum as it was, so the
 * order of additions is still v9's). The padding that kept v10's lanes on different banks would
 * misalign the float4s; an XOR of the float4's column with its row does the same job. With steps
 * this cheap, a lane walks containers of up to 64 floats alone and the warp takes those up to 1024
 * (the pieces only longer ones): the thresholds that measured best (tries file).
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"

#define BLOCK_SIZE 256
#define SHORT_MAX  1024 /* the warp's 128-float steps make containers up to 1024 floats cheap */
#include "piece_scan.cuh"

#define CHUNK 640 /* floats a warp stages at once: 5 float4 loads per lane */

#include "runs.cuh"

#define SERIAL_MAX 64 /* longest container a lane walks alone: a step is now 4 floats */

/* float4 q of a chunk lives at q ^ (q / 8 % 8): the 8 float4s of each 128-byte row are permuted
   by the row's number, so 8 lanes reading float4s 16 floats apart (containers of 16) hit different
   banks, and the stores below (8 consecutive float4s per row) stay conflict-free. */
static __device__ unsigned slot(unsigned q)
{
    return q ^ ((q / 8) % 8);
}

/* Stages values[base, base + CHUNK) ∩ values[.., hi) in shared memory (layout above). */
static __device__ void stage_chunk(float4 *staged, const float *values, size_t base, size_t hi,
                                   size_t total)
{
    const unsigned lane = threadIdx.x % 32;
    float4 part[CHUNK / 128];
    load_chunk(part, CHUNK / 128, values, base, hi, total);
#pragma unroll
    for (int i = 0; i < CHUNK / 128; i++)
        staged[slot(i * 32 + lane)] = part[i];
}

/* Adds, in order, the floats of v (floats p to p + 3 of the chunk) that lie in [from, to). */
static __device__ float add_in_range(float sum, float4 v, unsigned p, unsigned from, unsigned to)
{
    sum += p >= from && p < to ? v.x : 0.0f;
    sum += p + 1 >= from && p + 1 < to ? v.y : 0.0f;
    sum += p + 2 >= from && p + 2 < to ? v.z : 0.0f;
    sum += p + 3 >= from && p + 3 < to ? v.w : 0.0f;
    return sum;
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_short(const float *values, const size_t *offsets, size_t n, size_t total, float limit,
                unsigned long long *count, piece_list *list, size_t *piece_container,
                size_t *piece_first)
{
    __shared__ float4 staged_block[BLOCK_SIZE / 32][CHUNK / 4];
    float4 *staged = staged_block[threadIdx.x / 32];
    const unsigned lane = threadIdx.x % 32;
    const size_t c = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t begin = 0, end = 0;
    if (c < n)
        begin = offsets[c], end = offsets[c + 1];
    const int is_long = end - begin > SHORT_MAX;
    const int is_medium = end - begin > SERIAL_MAX;
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
            stage_chunk(staged, values, base, hi, total);
            __syncwarp();
            const size_t start = begin > base ? begin : base;
            const size_t stop = end < base + CHUNK ? end : base + CHUNK;
            const int has_floats = in_run && start < stop;
            if (has_floats && !is_medium) { /* masked first and last float4, whole ones between */
                const unsigned from = (unsigned)(start - base), to = (unsigned)(stop - base);
                const unsigned first_q = from / 4, last_q = (to - 1) / 4;
                sum = add_in_range(sum, staged[slot(first_q)], 4 * first_q, from, to);
                for (unsigned q = first_q + 1; q < last_q; q++) {
                    const float4 v = staged[slot(q)];
                    sum += v.x, sum += v.y, sum += v.z, sum += v.w;
                }
                if (last_q > first_q)
                    sum = add_in_range(sum, staged[slot(last_q)], 4 * last_q, from, to);
            }
            /* each medium container in this chunk: the 32 lanes together (warp-uniform loop) */
            for (unsigned medium = __ballot_sync(FULL_MASK, has_floats && is_medium); medium;
                 medium &= medium - 1) {
                const int owner = __ffs(medium) - 1;
                const unsigned from = __shfl_sync(FULL_MASK, (unsigned)(start - base), owner);
                const unsigned to = __shfl_sync(FULL_MASK, (unsigned)(stop - base), owner);
                float part = 0.0f;
                for (unsigned q = from / 4 + lane; 4 * q < to; q += 32)
                    part = add_in_range(part, staged[slot(q)], 4 * q, from, to);
                for (int offset = 16; offset > 0; offset /= 2)
                    part += __shfl_xor_sync(FULL_MASK, part, offset);
                if ((int)lane == owner)
                    sum += part;
            }
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
