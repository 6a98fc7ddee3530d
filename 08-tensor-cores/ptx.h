/**
 * @file ptx.h
 * @brief Lesson 08's thin wrappers around the Hopper (sm_90a) PTX that CUDA C has no function for:
 * the warpgroup matrix multiply (wgmma), its shared-memory descriptors, and the mbarrier and bulk
 * tensor copy (TMA) that feed it. One instruction each, so a kernel reads as the PTX it issues.
 *
 * wgmma exists only in code built for sm_90a (the "a" target: not forward compatible), so every
 * body here and every kernel that calls them sits under PTX_HAVE_WGMMA; the host checks the device
 * before launching (gemm_require_device(), launch.h).
 */
#ifndef PTX_H
#define PTX_H

#include <stdint.h>

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PTX_HAVE_WGMMA 1
#else
#define PTX_HAVE_WGMMA 0
#endif

/* ---- Ampere's (sm_80 on): the asynchronous copy, ldmatrix and the warp's mma ---------------- */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800

/** One 16-byte cp.async from global to shared memory, bypassing L1 (.cg): @p bytes of it (16 or
 * 0) are read, the rest of the 16 filled with zeros, so a chunk outside the matrix costs no read.
 */
static __device__ __forceinline__ void ptx_cp_async_16(void *to, const void *from, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(to)),
                 "l"(from), "r"(bytes)
                 : "memory");
}

/** Closes this thread's cp.async copies issued so far into one group. */
static __device__ __forceinline__ void ptx_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/** Waits until at most @p pending of this thread's newest groups are still in flight (the count
 * is an immediate in PTX: a constant argument folds the switch to one instruction). */
static __device__ __forceinline__ void ptx_cp_async_wait_group(int pending)
{
    switch (pending) {
    case 0: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
    default: asm volatile("cp.async.wait_all;\n" ::: "memory"); break; /* waits for more */
    }
}

/** Four 8 × 8 BF16 matrices from shared memory into a warp's registers: lane l gives the address
 * of row l % 8 of matrix l / 8, and receives in r[i] its two elements of matrix i, the layout
 * mma.sync's operands take. */
static __device__ __forceinline__ void ptx_ldmatrix_x4(unsigned *r, const void *address)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"((unsigned)__cvta_generic_to_shared(address)));
}

/** ptx_ldmatrix_x4, each matrix transposed on the way (B's rows become mma's columns). */
static __device__ __forceinline__ void ptx_ldmatrix_x4_trans(unsigned *r, const void *address)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"((unsigned)__cvta_generic_to_shared(address)));
}

/** acc (16 × 8, FP32) += a (16 × 16 BF16, row-major) · b (16 × 8 BF16, column-major), for the
 * whole warp: each lane holds 4 of acc, 8 of a (4 registers) and 4 of b (2). */
static __device__ __forceinline__ void ptx_mma_m16n8k16_bf16(float *acc, const unsigned *a,
                                                             const unsigned *b)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

#endif

/** Lets a grid launched as this one's programmatic dependent start (sm_90 on; nothing before): it
 * may run before this grid ends, until its own ptx_griddep_wait(). */
static __device__ __forceinline__ void ptx_griddep_launch_dependents(void)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/** Waits until the grids this one was launched as a programmatic dependent of have finished and
 * their writes are visible (at once for an ordinary launch; nothing before sm_90). */
static __device__ __forceinline__ void ptx_griddep_wait(void)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

#if PTX_HAVE_WGMMA

