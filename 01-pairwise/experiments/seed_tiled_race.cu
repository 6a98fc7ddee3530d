/**
 * @file seed_tiled_race.cu
 * @brief The blog post's second version as published (tile of b in shared memory, no barrier
 * between writing and reading it), with the block size equal to N_ITERATIONS as the blog post says.
 * The sanitize label runs `compute-sanitizer --tool racecheck` on it and expects a reported hazard;
 * the lesson page shows that report. Not a lesson version: it is wrong on purpose.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define N_ITERATIONS 256

__device__ float cal(float x, float y)
{
    return fabsf(x - y);
}

/* The blog post's kernel, with its shared array sized N_ITERATIONS (the blog post: "you need to
   make this size equals to N_ITERATIONS") and x % 32 written as the thread's slot. */
__global__ void work(size_t n_iterations, size_t n, const float *a, const float *b, float *ans)
{
    size_t x = blockDim.x * blockIdx.x + threadIdx.x;
    size_t y = n_iterations * blockIdx.y;
    __shared__ float _b[N_ITERATIONS];
    if (y + threadIdx.x < n) {
        _b[threadIdx.x] = b[y + threadIdx.x];
    }
    float sum = 0;
    for (int i = 0; i < n_iterations; i++) {
        float val = (x < n && y + i < n) ? cal(a[x], _b[i]) : 0;
        sum += val;
    }
    atomicAdd(ans, sum);
}

int main(void)
{
    const size_t n = 1024;
    float *a, *b, *ans;
    if (cudaMallocManaged(&a, n * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "seed_tiled_race: no usable CUDA device\n");
        return 77;
    }
    cudaMallocManaged(&b, n * sizeof(float));
    cudaMallocManaged(&ans, sizeof(float));
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 17);
        b[i] = (float)(i % 13);
    }
    *ans = 0.0f;
    const dim3 grid((unsigned)(n / N_ITERATIONS), (unsigned)(n / N_ITERATIONS));
    work<<<grid, N_ITERATIONS>>>(N_ITERATIONS, n, a, b, ans);
    cudaDeviceSynchronize();
    printf("seed kernel: S = %.1f\n", *ans);
    cudaFree(a);
    cudaFree(b);
    cudaFree(ans);
    return 0;
}
