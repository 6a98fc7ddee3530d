/**
 * @file staged.cuh
 * @brief v10 to v13: a warp's 32 containers read as one run of floats, CHUNK floats at a time, with
 * 16-byte loads, and stored to shared memory padded (v10, v11; v12 swizzles float4s instead, v13
 * keeps them in order and stages 384 floats at a time); the runs of a warp's lanes between its long
 * containers; and the host code that launches a version's short kernel and then the pieces
 * (pieces.cuh).
 */
#ifndef STAGED_CUH
#define STAGED_CUH

#include <stddef.h>

#include "pieces.cuh"

#ifndef CHUNK     /* a version may set its own before including this file */
#define CHUNK 640 /* floats a warp stages at once: 5 float4 loads per lane */
#endif

/* Loads values[base, base + CHUNK) ∩ values[.., hi) into `part` (lane l holds float4s l, l + 32,
   …): base is a multiple of 4, so every float4 is aligned, and every load is in flight before the
   caller's first store (the lesson of v6). Floats past `hi` come along only when they share a
   float4 with ours; the last float4 of the array may be cut short at `total`. */
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
    load_chunk(part, values, base, hi, total);
#pragma unroll
    for (int i = 0; i < CHUNK / 128; i++) {
        const unsigned p = (i * 32 + lane) * 4;
        staged[padded(p)] = part[i].x, staged[padded(p + 1)] = part[i].y;
        staged[padded(p + 2)] = part[i].z, staged[padded(p + 3)] = part[i].w;
    }
}

/* v10-v13 each define this kernel, with its launch bounds (how a warp sums its short containers
   is their difference); what runs it, and the workspace it needs, are the same for all four. */
__global__ void count_short(const float *values, const size_t *offsets, size_t n, size_t total,
                            float limit, unsigned long long *count, piece_list *list,
                            size_t *piece_container, size_t *piece_first);

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

#endif
