/**
 * @file v8_thread_short.cu
 * @brief v8: v7 with v3's short path — one thread per container of up to 128 floats and a
 * `__syncthreads_count` per block — and the places of the long containers' pieces reserved with one
 * atomic per warp.
 *
 * On uniform lengths v3, one thread per container, beat v5's lane groups (the barrier seems to keep
 * a block's reads of neighbouring containers together in L1), and it does here too for the short
 * containers of the power law. With one thread per container, up to 32 lanes of a warp can meet a
 * long container at once, so their pieces' places are reserved together: a scan of their piece
 * counts across the warp, and one `atomicAdd` on the list's counter by its last lane.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"

#define BLOCK_SIZE 256
#define SHORT_MAX  128 /* longer containers are cut into pieces */
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

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_short(const float *values, const size_t *offsets, size_t n, float limit,
                unsigned long long *count, piece_list *list, size_t *piece_container,
                size_t *piece_first)
{
    const size_t c = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t begin = 0, end = 0;
    if (c < n)
        begin = offsets[c], end = offsets[c + 1];
    const int is_long = end - begin > SHORT_MAX;
    float sum = 0.0f;
    if (!is_long)
        for (size_t j = begin; j < end; j++)
            sum += values[j];
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
    count_short<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(values, offsets, n, limit, count, w.list,
                                                           w.piece_container, w.piece_first);
    CL_LAUNCH_CHECK("count_short");
    launch_pieces(values, offsets, limit, count, &w, stream);
}
