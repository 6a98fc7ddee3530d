/**
 * @file v14_transposed_weights.cu
 * @brief v14: v12 with the weights transposed once per call into the workspace, so that each
 * thread copies its part of the A tile with one 16-byte cp.async per k step instead of four 4-byte
 * ones.
 *
 * The A tile sits in shared memory transposed (a row of k holds BM output channels) so that a
 * thread reads its 8 weights of a k as two 16-byte loads. From w as stored (C_out × C·K,
 * row-major) the 4 weights a thread copies are 4 rows apart in shared memory, and cp.async cannot
 * scatter: four 4-byte copies. From wt = wᵀ (C·K × C_out) they are 4 consecutive floats both in
 * global and in shared memory: one 16-byte copy, three fewer copy instructions and their address
 * arithmetic per thread per k step (of about 50 besides 512 FFMAs). The transposition is a second
 * launch on the stream, C·C·K floats read and written (192 KB at C = 128, K = 3): a few
 * microseconds, counted in every timed call. The same change on v7's direct path, whose
 * misaligned 4-byte input copies dominated, bought 2-3% (the tries); here the inputs are copied
 * as v12 copies them and the weights' copies are what is left.
 */
#define BM                 64
#define BN                 128
#define TM                 8 /* rows per thread: 2 groups of 4, 16 apart */
#define WARP_M             32
#define WARPS_N            2 /* 2 × 2 warps of 32 × 64: 128 threads */
#define MIN_BLOCKS         4 /* 115 registers: four blocks per SM */
#define WEIGHTS_TRANSPOSED 1

#include "implicit_gemm.cuh"

/* umulhi(2·ck, ⌈2^31 / K⌉) = ck / K exactly for every ck here (the bound is in v12's header). */
static __device__ int channel_of(int ck, const layer *g)
{
    return (int)__umulhi(2u * (unsigned)ck, g->mask_inverse);
}