/** A shared-memory pointer as the 32-bit address PTX's shared state space uses. */
static __device__ __forceinline__ uint32_t ptx_smem_address(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/**
 * The 64-bit descriptor wgmma reads an operand tile through, for the 128-byte swizzle: rows of
 * 128 bytes in groups of 8 (1024 bytes, 1024-aligned), each row's 16-byte chunks XOR-permuted by
 * the row's index within its group, as TMA's CU_TENSOR_MAP_SWIZZLE_128B writes them. Addresses and
 * offsets are in 16-byte units. For a K-major operand the stride offset is the distance between
 * groups of 8 rows (M or N) and the leading offset is unused; for an MN-major one the stride offset
 * is the distance between groups of 8 rows of K and the leading offset the distance between
 * 64-element (128-byte) column blocks of M or N.
 */
static __device__ __forceinline__ uint64_t ptx_wgmma_descriptor(uint32_t address,
                                                                uint32_t leading_bytes,
                                                                uint32_t stride_bytes)
{
    return (uint64_t)((address & 0x3FFFF) >> 4) | (uint64_t)((leading_bytes & 0x3FFFF) >> 4) << 16 |
           (uint64_t)((stride_bytes & 0x3FFFF) >> 4) << 32 | 1ull << 62; /* 1: 128-byte swizzle */
}

/** Orders this thread's earlier register and shared-memory accesses before the wgmmas that follow.
 */
static __device__ __forceinline__ void ptx_wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/** Closes the group of wgmmas issued since the last commit. */
static __device__ __forceinline__ void ptx_wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/** Waits until every committed group has finished: the accumulators may be read. */
static __device__ __forceinline__ void ptx_wgmma_wait_all(void)
{
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

/** Waits until at most one committed group is still running (the one just issued). */
static __device__ __forceinline__ void ptx_wgmma_wait_all_but_one(void)
{
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
}

/**
 * D (64 × 256, FP32, in 128 registers per thread of the warpgroup) += A (64 × 16, K-major) ·
 * B (16 × 256, N-major), both BF16 in shared memory behind their descriptors; with
 * @p accumulate 0, D = A·B. Thread t of the warpgroup holds, for j = 0 … 31, d[4j + e] =
 * D[16·(t/32) + (t%32)/4 + 8·(e/2)][8j + 2·(t%4) + e%2].
 */
static __device__ __forceinline__ void ptx_wgmma_m64n256k16_bf16(float *d, uint64_t desc_a,
                                                                 uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,\n"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,\n"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,\n"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,\n"
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,\n"
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,\n"
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "
        "%111,\n"
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "
        "%127},\n"
        "%128, %129, p, 1, 1, 0, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

/** ptx_wgmma_m64n256k16_bf16() for a B of 16 × 64 (D: 64 × 64, 32 registers, the same layout
 * for j = 0 … 7). */
static __device__ __forceinline__ void ptx_wgmma_m64n64k16_bf16(float *d, uint64_t desc_a,
                                                                uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,\n"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},\n"
        "%32, %33, p, 1, 1, 0, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

/** Makes this thread's ordinary shared-memory writes visible to the tensor cores and the copy
 * engine (the "async proxy"), which do not see them through a barrier alone. */
static __device__ __forceinline__ void ptx_fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/** Sets up an mbarrier in shared memory that completes when @p count threads have arrived. */
static __device__ __forceinline__ void ptx_mbarrier_init(uint64_t *barrier, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(ptx_smem_address(barrier)),
                 "r"(count)
                 : "memory");
}

/** Makes initialised mbarriers visible to the copy engine. */
static __device__ __forceinline__ void ptx_fence_barrier_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/** Arrives on @p barrier and tells it to wait, too, for @p bytes from the copy engine. */
static __device__ __forceinline__ void ptx_mbarrier_arrive_expect_bytes(uint64_t *barrier,
                                                                        unsigned bytes)
{
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(ptx_smem_address(barrier)),
        "r"(bytes)
        : "memory");
}

/** Arrives on @p barrier (one of its count). */
static __device__ __forceinline__ void ptx_mbarrier_arrive(uint64_t *barrier)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(ptx_smem_address(barrier))
                 : "memory");
}

/** Waits until the phase of @p barrier with parity @p phase has completed. */
static __device__ __forceinline__ void ptx_mbarrier_wait(uint64_t *barrier, unsigned phase)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "wait_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait_%=;\n"
                 "}\n" ::"r"(ptx_smem_address(barrier)),
                 "r"(phase)
                 : "memory");
}

/**
 * Starts the copy engine on one box of a 2-D tensor map (its inner coordinate @p x, outer @p y,
 * in elements) into shared memory at @p destination; @p barrier receives the bytes. Elements of
 * the box outside the tensor arrive as zeros.
 */
static __device__ __forceinline__ void ptx_tma_load_2d(void *destination, const void *tensor_map,
                                                       int x, int y, uint64_t *barrier)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(ptx_smem_address(destination)),
                 "l"(tensor_map), "r"(x), "r"(y), "r"(ptx_smem_address(barrier))
                 : "memory");
}

/**
 * Starts the copy engine on one box from shared memory at @p source into a 2-D tensor map at its
 * inner coordinate @p x, outer @p y; parts of the box outside the tensor are not written. The copy
 * joins this thread's current bulk group (ptx_bulk_commit()).
 */
static __device__ __forceinline__ void ptx_tma_store_2d(const void *tensor_map, const void *source,
                                                        int x, int y)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
            tensor_map),
        "r"(ptx_smem_address(source)), "r"(x), "r"(y)
        : "memory");
}

/**
 * ptx_tma_store_2d(), but the copy engine adds the box to what the tensor holds (FP32 adds done in
 * L2, each element's add atomic): partial results of one tile from several blocks sum in place.
 */
static __device__ __forceinline__ void ptx_tma_reduce_add_2d(const void *tensor_map,
                                                             const void *source, int x, int y)
{
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
                 " [%0, {%2, %3}], [%1];\n" ::"l"(tensor_map),
                 "r"(ptx_smem_address(source)), "r"(x), "r"(y)
                 : "memory");
}

/** Closes this thread's current bulk group of TMA stores. */
static __device__ __forceinline__ void ptx_bulk_commit(void)
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/** Waits until the copy engine has read the shared memory of all this thread's bulk groups, so
 * that it may be written again (the global writes may still be under way). */
