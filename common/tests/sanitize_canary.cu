/**
 * @file sanitize_canary.cu
 * @brief Planted bugs that the sanitize label must catch, so a clean report means something:
 * `oob` writes past a buffer (memcheck), `race` reads shared memory with no barrier after another
 * thread wrote it (racecheck), `sync` calls __syncthreads() where only part of the block arrives
 * (synccheck).
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

__global__ void write_past_end(int *out, int n)
{
    out[threadIdx.x] = n; /* launched with more threads than n */
}

__global__ void read_before_barrier(int *out)
{
    __shared__ int tile[64];
    tile[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = tile[63 - threadIdx.x]; /* no __syncthreads() in between */
}

__global__ void divergent_barrier(int *out)
{
    if (threadIdx.x < 16)
        __syncthreads();
    out[threadIdx.x] = 1;
}

int main(int argc, char **argv)
{
    int *buffer = NULL;
    if (argc != 2 || cudaMalloc(&buffer, 64 * sizeof(int)) != cudaSuccess) {
        fprintf(stderr, "usage: sanitize_canary oob|race|sync (needs a CUDA device)\n");
        return 2;
    }
    if (strcmp(argv[1], "oob") == 0)
        write_past_end<<<1, 96>>>(buffer, 64);
    else if (strcmp(argv[1], "race") == 0)
        read_before_barrier<<<1, 64>>>(buffer);
    else
        divergent_barrier<<<1, 64>>>(buffer);
    cudaDeviceSynchronize();
    cudaFree(buffer);
    return 0;
}
