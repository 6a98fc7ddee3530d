/**
 * @file v10_warp_medium.cu
 * @brief v10: v9 with the whole warp summing each medium container (33 to SHORT_MAX floats) from
 * the staged chunk; only containers of up to 32 floats keep a lane's serial walk.
 *
 * v9's serial walk makes a warp wait for its longest short container: on the power law a warp's
 * short containers hold a few hundred floats, the longest of them several times the mean, so the
 * walk takes that many steps with a few lanes busy (the page draws the generator's law). Here a
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
#include "pieces.cuh"

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

#define CHUNK 640 /* floats a warp stages at once: 5 float4 loads per lane */

/* Loads values[base, base + CHUNK) ∩ values[.., hi) into `part` (lane l holds float4s l, l + 32,
   …): base is a multiple of 4, so every float4 is aligned, and every load is in flight before the
   caller's first store (a loop that stores each value as it arrives waits for DRAM once per value).
   Floats past `hi` come along only when they share a float4 with ours; the last float4 of the array
   may be cut short at `total`. */
static __device__ void load_chunk(float4 part[CHUNK / 128], const float *values, size_t base,
                                  size_t hi, size_t total)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < CHUNK / 128; i++) {
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

#define PADDED (CHUNK + CHUNK / 32) /* floats of a padded chunk (v11 and v12) */

/* Float p of a chunk lives at p + p / 32: one pad word per 32, so that lanes walking containers of
   16 floats (or any even stride) hit different banks, and so do the stores below. */
static __device__ unsigned padded(unsigned p)
{
    return p + p / 32;
}

/* v11 and v12: stages values[base, base + CHUNK) ∩ values[.., hi) in shared memory, padded. */
static __device__ void stage_chunk_padded(float *staged, const float *values, size_t base,
                                          size_t hi, size_t total)
{
    const unsigned lane = threadIdx.x % 32;
    float4 part[CHUNK / 128];
    load_chunk(part, values, base, hi, total);
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
    finish_short(list, piece_container, piece_first, c, n, end - begin, sum, limit, count);
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)n;
    return piece_workspace_bytes(total);
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    const piece_workspace w = piece_workspace_at(workspace, total);
    const size_t grid = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    count_short<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(
        values, offsets, n, total, limit, count, w.list, w.piece_container, w.piece_first);
    CL_LAUNCH_CHECK("count_short");
    launch_pieces(values, offsets, limit, count, &w, stream);
}
