/**
 * @file v15_overlapped_zeroing.cu
 * @brief v15: v14 with C zeroed for the slices by a kernel whose programmatic dependent the
 * product is: no memset, no gap between the launches, and a wait only before the adds into C.
 *
 * When k is split, the slices add into C, so C must be zero first: v14 runs a memset, and the
 * product's launch waits for it to end. At the shapes that split k the whole call lasts 15 to 50
 * µs, and the memset and the gap after it are microseconds of it. Here a kernel zeroes C and at
 * once lets the next launch start (griddepcontrol.launch_dependents); the product is launched with
 * programmatic stream serialization, so its launch is processed while C is zeroed and its blocks
 * start as the zeroing blocks leave (a product block fills an SM's registers, so the two do not
 * share one), and the thread that adds a box into C first waits in griddepcontrol.wait until the
 * zeroing grid has finished and its writes are visible. A product that does not split k stores C as
 * before, with no zeroing and an ordinary launch.
 */
#include "cl_cuda_check.h"
#include "launch.h"
#include "ptx.h"
#include "tensor_gemm.h"

#include "tile_shapes.cuh" /* v13's tiles, steps and count */

/* The product for tiles @p bn wide, a constant in each kernel below (its own stages, registers) */
static __device__ __forceinline__ void tile_loop(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                 const CUtensorMap *map_c, int m, int n, int k,
                                                 int slices, int slice_steps, const int bn)
{
#if PTX_HAVE_WGMMA
    extern __shared__ char smem_raw[];
    char *stages = (char *)(((size_t)smem_raw + 1023) / 1024 * 1024); /* swizzle atoms: 1024 */
    char *staging = stages + RING_BYTES; /* 1024-aligned, as the swizzle needs */
    uint64_t *full = (uint64_t *)(staging + STAGING_BYTES);
    const int ring = STAGES(bn), stage_bytes = STAGE_BYTES(bn);
    uint64_t *empty = full + ring;
    const int warpgroup = threadIdx.x / 128, thread = threadIdx.x % 128;
    const int wide = m <= BM; /* one row of tiles: pairs side by side */
    const int units = (int)count_pairs(m, n, bn) * slices; /* one pair of tiles, one slice of k */
    const int a_bytes = min(BM, (m + 7) / 8 * 8) * ROW_BYTES; /* A's box: no rows past m */
    const unsigned rank = ptx_cluster_rank();
    const int cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    if (threadIdx.x == 0) {
        for (int s = 0; s < ring; s++) {
            ptx_mbarrier_init(&full[s], 1);            /* the producer's arrival, and the bytes */
            ptx_mbarrier_init(&empty[s], 2 * CLUSTER); /* per consumer warpgroup of the cluster */
        }
        ptx_fence_barrier_init(); /* the barriers, visible to the copy engine and the cluster */
    }
    ptx_cluster_sync_relaxed(); /* the fence published the barriers' set-up */
    if (warpgroup == 0) {
        /* the producer: `issued` counts all this block's steps, and picks the stage and phase */
        ptx_setmaxnreg_dec_40();
        if (thread == 0) {
            int issued = 0;
            for (int unit = cluster; unit < units; unit += clusters) {
                int block_row, block_col, first, last;
                unit_origin(unit, slices, slice_steps, k, m, n, bn, rank, &block_row, &block_col,
                            &first, &last);
                for (int step = first; step < last; step++, issued++) {
                    const int s = issued % ring;
                    if (issued >= ring) /* the consumers' release of this stage's last use */
                        ptx_mbarrier_wait(&empty[s], (issued / ring + 1) % 2);
                    load_step(stages + s * stage_bytes, &full[s], map_a, map_b, step, block_row,
                              block_col, rank, wide, bn, a_bytes);
                }
            }
            /* each stage's last release, by both blocks' consumers: after it no arrival and no
               copy targets this block's shared memory, so the block may go. Use `issued` waits
               for the release of use issued − ring, as in the loop; every unit has at least one
               k-step (the count never picks an empty slice, and k ≥ 1), so every use is released */
            for (int tail = 0; tail < ring; tail++, issued++)
                if (issued >= ring)
                    ptx_mbarrier_wait(&empty[issued % ring], (issued / ring + 1) % 2);
        }
    } else {
        /* a consumer: rows 64·(warpgroup − 1) of each tile's 128 */
        ptx_setmaxnreg_inc_232();
        const int consumer = warpgroup - 1;
        const int warp = thread / 32, lane = thread % 32;
        int used = 0; /* the producer's `issued`, as seen from here */
        for (int unit = cluster; unit < units; unit += clusters) {
            int block_row, block_col, first, last;
            unit_origin(unit, slices, slice_steps, k, m, n, bn, rank, &block_row, &block_col,
                        &first, &last);
            float d[BN_MAX / 2];
#pragma unroll
            for (int j = 0; j < bn / 2; j++)
                d[j] = 0.0f;
            for (int step = first; step < last; step++, used++) {
                const int s = used % ring;
                ptx_mbarrier_wait(&full[s], used / ring % 2);
                const char *stage = stages + s * stage_bytes;
                const uint64_t desc_a = ptx_wgmma_descriptor(
                    ptx_smem_address(stage + consumer * 64 * ROW_BYTES), 16, 1024);
                const uint64_t desc_b =
                    ptx_wgmma_descriptor(ptx_smem_address(stage + A_TILE_BYTES), B_BOX_BYTES, 1024);
                ptx_wgmma_fence();
                /* 16 of k at a time: 32 bytes on in A, 16 rows in B */
#pragma unroll
                for (int p = 0; p < BK / WGMMA_K; p++) {
                    const uint64_t a = desc_a + (p * WGMMA_K * 2 >> 4);
                    const uint64_t b = desc_b + (p * WGMMA_K * ROW_BYTES >> 4);
                    if (bn == 256)
                        ptx_wgmma_m64n256k16_bf16(d, a, b, 1);
                    else
                        ptx_wgmma_m64n64k16_bf16(d, a, b, 1);
                }
                ptx_wgmma_commit();
                ptx_wgmma_wait_all_but_one();         /* the previous step's group is done */
                if (step > first && thread < CLUSTER) /* thread r tells block r: both copy here */
                    ptx_mbarrier_arrive_cluster(&empty[(used - 1) % ring], thread);
            }
            ptx_wgmma_wait_all();
            if (thread < CLUSTER) /* the tile's last stage, to both producers before the stores */
                ptx_mbarrier_arrive_cluster(&empty[(used - 1) % ring], thread);
            /* d[4j + e]: row 16·(warp % 4) + lane/4 + 8·(e/2), column 8j + 2·(lane%4) + e%2 of
               the consumer's 64 × bn; chunk q of a swizzled box's row r sits at q ^ (r % 8) */
            char *buffer = staging + consumer * 2 * C_BOX_BYTES;
#pragma unroll
            for (int j = 0; j < bn / 8; j++) {
                const int col = 8 * j % C_ROUND_COLS + 2 * (lane % 4); /* in this round */
                if (j % (C_ROUND_COLS / 8) == 0) { /* a round's first: wait for a free buffer */
                    if (thread == 0) /* the engine has read the previous round out of it */
                        ptx_bulk_wait_read_all();
                    ptx_named_barrier(1 + consumer, 128);
                }
                char *box = buffer + col / C_BOX_COLS * C_BOX_BYTES;
                const int chunk = col % C_BOX_COLS / 4;
#pragma unroll
                for (int half = 0; half < 2; half++) {
                    const int row = 16 * warp + lane / 4 + 8 * half;
                    *(float2 *)(box + row * 128 + (chunk ^ row % 8) * 16 + col % 4 * 4) =
                        make_float2(d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
                }
                if ((j + 1) % (C_ROUND_COLS / 8) == 0) { /* the round's last: store it */
                    ptx_fence_proxy_async(); /* these writes, visible to the copy engine */
                    ptx_named_barrier(1 + consumer, 128);
                    if (thread == 0) {
                        const int row = block_row + consumer * 64;
                        const int col0 = block_col + (j + 1) * 8 - C_ROUND_COLS;
                        if (slices == 1) {
                            ptx_tma_store_2d(map_c, buffer, col0, row);
                            ptx_tma_store_2d(map_c, buffer + C_BOX_BYTES, col0 + C_BOX_COLS, row);
                        } else { /* C += the box: the slices of this tile meet in L2 */
                            ptx_griddep_wait(); /* C's zeros are there (at once after the first) */
                            ptx_tma_reduce_add_2d(map_c, buffer, col0, row);
                            ptx_tma_reduce_add_2d(map_c, buffer + C_BOX_BYTES, col0 + C_BOX_COLS,
                                                  row);
                        }
                        ptx_bulk_commit();
                    }
                }
            }
        }
        if (thread == 0) /* the last stores finish before the block, and its shared memory, go */
            ptx_bulk_wait_all();
    }
#else /* wgmma: sm_90a only */
    (void)map_a, (void)map_b, (void)map_c, (void)m, (void)n, (void)k, (void)slices, (void)bn;
    (void)slice_steps;
#endif
}

/* One kernel per tile width, each compiled on its own with bn a constant. */
#define TILE_KERNEL(name, bn)                                                                      \
    __global__ void __launch_bounds__(THREADS, 1)                                                  \
        name(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, \
             const __grid_constant__ CUtensorMap map_c, int m, int n, int k, int slices,           \
             int slice_steps)                                                                      \
    {                                                                                              \
        tile_loop(&map_a, &map_b, &map_c, m, n, k, slices, slice_steps, bn);                       \
    }
TILE_KERNEL(gemm_tiles_256, 256)
TILE_KERNEL(gemm_tiles_64, 64)

/* to[row][col] = from[row][col] for col < cols, 0 up to @p pitch: 16 bytes written per thread */
__global__ void pad_rows(const __nv_bfloat16 *__restrict__ from, __nv_bfloat16 *__restrict__ to,
                         int rows, int cols, int pitch)
{
    const size_t per_row = (size_t)pitch / 8, vectors = (size_t)rows * per_row;
    for (size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; v < vectors;
         v += (size_t)gridDim.x * blockDim.x) {
        const size_t row = v / per_row;
        const int col = (int)(v % per_row) * 8;
        const __nv_bfloat16 *source = from + row * cols;
        __align__(16) __nv_bfloat16 values[8];
#pragma unroll
        for (int e = 0; e < 8; e++)
            values[e] = col + e < cols ? source[col + e] : __float2bfloat16(0.0f);
        *(uint4 *)(to + row * pitch + col) = *(const uint4 *)values;
    }
}
/* to[row][col] = from[row][col] for col < cols, @p from's rows @p pitch long: one float4 read */
__global__ void unpad_rows(const float *__restrict__ from, float *__restrict__ to, int rows,
                           int cols, int pitch)
{
    const size_t per_row = (size_t)pitch / 4, vectors = (size_t)rows * per_row;
    for (size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; v < vectors;
         v += (size_t)gridDim.x * blockDim.x) {
        const size_t row = v / per_row;
        const int col = (int)(v % per_row) * 4;
        const float4 values = *(const float4 *)(from + row * pitch + col);
        float *out = to + row * cols;
        if (col < cols)
            out[col] = values.x;
        if (col + 1 < cols)
            out[col + 1] = values.y;
        if (col + 2 < cols)
            out[col + 2] = values.z;
        if (col + 3 < cols)
            out[col + 3] = values.w;
    }
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    size_t bytes = 0;
    if (k % ALIGN_A != 0 || n % ALIGN_A != 0)
        bytes +=
            ((size_t)m * padded(k, LINE_A) + (size_t)k * padded(n, LINE_A)) * sizeof(__nv_bfloat16);
    if (n % ALIGN_C != 0)
        bytes += (size_t)m * padded(n, LINE_C) * sizeof(float);
    return bytes;
}

/* Zeroes C's count floats (as float4s) for the slices to add into, letting the product's launch
   start at once; one block per SM, done in a moment, whose SM a product block takes as it leaves.
 */
__global__ void __launch_bounds__(256) zero_c(float4 *c, size_t count)
{
    ptx_griddep_launch_dependents();
    for (size_t i = (size_t)blockIdx.x * 256 + threadIdx.x; i < count; i += (size_t)gridDim.x * 256)
        c[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

void gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
          void *workspace, cudaStream_t stream)
{
    gemm_require_device(9, 0, 1, BUILT_FOR_SM90A, "wgmma and TMA (sm_90a)");
    void (*kernels[2])(CUtensorMap, CUtensorMap, CUtensorMap, int, int, int, int,
                       int) = {gemm_tiles_256, gemm_tiles_64};
    const int sms = tc_sm_count();
    const int copy_blocks = COPY_BLOCKS_PER_SM * sms;
    char *free_space = (char *)workspace;
    int pitch_a = k, pitch_b = n, pitch_c = n;
    if (k % ALIGN_A != 0 || n % ALIGN_A != 0) {
        __nv_bfloat16 *padded_a = (__nv_bfloat16 *)free_space;
        __nv_bfloat16 *padded_b = padded_a + (size_t)m * padded(k, LINE_A);
        pitch_a = padded(k, LINE_A), pitch_b = padded(n, LINE_A);
        free_space = (char *)(padded_b + (size_t)k * pitch_b);
        pad_rows<<<copy_blocks, 256, 0, stream>>>(a, padded_a, m, k, pitch_a);
        CL_LAUNCH_CHECK("pad_rows");
        pad_rows<<<copy_blocks, 256, 0, stream>>>(b, padded_b, k, n, pitch_b);
        CL_LAUNCH_CHECK("pad_rows");
        a = padded_a, b = padded_b;
    }
    float *c_out = c;
    if (n % ALIGN_C != 0)
        c_out = (float *)free_space, pitch_c = padded(n, LINE_C);
    CUtensorMap map_a, map_b, map_c; /* by value: the kernel reads them from its parameters */
    tma_map_bf16(&map_a, a, m, k, pitch_a, m < BM ? (m + 7) / 8 * 8 : BM, BK);
    tma_map_bf16(&map_b, b, k, n, pitch_b, BK, B_BLOCK);
    tma_map_f32(&map_c, c_out, m, n, pitch_c, 64, C_BOX_COLS);
    /* as many clusters as run at once, never more than units of work */
    tc_cluster_launch launch;
    tc_cluster_launch_init(&launch, (const void *)gemm_tiles_256, CLUSTER, THREADS, SMEM_BYTES,
                           stream);
    const int clusters = launch.resident_clusters;
    int width = 0;
    const int slices = choose_shape(m, n, k, clusters, &width);
    tc_allow_shared((const void *)kernels[width], SMEM_BYTES); /* same threads, shared memory */
    const int slice_steps = ((k + BK - 1) / BK + slices - 1) / slices;
    const long long units = count_pairs(m, n, BN_MAX >> 2 * width) * slices;
    tc_cluster_grid(&launch, units);
    /* the slices add into zeros, written by zero_c, whose programmatic dependent the product is: it
       waits for zero_c only before adding into C. Its loads of A and B need no wait: zero_c is an
       ordinary launch, so the pad_rows before it have finished when it starts. */
    cudaLaunchAttribute attributes[2] = {launch.cluster_shape};
    attributes[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[1].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = launch.config;
    config.attrs = attributes;
    config.numAttrs = slices > 1 ? 2 : 1;
    if (slices > 1) {
        zero_c<<<sms, 256, 0, stream>>>((float4 *)c_out, (size_t)m * pitch_c / 4);
        CL_LAUNCH_CHECK("zero_c");
    }
    CL_CUDA_CHECK(cudaLaunchKernelEx(&config, kernels[width], map_a, map_b, map_c, m, n, k, slices,
                                     slice_steps));
    if (c_out != c) {
        unpad_rows<<<copy_blocks, 256, 0, stream>>>(c_out, c, m, n, pitch_c);
        CL_LAUNCH_CHECK("unpad_rows");
    }
}
