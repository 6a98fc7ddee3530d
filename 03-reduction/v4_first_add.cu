/**
 * @file v4_first_add.cu
 * @brief v4: the first addition happens during the load — each block covers 2 × 256 elements.
 *
 * In v3 half the threads go idle after the first step, and each pass launches one block per 256
 * inputs. Here every thread loads two elements 256 apart (both loads coalesced) and adds them
 * before the tree: half the blocks, half the shared-memory traffic per input, the same tree.
 *
 *
 * <!-- measured:begin -->
 * Measured on NVIDIA H100 80GB HBM3, 2026-11-22 (generated from docs/results/03-reduction.csv):
 * - n=2^20 dist=real:
 *   0.01402 ms, 299.25 GB/s = 10.0% of read bandwidth; 1.11x v1, 0.774x cub
 * - n=2^22 dist=real:
 *   0.02208 ms, 759.84 GB/s = 25.3% of read bandwidth; 1.40x v1, 0.757x cub
 * - n=2^24 dist=real:
 *   0.05754 ms, 1166.38 GB/s = 38.9% of read bandwidth; 1.59x v1, 0.685x cub
 * - n=2^26 dist=real:
 *   0.16731 ms, 1604.40 GB/s = 53.5% of read bandwidth; 1.85x v1, 0.705x cub
 * - n=2^28 dist=real:
 *   0.61955 ms, 1733.09 GB/s = 57.6% of read bandwidth; 1.91x v1, 0.579x cub
 * <!-- measured:end -->
 */
#include "cl_cuda_check.h"
#include "reduction.h"

#define BLOCK_SIZE         256
#define ELEMENTS_PER_BLOCK (2 * BLOCK_SIZE)

__global__ void reduce_first_add(const float *in, size_t n, float *block_sums)
{
    __shared__ float partial[BLOCK_SIZE];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * ELEMENTS_PER_BLOCK + t;
    float x = i < n ? in[i] : 0.0f;
    if (i + BLOCK_SIZE < n)
        x += in[i + BLOCK_SIZE];
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
    reduce_first_add<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, block_sums);
    CL_LAUNCH_CHECK("reduce_first_add");
}

size_t reduce_workspace_bytes(size_t n)
{
    return passes_workspace_bytes(n, ELEMENTS_PER_BLOCK);
}

void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream)
{
    reduce_in_passes(launch_pass, ELEMENTS_PER_BLOCK, in, n, sum, workspace, stream);
}
