/**
 * @file v3_grid_2d.cu
 * @brief Version 3: a 2D grid of 32 × 8 blocks, so that a thread's column and row are its block
 * and thread indices — no division by the run-time width W. v1/v2 divided a 64-bit index by W
 * once per pixel (a software routine: the GPU has no integer divider; the page counts its SASS); a
 * division by a constant power of two, such as the 8 and 4 of the next version, the compiler
 * already turns into a shift and a mask by itself (the page's SASS), so the slides' advice to
 * write the shift by hand changes nothing. Once per pixel against hundreds of iterations, the
 * division was never going to matter much: the table says how little.
 */
#include "colour.cuh"
#include "mandelbrot.h"
#include "pinned.cuh"

#include "cl_cuda_check.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_PINNED;

#define BLOCK_X 32
#define BLOCK_Y 8

__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    mandel_grid_2d(mandel_params p, unsigned *counts, float *smooth)
{
    const unsigned px = blockIdx.x * BLOCK_X + threadIdx.x;
    const unsigned py = blockIdx.y * BLOCK_Y + threadIdx.y;
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
    const dim3 block(BLOCK_X, BLOCK_Y);
    const dim3 grid((p->width + BLOCK_X - 1) / BLOCK_X, (p->width + BLOCK_Y - 1) / BLOCK_Y);
    mandel_grid_2d<<<grid, block, 0, stream>>>(*p, counts, smooth);
    CL_CUDA_CHECK(cudaGetLastError());
}
