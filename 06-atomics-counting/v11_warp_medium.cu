/**
 * @file v11_warp_medium.cu
 * @brief v11: v10 with the whole warp summing each medium container (33 to SHORT_MAX floats) from
 * the staged chunk; only containers of up to 32 floats keep a lane's serial walk.
 *
 * v10's serial walk makes a warp wait for its longest short container: on the power law a warp's
 * short containers hold a few hundred floats, the longest of them several times the mean, so the
 * walk takes that many steps with a few lanes busy. Here a
 * lane walks its own container only up to 32 floats; for each longer one the 32 lanes read 32
 * consecutive staged floats per step and reduce with shuffles, and the owning lane adds the
 * result. A warp then waits at most 32 steps for the walk, and a medium container costs a few
 * steps of the whole warp instead of holding 31 lanes idle.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"

#define BLOCK_SIZE 256
#define SHORT_MAX  512 /* the medium path makes containers up to 512 floats cheap */
#include "piece_scan.cuh"

#define CHUNK 640 /* floats a warp stages at once: 5 float4 loads per lane */

#include "runs.cuh"

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

#define SERIAL_MAX 32 /* longest container a lane walks alone */

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
            stage_chunk_padded(staged, values, base, hi, total);
            __syncwarp();
            const size_t start = begin > base ? begin : base;
            const size_t stop = end < base + CHUNK ? end : base + CHUNK;
            const int has_floats = in_run && start < stop;
            if (has_floats && !is_medium)
                for (unsigned p = (unsigned)(start - base); p < (unsigned)(stop - base); p++)
                    sum += staged[padded(p)];
            /* each medium container in this chunk: the 32 lanes together (warp-uniform loop) */
            for (unsigned medium = __ballot_sync(FULL_MASK, has_floats && is_medium); medium;
                 medium &= medium - 1) {
                const int owner = __ffs(medium) - 1;
                const unsigned from = __shfl_sync(FULL_MASK, (unsigned)(start - base), owner);
                const unsigned to = __shfl_sync(FULL_MASK, (unsigned)(stop - base), owner);
                float part = 0.0f;
                for (unsigned p = from + lane; p < to; p += 32)
                    part += staged[padded(p)];
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
