/**
 * @file v9_tile_queue.cu
 * @brief v9: v8 with load balance between warps: a grid of resident blocks in which every warp
 * pulls its next 8 × 4 tile from a global counter. A dead end, kept to be measured.
 *
 * Boundary tiles cost a thousand times more than exterior ones, and in v8 a block of 8 warps
 * holds its slot on the SM until its slowest warp is done. Here a grid of resident blocks stays on
 * the GPU and every warp pulls the next 8 × 4 tile from a global atomic counter as soon as it
 * finishes one: no warp waits for another. The cost: one atomic on one address per 32 pixels (on
 * the full view over half a billion a second, all at one address), and a run-time division per
 * tile. The hardware's block scheduler already hands out v8's 65,536 blocks dynamically, so there
 * is little imbalance left to win: the page measures what is left. Each pixel runs v8's loop.
 */
#include "mandelbrot.h"
#include "points.cuh"

#include "cl_cuda_check.h"
#include "cl_device.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_PINNED;

#define BLOCK  256
#define TILE_X 8
#define TILE_Y 4
#define UNROLL 16
#define HALF   (UNROLL / 2)

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

static __device__ void render_pixel(const mandel_params *p, unsigned px, unsigned py,
                                    unsigned *counts, float *smooth)
{
    const size_t i = (size_t)py * p->width + px;
    const float cx = point_x(p, px);
    const float cy = point_y(p, py);
    float x = 0.0f, y = 0.0f, x2 = 0.0f, y2 = 0.0f;
    unsigned count = 0;
    while (count + UNROLL <= p->maxiter) {
        const float x_start = x, y_start = y;
#pragma unroll
        for (int k = 0; k < HALF; k++) {
            step_z(cx, cy, &x, &y, &x2, &y2);
        }
        const float x_half = x, y_half = y, x2_half = x2, y2_half = y2;
#pragma unroll
        for (int k = HALF; k < UNROLL; k++) {
            step_z(cx, cy, &x, &y, &x2, &y2);
        }
        if (!(__fadd_rn(x2, y2) <= 4.0f)) { /* escaped in this block (or overflowed to NaN) */
            if (__fadd_rn(x2_half, y2_half) <= 4.0f) { /* not in the first half: resume there */
                x = x_half, y = y_half, x2 = x2_half, y2 = y2_half;
                count += HALF;
            } else {
                x = x_start;
                y = y_start;
                x2 = __fmul_rn(x, x);
                y2 = __fmul_rn(y, y);
            }
            break;
        }
        count += UNROLL;
    }
    /* the exact end: at most HALF single steps from the escaping half, or the last < UNROLL */
    while (count < p->maxiter && __fadd_rn(x2, y2) <= 4.0f) {
        step_z(cx, cy, &x, &y, &x2, &y2);
        count++;
    }
    counts[i] = count;
    smooth[i] = smooth_value(count, __fadd_rn(x2, y2), p->maxiter);
}

__global__ void __launch_bounds__(BLOCK)
    mandel_kernel(mandel_params p, unsigned *counts, float *smooth, unsigned *next_tile)
{
    const unsigned lane = threadIdx.x % 32;
    const unsigned tiles_x = (p.width + TILE_X - 1) / TILE_X;
    const unsigned tiles = tiles_x * ((p.width + TILE_Y - 1) / TILE_Y);
    for (;;) {
        unsigned tile = 0;
        if (lane == 0)
            tile = atomicAdd(next_tile, 1u);
        tile = __shfl_sync(0xffffffffu, tile, 0);
        if (tile >= tiles)
            return;
        const unsigned px = tile % tiles_x * TILE_X + lane % TILE_X;
        const unsigned py = tile / tiles_x * TILE_Y + lane / TILE_X;
        if (px < p.width && py < p.width)
            render_pixel(&p, px, py, counts, smooth);
    }
}

size_t mandel_workspace_bytes(const mandel_params *p)
{
    (void)p;
    return sizeof(unsigned);
}

void mandel_render(const mandel_params *p, unsigned *counts, float *smooth, void *workspace,
                   cudaStream_t stream)
{
    unsigned *next_tile = (unsigned *)workspace;
    CL_CUDA_CHECK(cudaMemsetAsync(next_tile, 0, sizeof *next_tile, stream));
    const size_t blocks = cl_resident_blocks((const void *)mandel_kernel, BLOCK, 0);
    mandel_kernel<<<(unsigned)blocks, BLOCK, 0, stream>>>(*p, counts, smooth, next_tile);
    CL_CUDA_CHECK(cudaGetLastError());
}
