/**
 * @file tensor_rate.cu
 * @brief The probe behind v11's premise: how many multiply-adds per second one H100 does with
 * `mma.sync` m16n8k8 in TF32 (and m16n8k16 in BF16) against FFMA on the FP32 pipe. Each warp
 * keeps 8 independent accumulator tiles (16 FFMA chains per thread), so nothing waits on a
 * result; the operands are arbitrary bits, the sums are thrown away. Not part of the build:
 *   nvcc -O3 -arch=sm_90 -o tensor_rate 05-convolution/experiments/tensor_rate.cu
 */
#include <cuda_runtime.h>
#include <stdio.h>

#define ITERATIONS 4096
#define CHAINS     8

__global__ void tf32_mma_loop(float *sink)
{
    float d[CHAINS][4] = {{0.0f}};
    const unsigned a = threadIdx.x, b = threadIdx.x * 3u;
    for (int it = 0; it < ITERATIONS; it++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                         : "r"(a), "r"(a + 1), "r"(a + 2), "r"(a + 3), "r"(b), "r"(b + 2));
    float s = 0.0f;
    for (int c = 0; c < CHAINS; c++)
        s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    if (s == 1234.5f) /* never: keeps the loop */
        sink[0] = s;
}

__global__ void bf16_mma_loop(float *sink)
{
    float d[CHAINS][4] = {{0.0f}};
    const unsigned a = threadIdx.x, b = threadIdx.x * 3u;
    for (int it = 0; it < ITERATIONS; it++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                         : "r"(a), "r"(a + 1), "r"(a + 2), "r"(a + 3), "r"(b), "r"(b + 2));
    float s = 0.0f;
    for (int c = 0; c < CHAINS; c++)
        s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    if (s == 1234.5f)
        sink[0] = s;
}

__global__ void ffma_loop(float *sink)
{
    float d[2 * CHAINS];
    for (int c = 0; c < 2 * CHAINS; c++)
        d[c] = (float)(threadIdx.x + c);
    const float add = threadIdx.x * 0.5f, scale = 1.0001f;
    for (int it = 0; it < 4 * ITERATIONS; it++)
#pragma unroll
        for (int c = 0; c < 2 * CHAINS; c++)
            d[c] = fmaf(d[c], scale, add);
    float s = 0.0f;
    for (int c = 0; c < 2 * CHAINS; c++)
        s += d[c];
    if (s == 1234.5f)
        sink[0] = s;
}

int main(void)
{
    float *sink;
    int sms;
    if (cudaMalloc(&sink, sizeof(float)) != cudaSuccess)
        return 77;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    const int threads = 256, blocks = 2 * sms;
    const double warps = (double)blocks * threads / 32;
    const char *names[3] = {"TF32 mma.sync m16n8k8", "BF16 mma.sync m16n8k16", "FP32 FFMA"};
    /* flops per launch: 2 per multiply-add */
    const double flops[3] = {warps * ITERATIONS * CHAINS * 2.0 * 16 * 8 * 8,
                             warps * ITERATIONS * CHAINS * 2.0 * 16 * 8 * 16,
                             (double)blocks * threads * 4 * ITERATIONS * 2 * CHAINS * 2.0};
    for (int k = 0; k < 3; k++)
        for (int rep = 0; rep < 3; rep++) { /* the first launch warms up */
            cudaEventRecord(start);
            if (k == 0)
                tf32_mma_loop<<<blocks, threads>>>(sink);
            else if (k == 1)
                bf16_mma_loop<<<blocks, threads>>>(sink);
            else
                ffma_loop<<<blocks, threads>>>(sink);
            cudaEventRecord(stop);
            cudaEventSynchronize(stop);
            float ms;
            cudaEventElapsedTime(&ms, start, stop);
            if (rep > 0)
                printf("%-24s %d blocks of %d threads: %.1f TFLOP/s\n", names[k], blocks, threads,
                       flops[k] / ms / 1e9);
        }
    const cudaError_t err = cudaGetLastError();
    printf("%s\n", cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : 1;
}