static __device__ __forceinline__ void ptx_bulk_wait_read_all(void)
{
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

/** Waits until all this thread's bulk groups are complete, global writes included. */
static __device__ __forceinline__ void ptx_bulk_wait_all(void)
{
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/** A barrier for @p threads threads (a multiple of 32) on hardware barrier @p id (1 to 15; 0 is
 * __syncthreads()'s), so that one warpgroup can meet without the others. */
static __device__ __forceinline__ void ptx_named_barrier(int id, int threads)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/** This block's rank in its thread-block cluster (0 to the cluster's size − 1). */
static __device__ __forceinline__ unsigned ptx_cluster_rank(void)
{
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    return rank;
}

/** All threads of all blocks of the cluster meet: what each block wrote to its shared memory
 * (barriers included) before is visible to the others after. */
static __device__ __forceinline__ void ptx_cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
}

/** All threads of all blocks of the cluster meet, the arrive relaxed (no release: nothing written
 * before it is made visible by it) and the wait still acquiring: for a meeting whose writes are
 * already published, as mbarrier set-ups are by ptx_fence_barrier_init(), which the PTX ISA pairs
 * with a relaxed arrive. Without the release, the compiler emits no memory barrier (`MEMBAR`,
 * `ERRBAR`) before the arrive. */
static __device__ __forceinline__ void ptx_cluster_sync_relaxed(void)
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n"
                 "barrier.cluster.wait.aligned;\n" ::
                     : "memory");
}

/** Arrives on the mbarrier at the same place as @p barrier in the shared memory of the cluster's
 * block @p rank (this block's own included). */
static __device__ __forceinline__ void ptx_mbarrier_arrive_cluster(uint64_t *barrier, unsigned rank)
{
    asm volatile("{\n"
                 ".reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
                 "}\n" ::"r"(ptx_smem_address(barrier)),
                 "r"(rank)
                 : "memory");
}

/**
 * ptx_tma_load_2d() into the shared memory of every block of the cluster named in @p mask (bit r:
 * rank r), at the same place as @p destination, each completing on its own mbarrier at the same
 * place as @p barrier: one read of L2 for several blocks.
 */
static __device__ __forceinline__ void ptx_tma_load_2d_multicast(void *destination,
                                                                 const void *tensor_map, int x,
                                                                 int y, uint64_t *barrier,
                                                                 uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(
                     ptx_smem_address(destination)),
                 "l"(tensor_map), "r"(x), "r"(y), "r"(ptx_smem_address(barrier)), "h"(mask)
                 : "memory");
}

/** A warpgroup's register limit per thread, moved (setmaxnreg, all 128 threads at once): down to
 * 40 for a producer that only issues copies, up to 232 for the two consumers that hold the
 * accumulators (128 × 40 + 256 × 232 = 64,512 of the SM's 65,536 registers). */
static __device__ __forceinline__ void ptx_setmaxnreg_dec_40(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
}

static __device__ __forceinline__ void ptx_setmaxnreg_inc_232(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
}

#endif /* PTX_HAVE_WGMMA */

/* ---- Host side: the tensor maps the copy engine reads through ------------------------------ */
#include <cuda.h>         /* CUtensorMap (types only: the function comes from the driver, below) */
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

/**
 * Describes a row-major matrix of @p rows × @p cols elements of @p type (@p element_bytes each;
 * row pitch @p pitch elements, a multiple of 16 bytes: TMA's stride rule) to the copy engine, in
 * boxes of @p box_rows × @p box_cols whose rows are at most 128 bytes, laid out in shared memory
 * with the 128-byte swizzle. A load fills the parts of a box outside the matrix with zeros; a
 * store leaves them out. The driver's encoder is looked up once through the runtime, so the
 * program needs no -lcuda.
 */
static inline void tma_map_2d(CUtensorMap *map, CUtensorMapDataType type, int element_bytes,
                              const void *matrix, int rows, int cols, int pitch, int box_rows,
                              int box_cols)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode;
    if (encode == NULL) {
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                             cudaEnableDefault, &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess) {
            fprintf(stderr, "the driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12)\n");
            exit(1);
        }
    }
    const cuuint64_t size[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t stride[1] = {(cuuint64_t)pitch * element_bytes}; /* bytes between rows */
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t step[2] = {1, 1};
    const CUresult result =
        encode(map, type, 2, (void *)matrix, size, stride, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed (error %d)\n", (int)result);
        exit(1);
    }
}

/** tma_map_2d() for BF16 (@p pitch a multiple of 8; 64-column boxes fill a 128-byte row). */
static inline void tma_map_bf16(CUtensorMap *map, const void *matrix, int rows, int cols, int pitch,
                                int box_rows, int box_cols)
{
    tma_map_2d(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, matrix, rows, cols, pitch, box_rows,
               box_cols);
}

/** tma_map_2d() for FP32 (@p pitch a multiple of 4; 32-column boxes fill a 128-byte row). */
static inline void tma_map_f32(CUtensorMap *map, const void *matrix, int rows, int cols, int pitch,
                               int box_rows, int box_cols)
{
    tma_map_2d(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, matrix, rows, cols, pitch, box_rows,
               box_cols);
}

#endif
