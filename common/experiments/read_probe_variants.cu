/**
 * @file read_probe_variants.cu
 * @brief Evidence for the read-bandwidth ceiling: ways to stream a buffer with no arithmetic to
 * speak of, timed like a version (cl_time_launches: the clean L2 flush before every run), at
 * several sizes, so that the probe kept in cl_ceilings.cu is the fastest read found and no lesson's
 * kernel can pass it.
 *
 * The variants differ in what the memory system sees: loads in flight per thread (1 to 8 16-byte
 * loads issued before the first is used), the grid (resident blocks looping over the buffer, or one
 * tile per block and as many blocks as tiles), the block size, and the cache hints of the load
 * (plain; `ld.global.cs`, evict-first; `ld.global.nc.L1::no_allocate.L2::256B`, which also asks L2
 * to fetch the whole 256-byte sector group).
 *
 * The last two rows are the copy ceiling's: resident blocks striding (the copy probe until
 * 2026-11-28), and a tile per block (the copy probe since). The last lines are
 * cl_measure_ceilings() itself, as every program calls it, at the start of the process and at its
 * end.
 *
 * usage: read_probe_variants [GiB ...]   (default: 1 2 4 8; sizes that do not fit are skipped)
 * Prints one row per variant and size: median and best GB/s over 20 timed runs (a copy's bytes
 * are read plus written). Needs a GPU; exits 77 without one.
 */
#include "cl_bench.h"
#include "cl_cuda_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WARMUP        2
#define REPEATS       20
#define PAUSE_SECONDS 2

static __device__ __forceinline__ float4 load_plain(const float4 *p)
{
    return *p;
}
static __device__ __forceinline__ float4 load_cs(const float4 *p)
{
    return __ldcs(p);
}
static __device__ __forceinline__ float4 load_nc256(const float4 *p)
{
#if __CUDA_ARCH__ >= 800 /* the L2 prefetch size is cc 8.0's */
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
#else
    return __ldg(p);
#endif
}

/* Resident blocks stride over the buffer; each thread issues K loads before it adds any. */
#define DEFINE_STRIDED(NAME, K, LOAD)                                                              \
    __global__ void NAME(const float4 *__restrict__ in, size_t count, float *sink)                 \
    {                                                                                              \
        float acc = 0.0f;                                                                          \
        const size_t stride = (size_t)gridDim.x * blockDim.x;                                      \
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                                  \
        for (; i + (K - 1) * stride < count; i += K * stride) {                                    \
            float4 v[K];                                                                           \
            _Pragma("unroll") for (int k = 0; k < K; k++) v[k] = LOAD(in + i + k * stride);        \
            _Pragma("unroll") for (int k = 0; k < K; k++) acc +=                                   \
                (v[k].x + v[k].y) + (v[k].z + v[k].w);                                             \
        }                                                                                          \
        for (; i < count; i += stride) {                                                           \
            const float4 v = LOAD(in + i);                                                         \
            acc += (v.x + v.y) + (v.z + v.w);                                                      \
        }                                                                                          \
        if (acc == 1234.5f)                                                                        \
            *sink = acc;                                                                           \
    }

/* One tile of K × blockDim 16-byte words per block, as many blocks as tiles. */
#define DEFINE_TILED(NAME, K, LOAD)                                                                \
    __global__ void NAME(const float4 *__restrict__ in, size_t count, float *sink)                 \
    {                                                                                              \
        const size_t base = (size_t)blockIdx.x * K * blockDim.x + threadIdx.x;                     \
        float4 v[K];                                                                               \
        _Pragma("unroll") for (int k = 0; k < K; k++)                                              \
        {                                                                                          \
            const size_t i = base + (size_t)k * blockDim.x;                                        \
            v[k] = i < count ? LOAD(in + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);                 \
        }                                                                                          \
        float acc = 0.0f;                                                                          \
        _Pragma("unroll") for (int k = 0; k < K; k++) acc +=                                       \
            (v[k].x + v[k].y) + (v[k].z + v[k].w);                                                 \
        if (acc == 1234.5f)                                                                        \
            *sink = acc;                                                                           \
    }

/* The probe cl_ceilings.cu used until 2026-11-28: resident blocks, the loop left to the compiler
   to unroll. */
