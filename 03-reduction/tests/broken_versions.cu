/**
 * @file broken_versions.cu
 * @brief Deliberately wrong versions, linked with the real harness: the gpu tests expect each to
 * FAIL the check, which shows the check can fail. BROKEN selects the bug at compile time.
 *   1: drops the last element      (the exact int check must see a sum off by one)
 *   2: never writes the sum        (the NaN poison must fail)
 *   3: adds the first element twice (off by one element)
 *   4: stateful: writes the sum only while a ticket in the workspace (zeroed once by the harness)
 *      is 0, and never resets it, so every run after the first leaves the output as it was. A
 *      check of the first run alone passes it; the poisoned, checked last timed run must not.
 */
#include "cl_cuda_check.h"
#include "reduction.h"

#define BLOCK_SIZE 256

__global__ void reduce_block(const float *in, size_t n, float *block_sums)
{
    __shared__ float partial[BLOCK_SIZE];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * BLOCK_SIZE + t;
    float x = i < n ? in[i] : 0.0f;
#if BROKEN == 1
    if (i == n - 1 && n > 1 && gridDim.x > 1)
        x = 0.0f;
#elif BROKEN == 3
    if (i == 0 && gridDim.x > 1)
        x += in[0];
#endif
    partial[t] = x;
    __syncthreads();
    for (unsigned stride = BLOCK_SIZE / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0)
        block_sums[blockIdx.x] = partial[0];
}

static void launch_pass(const float *in, size_t n, float *block_sums, size_t blocks,
                        cudaStream_t stream)
{
    reduce_block<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, block_sums);
    CL_LAUNCH_CHECK("reduce_block");
}

/* After the passes' buffers: the ticket and the sum of BROKEN == 4, on their own 256 bytes. */
static size_t state_offset(size_t n)
{
    return (passes_workspace_bytes(n, BLOCK_SIZE) + 255) / 256 * 256;
}

size_t reduce_workspace_bytes(size_t n)
{
    return state_offset(n) + 256;
}

__global__ void finish_first_run_only(const float *total, float *sum, unsigned *ticket)
{
    if (atomicAdd(ticket, 1u) == 0)
        *sum = *total;
}

void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream)
{
    if (BROKEN == 2)
        return;
    if (BROKEN != 4) {
        reduce_in_passes(launch_pass, BLOCK_SIZE, in, n, sum, workspace, stream);
        return;
    }
    unsigned *ticket = (unsigned *)((char *)workspace + state_offset(n));
    float *total = (float *)(ticket + 1);
    reduce_in_passes(launch_pass, BLOCK_SIZE, in, n, total, workspace, stream);
    finish_first_run_only<<<1, 1, 0, stream>>>(total, sum, ticket);
    CL_LAUNCH_CHECK("finish_first_run_only");
}
