/**
 * @file v10_implicit_gemm.cu
 * @brief v10: implicit GEMM — v9's matrix product without v9's copy. The SGEMM kernel is lesson
 * 02's v10 (128 × 256 tiles, 16 × 8 outputs per thread, cp.async double buffering, operands read
 * one k ahead); only the loads of its B tile change: row ck = ci·K + j, column i of the im2col
 * matrix is x[b][ci][i + j − r], so each row of a B tile is a contiguous (shifted) run of one input
 * row, copied straight from x into shared memory. Nothing is written to a workspace, and the
 * K-fold copy that took a third of v9's time is gone.
 *
 * A row's shift j − r makes its start 16-byte aligned only when it is a multiple of 4: such rows
 * go in 16-byte copies, the others in four 4-byte ones (the 32 threads of a warp copy one row, so
 * the choice never splits a warp). Tiles at the ends of the signal (where the shift reaches past
 * them) and past the weights' last row or column take checked loads with zero padding. The tile
 * is 128 output channels tall: at C = 64 half of it multiplies zeros, and with one channel nearly
 * all of it — a kernel for C ≥ 128, correct but slow elsewhere.
 */
#define BM         128
#define BN         256
#define TM         16 /* rows per thread: 4 groups of 4, 16 apart */
#define WARP_M     64
#define WARPS_N    4 /* 2 × 4 warps of 64 × 64: 256 threads */
#define MIN_BLOCKS 1 /* 223 registers: one block per SM */

#include "implicit_gemm.cuh"

/* K is known only at run time: an integer division routine. */
static __device__ int channel_of(int ck, const layer *g)
{
    return ck / g->mask;
}