__global__ void strided_unrolled(const float4 *in, size_t count, float *sink)
{
    float acc = 0.0f;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 4
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const float4 v = in[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    if (acc == 1234.5f)
        *sink = acc;
}

/* Copies of the first half of the buffer into the second (the copy ceiling): resident blocks
   striding, as cl_ceilings.cu does, or a tile per block. The count is the half's. */
__global__ void copy_strided(const float4 *in, size_t count, float *sink)
{
    float4 *out = (float4 *)in + count;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    (void)sink;
#pragma unroll 4
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        out[i] = in[i];
}

__global__ void copy_tiled4(const float4 *in, size_t count, float *sink)
{
    float4 *out = (float4 *)in + count;
    const size_t base = (size_t)blockIdx.x * 4 * blockDim.x + threadIdx.x;
    float4 v[4];
    (void)sink;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < count)
            v[k] = in[i];
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < count)
            out[i] = v[k];
    }
}

DEFINE_STRIDED(strided1, 1, load_plain)
DEFINE_STRIDED(strided2, 2, load_plain)
DEFINE_STRIDED(strided4, 4, load_plain)
DEFINE_STRIDED(strided8, 8, load_plain)
DEFINE_STRIDED(strided4_cs, 4, load_cs)
DEFINE_STRIDED(strided4_nc256, 4, load_nc256)
DEFINE_STRIDED(strided8_nc256, 8, load_nc256)
DEFINE_TILED(tiled4, 4, load_plain)
DEFINE_TILED(tiled8, 8, load_plain)
DEFINE_TILED(tiled4_nc256, 4, load_nc256)
DEFINE_TILED(tiled8_nc256, 8, load_nc256)

typedef void (*read_kernel)(const float4 *, size_t, float *);

typedef struct {
    const char *name;
    read_kernel kernel; /* NULL: the read probe of cl_ceilings.cu */
    int threads;
    int per_thread; /* 0: resident blocks striding; K: one tile of K loads per thread a block */
    int copy;       /* a copy of the first half into the second: bytes read + written */
} variant;

static const variant variants[] = {
    {"read: the probe in cl_ceilings.cu", NULL, 256, 0, 0},
    {"strided, unroll 4 (the probe until 11-28)", strided_unrolled, 256, 0, 0},
    {"strided, 1 load, 256 threads", strided1, 256, 0, 0},
    {"strided, 2 loads, 256 threads", strided2, 256, 0, 0},
    {"strided, 4 loads, 256 threads", strided4, 256, 0, 0},
    {"strided, 8 loads, 256 threads", strided8, 256, 0, 0},
    {"strided, 4 loads, 512 threads", strided4, 512, 0, 0},
    {"strided, 8 loads, 512 threads", strided8, 512, 0, 0},
    {"strided, 4 loads, 1024 threads", strided4, 1024, 0, 0},
    {"strided, 4 loads .cs, 256 threads", strided4_cs, 256, 0, 0},
    {"strided, 4 loads .nc 256B, 256 threads", strided4_nc256, 256, 0, 0},
    {"strided, 8 loads .nc 256B, 256 threads", strided8_nc256, 256, 0, 0},
    {"strided, 4 loads .nc 256B, 512 threads", strided4_nc256, 512, 0, 0},
    {"tiled, 4 loads, 256 threads", tiled4, 256, 4, 0},
    {"tiled, 8 loads, 256 threads", tiled8, 256, 8, 0},
    {"tiled, 4 loads, 512 threads", tiled4, 512, 4, 0},
    {"tiled, 4 loads .nc 256B, 256 threads", tiled4_nc256, 256, 4, 0},
    {"tiled, 8 loads .nc 256B, 256 threads", tiled8_nc256, 256, 8, 0},
    {"tiled, 8 loads .nc 256B, 512 threads", tiled8_nc256, 512, 8, 0},
    {"copy: strided (the copy probe until 11-28)", copy_strided, 256, 0, 1},
    {"copy: tiled, 4 loads, 256 threads", copy_tiled4, 256, 4, 1},
};

typedef struct {
    const variant *v;
    const float4 *buffer;
    size_t count; /* 16-byte words */
    float *sink;
    unsigned blocks;
    cl_read_probe today;
} launch_args;

static void launch_variant(void *context, cudaStream_t stream)
{
    const launch_args *a = (const launch_args *)context;
    if (a->v->kernel == NULL) {
        cl_launch_read_probe((void *)&a->today, stream);
        return;
    }
    a->v->kernel<<<a->blocks, a->v->threads, 0, stream>>>(a->buffer, a->count, a->sink);
    CL_LAUNCH_CHECK("a read variant");
}

