/**
 * @file v5_unrolled.cu
 * @brief Version 5: the escape test once per UNROLL = 4 iterations, the 4 unrolled with
 * `#pragma unroll`. Per iteration v4 issued the 6 FP32 instructions of the step plus the test
 * (FADD, FSETP), the count (IADD, ISETP) and the branch; here those 5 come once per 4 steps. An
 * escape is absorbing (once |z| > 2, |z| keeps growing), so an escape inside the block still shows
 * at its end; the block then steps back to its saved start and finishes one iteration at a time,
 * so the count is exact. The cost: two more live registers (the saved z) and a longer body.
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
#define UNROLL  4

__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    mandel_unrolled(mandel_params p, unsigned *counts, float *smooth)
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
            pinned_step(cx, cy, &x, &y, &x2, &y2);
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
    mandel_unrolled<<<grid, BLOCK_X * BLOCK_Y, 0, stream>>>(*p, counts, smooth);
    CL_CUDA_CHECK(cudaGetLastError());
}
