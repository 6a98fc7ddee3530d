/**
 * @file cl_ceilings.cu
 * @brief Probes for the device's read and copy bandwidth and FP32 rate, so "% of ceiling" holds on
 * any GPU.
 */
#include "cl_ceilings.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"

#include <stddef.h>

#define PROBE_BLOCK    256
#define FMA_CHAINS     8
#define FMA_ITERATIONS 131072

/* 16-byte loads, several in flight per thread: the access pattern the memory-bound lessons aim for.
 */
__global__ void read_probe(const float4 *in, size_t count, float *sink)
{
    float acc = 0.0f;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 4
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const float4 v = in[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    if (acc == 1234.5f) /* never true for the fill below; keeps the loads alive */
        *sink = acc;
}

/* A device-to-device copy with 16-byte accesses: the ceiling of a kernel that reads and writes. */
__global__ void copy_probe(const float4 *in, float4 *out, size_t count)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 4
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        out[i] = in[i];
}

/* Independent chains hide the FMA latency, so the issue rate is the limit. */
__global__ void fma_probe(float a, float b, float *sink)
{
    float x[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; c++)
        x[c] = threadIdx.x * 1e-3f + c;
    for (int i = 0; i < FMA_ITERATIONS; i++) {
#pragma unroll
        for (int c = 0; c < FMA_CHAINS; c++)
            x[c] = fmaf(x[c], a, b);
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; c++)
        s += x[c];
    if (s == 1234.5f)
        *sink = s;
}

void cl_launch_read_probe(void *probe, cudaStream_t stream)
{
    const cl_read_probe *p = (const cl_read_probe *)probe;
    read_probe<<<p->blocks, PROBE_BLOCK, 0, stream>>>((const float4 *)p->buffer,
                                                      p->bytes / sizeof(float4), p->sink);
    CL_LAUNCH_CHECK("read_probe");
}

/* the same buffer, its first half copied into the second */
static void launch_copy(void *probe, cudaStream_t stream)
{
    const cl_read_probe *p = (const cl_read_probe *)probe;
    const size_t half = p->bytes / sizeof(float4) / 2;
    copy_probe<<<p->blocks, PROBE_BLOCK, 0, stream>>>((const float4 *)p->buffer,
                                                      (float4 *)p->buffer + half, half);
    CL_LAUNCH_CHECK("copy_probe");
}

static void launch_fma(void *probe, cudaStream_t stream)
{
    const cl_read_probe *p = (const cl_read_probe *)probe;
    fma_probe<<<p->blocks, PROBE_BLOCK, 0, stream>>>(0.999f, 0.001f, p->sink);
    CL_LAUNCH_CHECK("fma_probe");
}

cl_ceilings cl_measure_ceilings(cl_bench *b)
{
    const cl_device_info *dev = &b->dev;
    cl_ceilings c;
    size_t free_bytes = 0, total_bytes = 0;
    CL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t bytes = (size_t)1 << 30;
    while (bytes > free_bytes / 4 && bytes > ((size_t)64 << 20))
        bytes /= 2;
    void *buffer = NULL;
    float *sink = NULL;
    CL_CUDA_CHECK(cudaMalloc(&buffer, bytes));
    CL_CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
    CL_CUDA_CHECK(cudaMemset(buffer, 0, bytes));

    const unsigned blocks_per_sm = (unsigned)(dev->max_threads_per_sm / PROBE_BLOCK);
    /* one description of the work for all three probes (the FMA probe uses its blocks and sink) */
    cl_read_probe args = {buffer, bytes, sink,
                          (unsigned)dev->sm_count * (blocks_per_sm ? blocks_per_sm : 1)};
    const cl_timing read = cl_time_launches(b, cl_launch_read_probe, &args, 2, 10, NULL);
    c.read_gbps = (double)bytes / (read.median_ms * 1e6);

    const cl_timing copy = cl_time_launches(b, launch_copy, &args, 2, 10, NULL);
    c.copy_gbps = (double)bytes / (copy.median_ms * 1e6); /* half read, half written */

    const cl_timing fma = cl_time_launches(b, launch_fma, &args, 2, 10, NULL);
    const double flops = 2.0 * FMA_CHAINS * FMA_ITERATIONS * (double)args.blocks * PROBE_BLOCK;
    c.fp32_gflops = flops / (fma.median_ms * 1e6);

    CL_CUDA_CHECK(cudaFree(buffer));
    CL_CUDA_CHECK(cudaFree(sink));
    return c;
}