__global__ void fill(float4 *out, size_t count)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const float x = (float)(i % 1000003) * 1e-6f + 0.5f;
        out[i] = make_float4(x, x + 1.0f, x + 2.0f, x + 3.0f);
    }
}

int main(int argc, char **argv)
{
    static const char *const default_sizes[] = {"1", "2", "4", "8"};
    const char *const *sizes = argc > 1 ? (const char *const *)argv + 1 : default_sizes;
    const int n_sizes = argc > 1 ? argc - 1 : 4;
    cl_bench bench;
    cl_bench_open_device(&bench, 0);
    const cl_device_info *dev = &bench.dev;

    /* the ceilings as every program measures them, here at the start, in a fresh process; then a
       pause, since a read right after a large cudaFree was seen to run slower for a while */
    const cl_ceilings first = cl_measure_ceilings(&bench);
    sleep(PAUSE_SECONDS);
    size_t largest = 0;
    for (int s = 0; s < n_sizes; s++) {
        const size_t bytes = (size_t)atoi(sizes[s]) << 30;
        largest = bytes > largest ? bytes : largest;
    }
    size_t free_bytes = 0, total_bytes = 0;
    CL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (largest > free_bytes / 2)
        largest /= 2;
    float4 *buffer;
    float *sink;
    CL_CUDA_CHECK(cudaMalloc(&buffer, largest));
    CL_CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
    fill<<<dev->sm_count * 8, 256>>>(buffer, largest / sizeof(float4));
    CL_LAUNCH_CHECK("fill");
    CL_CUDA_CHECK(cudaDeviceSynchronize());

    printf("# %s, %d SMs, L2 %.0f MB; %d warm-ups, %d timed runs, clean L2 flush before each\n",
           dev->name, dev->sm_count, dev->l2_bytes / 1e6, WARMUP, REPEATS);
    printf("%-42s %5s %8s %10s %10s\n", "variant", "GiB", "blocks", "median GB/s", "best GB/s");
    for (int s = 0; s < n_sizes; s++) {
        const size_t bytes = (size_t)atoi(sizes[s]) << 30;
        if (bytes == 0 || bytes > largest) {
            printf("# %s GiB: does not fit, skipped\n", sizes[s]);
            continue;
        }
        for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++) {
            const variant *v = &variants[k];
            launch_args a;
            memset(&a, 0, sizeof a);
            a.v = v;
            a.buffer = buffer;
            a.count = bytes / sizeof(float4) / (v->copy ? 2 : 1);
            a.sink = sink;
            if (v->kernel == NULL) {
                cl_read_probe today = {buffer, bytes, sink, 0};
                a.today = today; /* the probe picks its own grid: a block per tile of 1024 */
                a.blocks = (unsigned)((a.count + 1023) / 1024);
            } else if (v->per_thread == 0) {
                a.blocks = (unsigned)cl_resident_blocks((const void *)v->kernel, v->threads, 0);
            } else {
                const size_t tile = (size_t)v->per_thread * v->threads;
                a.blocks = (unsigned)((a.count + tile - 1) / tile);
            }
            const cl_timing t = cl_time_launches(&bench, launch_variant, &a, WARMUP, REPEATS, NULL);
            printf("%-42s %5s %8u %10.0f %10.0f\n", v->name, sizes[s], a.blocks,
                   bytes / (t.median_ms * 1e6), bytes / (t.min_ms * 1e6));
        }
    }
    CL_CUDA_CHECK(cudaFree(buffer));
    CL_CUDA_CHECK(cudaFree(sink));
    const cl_ceilings right_after = cl_measure_ceilings(&bench);
    sleep(PAUSE_SECONDS);
    const cl_ceilings later = cl_measure_ceilings(&bench);
    const cl_ceilings *rows[] = {&first, &right_after, &later};
    const char *when[] = {"at the start of this process",
                          "right after the variants' buffer was freed", "again, a pause later"};
    for (int i = 0; i < 3; i++)
        printf("# cl_measure_ceilings(), as every program calls it, %s: read %.0f GB/s, copy %.0f "
               "GB/s, FP32 %.0f GFLOP/s\n",
               when[i], rows[i]->read_gbps, rows[i]->copy_gbps, rows[i]->fp32_gflops);
    return 0;
}
