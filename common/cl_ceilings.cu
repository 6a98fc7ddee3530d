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
#define READ_LOADS     4
#define FMA_CHAINS     8
#define FMA_ITERATIONS 131072

/* The read ceiling: one tile of READ_LOADS × PROBE_BLOCK 16-byte words per block, every load
   issued before the first is used, and as many blocks as tiles. Of the ways to read a buffer that
   common/experiments/read_probe_variants.cu compares (loads in flight, resident blocks striding or
   a block per tile, block sizes, cache hints), this one read fastest at every size, faster than
   the lessons' own readers, which a ceiling must be. */
__global__ void __launch_bounds__(PROBE_BLOCK)
    read_probe(const float4 *__restrict__ in, size_t count, float *sink)
{
    const size_t base = (size_t)blockIdx.x * READ_LOADS * PROBE_BLOCK + threadIdx.x;
    float4 v[READ_LOADS];
#pragma unroll
    for (int k = 0; k < READ_LOADS; k++) {
        const size_t i = base + (size_t)k * PROBE_BLOCK;
        v[k] = i < count ? in[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < READ_LOADS; k++)
        acc += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    if (acc == 1234.5f) /* never true for the fill below; keeps the loads alive */
        *sink = acc;
}

/* The copy ceiling: the read probe's tiles, each copied. A tile per block copied faster than
   resident blocks striding over the buffer (the same experiment). */
__global__ void __launch_bounds__(PROBE_BLOCK)
    copy_probe(const float4 *__restrict__ in, float4 *__restrict__ out, size_t count)
{
    const size_t base = (size_t)blockIdx.x * READ_LOADS * PROBE_BLOCK + threadIdx.x;
    float4 v[READ_LOADS];
#pragma unroll
    for (int k = 0; k < READ_LOADS; k++) {
        const size_t i = base + (size_t)k * PROBE_BLOCK;
        if (i < count)
            v[k] = in[i];
    }
#pragma unroll
    for (int k = 0; k < READ_LOADS; k++) {
        const size_t i = base + (size_t)k * PROBE_BLOCK;
        if (i < count)
            out[i] = v[k];
    }
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
    const size_t count = p->bytes / sizeof(float4);
    const size_t tile = (size_t)READ_LOADS * PROBE_BLOCK;
    read_probe<<<(unsigned)((count + tile - 1) / tile), PROBE_BLOCK, 0, stream>>>(
        (const float4 *)p->buffer, count, p->sink);
    CL_LAUNCH_CHECK("read_probe");
}

/* the same buffer, its first half copied into the second */
static void launch_copy(void *probe, cudaStream_t stream)
{
    const cl_read_probe *p = (const cl_read_probe *)probe;
    const size_t half = p->bytes / sizeof(float4) / 2;
    const size_t tile = (size_t)READ_LOADS * PROBE_BLOCK;
    copy_probe<<<(unsigned)((half + tile - 1) / tile), PROBE_BLOCK, 0, stream>>>(
        (const float4 *)p->buffer, (float4 *)p->buffer + half, half);
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
    /* 4 GiB where a quarter of the free memory holds it: a shorter read reaches less (the ramp-up
       and the last wave weigh more), and lessons read 4 GiB and more */
    size_t bytes = (size_t)4 << 30;
    while (bytes > free_bytes / 4 && bytes > ((size_t)64 << 20))
        bytes /= 2;
    void *buffer = NULL;
    float *sink = NULL;
    CL_CUDA_CHECK(cudaMalloc(&buffer, bytes));
    CL_CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
    CL_CUDA_CHECK(cudaMemset(buffer, 0, bytes));

    const unsigned blocks_per_sm = (unsigned)(dev->max_threads_per_sm / PROBE_BLOCK);
    /* one description of the work for all three probes (the FMA probe uses its blocks and sink;
       the read and copy probes launch a block per tile) */
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
