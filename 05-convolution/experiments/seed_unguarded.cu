/**
 * @file seed_unguarded.cu
 * @brief The course notes' convolution_1D_basic_kernel as published — no `i < Width` test before
 * `P[i] = Pvalue` — launched as the course notes' host code does, on a grid rounded up to whole
 * blocks of 256, for a signal of 1000 samples. Threads 1000 … 1023 write past the end of P. The
 * sanitize label runs `compute-sanitizer --tool memcheck` on it and expects the invalid writes; the
 * lesson page explains them. Not a lesson version: it is wrong on purpose.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>

__global__ void convolution_1D_basic_kernel(float *N, float *M, float *P, int Mask_Width, int Width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; // Index of output element
    float Pvalue = 0;
    int N_start_point = i - (Mask_Width / 2); // Index of first neighbor
    for (int j = 0; j < Mask_Width; j++) {
        // Check the boundaries
        if (N_start_point + j >= 0 && N_start_point + j < Width) {
            Pvalue += N[N_start_point + j] * M[j]; // Multiply and accumulate
        }
    }
    P[i] = Pvalue; // Store output element
}

int main(void)
{
    const int width = 1000, mask_width = 7, block = 256;
    float *n, *m, *p;
    if (cudaMalloc(&n, width * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&m, mask_width * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&p, width * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "no CUDA device (or no memory): skipping\n");
        return 77;
    }
    cudaMemset(n, 0, width * sizeof(float));
    cudaMemset(m, 0, mask_width * sizeof(float));
    convolution_1D_basic_kernel<<<(width + block - 1) / block, block>>>(n, m, p, mask_width, width);
    const cudaError_t err = cudaDeviceSynchronize();
    printf("launched %d blocks of %d threads for %d outputs: %s\n", (width + block - 1) / block,
           block, width, cudaGetErrorString(err));
    return 0;
}
