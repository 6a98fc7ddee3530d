/**
 * @file v6_fast_colour.cu
 * @brief v6: v5 with the colour from the hardware's approximate log2 (`__log2f`, one MUFU.LG2
 * each) instead of logf and two IEEE divisions.
 *
 * The slides' `__sinf`/`__expf`/-use_fast_math advice, applied where this kernel calls a math
 * function. Written as log2, the smooth value
 * needs no division at all, so `__fdividef` has nothing left to replace. The accuracy lost is in
 * the page's error column (the same check and tolerance as before). The colour runs once per
 * pixel against hundreds of iterations: expect little. The iteration keeps its pinned
 * intrinsics; a whole-file -use_fast_math would flush their subnormals to zero too (-ftz=true:
 * __fadd_rn becomes add.rn.ftz), which the pinned reference does not do.
 */
#include "mandelbrot.h"
#include "points.cuh"

#include "cl_cuda_check.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_PINNED;

#define BLOCK_X 32 /* pixels: 4 warp tiles across */
#define BLOCK_Y 8  /* pixels: 2 warp tiles down */
#define TILE_X  8
#define TILE_Y  4
#define UNROLL  4

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
   one that never escaped: __log2f twice (MUFU.LG2, one instruction each, absolute error about
   2^-22 near 1). log2 needs no division by ln 2, so there is nothing left for __fdividef. */
static __device__ __forceinline__ float smooth_value(unsigned count, float r2, unsigned maxiter)
{
    if (count >= maxiter)
        return (float)maxiter;
    return (float)count + 1.0f - __log2f(0.5f * __log2f(r2));
}

__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    mandel_kernel(mandel_params p, unsigned *counts, float *smooth)
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
    while (count + UNROLL <= p.maxiter) {
        const float x_start = x, y_start = y;
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            step_z(cx, cy, &x, &y, &x2, &y2);
        }
        if (!(__fadd_rn(x2, y2) <= 4.0f)) { /* escaped in this block (or overflowed to NaN) */
            x = x_start;
            y = y_start;
            x2 = __fmul_rn(x, x);
            y2 = __fmul_rn(y, y);
            break;
        }
        count += UNROLL;
    }
    /* the exact end: single steps from the escaping block's start, or the last < UNROLL steps */
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
    const dim3 grid((p->width + BLOCK_X - 1) / BLOCK_X, (p->width + BLOCK_Y - 1) / BLOCK_Y);
    mandel_kernel<<<grid, BLOCK_X * BLOCK_Y, 0, stream>>>(*p, counts, smooth);
    CL_CUDA_CHECK(cudaGetLastError());
}
