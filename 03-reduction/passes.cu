/**
 * @file passes.cu
 * @brief The multi-pass driver of v1 to v6: reduce to block sums, then reduce those, until one
 * block is left. Kept out of the version files so that they differ only in their kernel.
 */
#include "reduction.h"

static size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

size_t passes_workspace_bytes(size_t n, size_t elements_per_block)
{
    /* Pass 1 writes ceil(n/E) sums into buffer 0, pass 2 at most ceil(n/E^2) into buffer 1, and
       later passes alternate between the two, each smaller than the last. */
    const size_t first = ceil_div(n, elements_per_block);
    const size_t second = ceil_div(first, elements_per_block);
    return (first + second) * sizeof(float);
}

void reduce_in_passes(reduce_pass_fn pass, size_t elements_per_block, const float *in, size_t n,
                      float *sum, void *workspace, cudaStream_t stream)
{
    float *buffers[2];
    buffers[0] = (float *)workspace;
    buffers[1] = buffers[0] + ceil_div(n, elements_per_block);
    int which = 0;
    do {
        const size_t blocks = ceil_div(n, elements_per_block);
        float *out = blocks == 1 ? sum : buffers[which];
        pass(in, n, out, blocks, stream);
        in = out;
        n = blocks;
        which ^= 1;
    } while (n > 1);
}
