/**
 * @file v11_small_tiles.cu
 * @brief v11: v10 with tiles cut to the layer: 64 output channels by 128 positions per block and
 * 8 × 8 outputs per thread, so that C = 64 fills its tile and four blocks share an SM.
 *
 * v10's tile is lesson 02's, built for square products of thousands: 128 rows, 256 columns,
 * 16 × 8 outputs per thread, 223 registers, one block of 8 warps per SM. A layer's product is
 * short and flat (C_out = 64 or 128 rows, C·K = 448 or 384 deep): at C = 64 half of v10's rows
 * multiply zeros, and with one block per SM each block's first copies and last stores stand alone,
 * nothing else on the SM to hide them. Here a block is 4 warps of 2 × 2, a warp 32 × 64 outputs,
 * a thread 8 × 8 (two groups of 4 rows 16 apart, two of 4 columns 32 apart): 120 registers, four
 * blocks per SM, 16 warps to interleave. Each thread now does 512 multiply-adds per k step for the
 * same copies, so the copy's share of the instructions doubles: v12 goes after it.
 */
#define BM         64
#define BN         128
#define TM         8 /* rows per thread: 2 groups of 4, 16 apart */
#define WARP_M     32
#define WARPS_N    2 /* 2 × 2 warps of 32 × 64: 128 threads */
#define MIN_BLOCKS 4 /* 120 registers: four blocks per SM */

#include "implicit_gemm.cuh"

/* K is known only at run time: an integer division routine. */
static __device__ int channel_of(int ck, const layer *g)
{
    return ck / g->mask;
}
