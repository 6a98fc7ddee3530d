/**
 * @file v3_grid_2d.cu
 * @brief v3: v2 with a 2D grid of 32 × 8 blocks, so that a thread's column and row are its block
 * and thread indices — no division by the run-time width W.
 *
 * v1/v2 divided a 64-bit index by W
 * once per pixel (a software routine: the GPU has no integer divider; the page counts its SASS); a
 * division by a constant power of two, such as the 8 and 4 of the next version, the compiler
 * already turns into a shift and a mask by itself (the page's SASS), so the slides' advice to
 * write the shift by hand changes nothing. Once per pixel against hundreds of iterations, the
 * division was never going to matter much: the page's table says how little.
 */
#include "mandelbrot.h"
#include "points.cuh"

#include "cl_cuda_check.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_PINNED;

#define BLOCK_X 32
#define BLOCK_Y 8

/* One iteration z <- z^2 + c. On entry x2 and y2 hold x^2 and y^2 of the current z; on return, of
   the new z, which is what the escape test |z|^2 = x^2 + y^2 > 4 reads. Six FP32 instructions,
   each rounded to nearest by an intrinsic the compiler never contracts or reorders, as
   reference.c replays them (MANDEL_PINNED). */
static __device__ __forceinline__ void step_z(float cx, float cy, float *x, float *y, float *x2,
                                              float *y2)
{
    *y = __fmaf_rn(2.0f * *x, *y, cy);
    *x = __fadd_rn(__fsub_rn(*x2, *y2), cx);
    *x2 = __fmul_rn(*x, *x);
    *y2 = __fmul_rn(*y, *y);
}

/* The smooth value count + 1 - log2(log2 |z|) of an escaped pixel (r2 = |z|^2 > 4), maxiter for
   one that never escaped: logf twice and two divisions by ln 2, about 70 instructions, accurate
   to a few ulp. */
static __device__ __forceinline__ float smooth_value(unsigned count, float r2, unsigned maxiter)
{
    if (count >= maxiter)
        return (float)maxiter;
    const float ln2 = 0.693147181f;
    const float log2_abs_z = logf(r2) / 2.0f / ln2; /* log2 |z| = ln |z|^2 / 2 / ln 2 */
    return (float)count + 1.0f - logf(log2_abs_z) / ln2;
}

__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    mandel_kernel(mandel_params p, unsigned *counts, float *smooth)
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
        step_z(cx, cy, &x, &y, &x2, &y2);
        count++;
    }
    counts[i] = count;
    smooth[i] = smooth_value(count, __fadd_rn(x2, y2), p.maxiter);
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
    mandel_kernel<<<grid, block, 0, stream>>>(*p, counts, smooth);
    CL_CUDA_CHECK(cudaGetLastError());
}
