/**
 * @file v4_warp_tiles.cu
 * @brief Version 4: each warp covers an 8 × 4 tile of pixels instead of 32 pixels of one row. A
 * warp runs until its slowest lane escapes, so its cost is 32 × its largest count; near the set's
 * boundary, counts are correlated in two dimensions, and a squarer tile has a smaller spread
 * than a 32-pixel line (ncu's threads per executed instruction, on the page, measures it). The
 * block is 256 threads over a 32 × 8 tile: 4 × 2 warp tiles. The / 8 and % 8 by constants
 * compile to a shift and a mask.
 */
#include "colour.cuh"
#include "mandelbrot.h"
#include "pinned.cuh"

#include "cl_cuda_check.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_PINNED;

#define BLOCK_X 32 /* pixels: 4 warp tiles across */
#define BLOCK_Y 8  /* pixels: 2 warp tiles down */
#define TILE_X  8
#define TILE_Y  4

__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    mandel_warp_tiles(mandel_params p, unsigned *counts, float *smooth)
{
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const unsigned px = blockIdx.x * BLOCK_X + warp % (BLOCK_X / TILE_X) * TILE_X + lane % TILE_X;
    const unsigned py = blockIdx.y * BLOCK_Y + warp / (BLOCK_X / TILE_X) * TILE_Y + lane / TILE_X;
    if (px >= p.width || py >= p.width)
        return;
    const size_t i = (size_t)py * p.width + px;
    const float cx = point_x(&p, px);
    const float cy = point_y(&p, py);
    float x = 0.0f, y = 0.0f, x2 = 0.0f, y2 = 0.0f;
    unsigned count = 0;
    while (count < p.maxiter && __fadd_rn(x2, y2) <= 4.0f) {
        pinned_step(cx, cy, &x, &y, &x2, &y2);
        count++;
    }
    counts[i] = count;
    smooth[i] = smooth_logf(count, __fadd_rn(x2, y2), p.maxiter);
}

size_t mandel_workspace_bytes(const mandel_params *p)
{
    (void)p;
    return 0;
}

void mandel_render(const mandel_params *p, unsigned *counts, float *smooth, void *workspace,
                   cudaStream_t stream)
{
    (void)workspace;
    const dim3 grid((p->width + BLOCK_X - 1) / BLOCK_X, (p->width + BLOCK_Y - 1) / BLOCK_Y);
    mandel_warp_tiles<<<grid, BLOCK_X * BLOCK_Y, 0, stream>>>(*p, counts, smooth);
    CL_CUDA_CHECK(cudaGetLastError());
}
