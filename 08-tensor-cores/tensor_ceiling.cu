/**
 * @file tensor_ceiling.cu
 * @brief The BF16 tensor-core probe. Built for sm_90a where the build targets 9.0 (the wgmma path),
 * so it lives in a library of its own (08-tensor-cores_ceiling) that the harness links.
 */
#include "tensor_ceiling.h"

#include "cl_cuda_check.h"
#include "ptx.h"

#include <cuda_bf16.h>

#define PROBE_THREADS 256  /* two warpgroups, or eight warps */
#define WGMMA_ROUNDS  8192 /* × 4 wgmma per warpgroup: ~5 ms at 800 TFLOP/s on 132 SMs */
#define MMA_ROUNDS    16384
#define MMA_CHAINS    8 /* independent accumulators per warp hide the mma.sync latency */
#define WGMMA_FLOPS   (2.0 * 64 * 256 * 16)
#define MMA_FLOPS     (2.0 * 16 * 8 * 16)

__global__ void __launch_bounds__(PROBE_THREADS, 1) bf16_tensor_probe(float *sink, int *ran)
{
#if PTX_HAVE_WGMMA
    /* one 64 × 64 tile of A (K-major) and one 64 × 256 tile of B (N-major: 4 column blocks of 64
       rows of 128 bytes), read over and over: the rate of the tensor cores, not of memory */
    __shared__ __align__(1024) __nv_bfloat16 tile_a[64 * 64];
    __shared__ __align__(1024) __nv_bfloat16 tile_b[64 * 256];
    for (int i = threadIdx.x; i < 64 * 256; i += PROBE_THREADS) {
        tile_b[i] = __float2bfloat16((float)(i % 13) * 0.0625f - 0.375f); /* not zeros */
        if (i < 64 * 64)
            tile_a[i] = __float2bfloat16((float)(i % 11) * 0.0625f - 0.3125f);
    }
    ptx_fence_proxy_async();
    __syncthreads();
    float d[128];
#pragma unroll
    for (int j = 0; j < 128; j++)
        d[j] = 0.0f;
    const uint64_t desc_a = ptx_wgmma_descriptor(ptx_smem_address(tile_a), 16, 1024);
    const uint64_t desc_b = ptx_wgmma_descriptor(ptx_smem_address(tile_b), 64 * 128, 1024);
    /* 16 wgmmas per group, then a wait: while one warpgroup waits for its last, the other's keep
       the tensor cores busy */
    for (int round = 0; round < WGMMA_ROUNDS / 4; round++) {
        ptx_wgmma_fence();
#pragma unroll
        for (int step = 0; step < 16;
             step++) /* k = 16·(step % 4): 32 bytes on in A, 16 rows in B */
            ptx_wgmma_m64n256k16_bf16(d, desc_a + (step % 4 * 32 >> 4),
                                      desc_b + (step % 4 * 2048 >> 4), 1);
        ptx_wgmma_commit();
        ptx_wgmma_wait_all();
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < 128; j++)
        sum += d[j];
    if (sum == 1234.5f) /* keeps the results alive */
        *sink = sum;
    if (threadIdx.x == 0)
        *ran = 1;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned a = 0x3F803F80u + threadIdx.x, b = 0x3F003F00u + threadIdx.x; /* BF16 pairs */
    float acc[MMA_CHAINS][4] = {};
    for (int round = 0; round < MMA_ROUNDS; round++) {
#pragma unroll
        for (int c = 0; c < MMA_CHAINS; c++)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                         "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                         : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                         : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b));
    }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < MMA_CHAINS; c++)
        sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    if (sum == 1234.5f)
        *sink = sum;
    if (threadIdx.x == 0)
        *ran = 2;
#else
    (void)sink, (void)ran; /* no BF16 tensor cores in this code: *ran stays 0 */
#endif
}

typedef struct {
    float *sink;
    int *ran;
    unsigned blocks;
} probe_args;

static void launch_probe(void *context, cudaStream_t stream)
{
    const probe_args *p = (const probe_args *)context;
    bf16_tensor_probe<<<p->blocks, PROBE_THREADS, 0, stream>>>(p->sink, p->ran);
    CL_LAUNCH_CHECK("bf16_tensor_probe");
}

double measure_bf16_tensor_tflops(cl_bench *b)
{
    static double measured = -1.0;
    if (measured >= 0.0)
        return measured;
    probe_args args = {NULL, NULL, (unsigned)b->dev.sm_count};
    CL_CUDA_CHECK(cudaMalloc(&args.sink, sizeof(float)));
    CL_CUDA_CHECK(cudaMalloc(&args.ran, sizeof(int)));
    CL_CUDA_CHECK(cudaMemset(args.ran, 0, sizeof(int)));
    measured = 0.0;
    /* which code ran: the kernel writes it (a build without code for this GPU's tensor cores
       leaves an empty kernel, whose "rate" would mean nothing) */
    launch_probe(&args, b->stream);
    int ran = 0;
    CL_CUDA_CHECK(cudaMemcpyAsync(&ran, args.ran, sizeof ran, cudaMemcpyDeviceToHost, b->stream));
    CL_CUDA_CHECK(cudaStreamSynchronize(b->stream));
    if (ran != 0) {
        const cl_timing t = cl_time_launches(b, launch_probe, &args, 1, 10, NULL);
        const double flops = ran == 1 ? WGMMA_FLOPS * 2 * 4 * WGMMA_ROUNDS
                                      : MMA_FLOPS * (PROBE_THREADS / 32) * MMA_CHAINS * MMA_ROUNDS;
        measured = flops * args.blocks / (t.median_ms * 1e9);
    }
    CL_CUDA_CHECK(cudaFree(args.sink));
    CL_CUDA_CHECK(cudaFree(args.ran));
    return measured;
}
