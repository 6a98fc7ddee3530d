/**
 * @file v2_float_literal.cu
 * @brief Version 2: `2.0f` instead of `2.0`. The product 2xy + cy stays in float: one FFMA after
 * an exact doubling, where v1 converted x, y and cy to double (F2F), multiplied and added in
 * double and converted back. The SASS shows the F2F and DMUL/DFMA instructions gone (the page).
 * On the H100 FP64 runs at half the FP32 rate, so the literal can cost up to 2×; on a GPU whose
 * FP64 runs at 1/64 of FP32 (most GeForce cards) the double literal costs far more. The step,
 * now all float, moves to `pinned_step` (pinned.cuh), which every later version calls: the pinned
 * arithmetic the check replays bit for bit, written once.
 */
#include "colour.cuh"
#include "mandelbrot.h"
#include "pinned.cuh"

#include "cl_cuda_check.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_PINNED;

#define BLOCK 256

__global__ void __launch_bounds__(BLOCK)
    mandel_naive(mandel_params p, unsigned *counts, float *smooth)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t width = p.width;
    if (i >= width * width)
        return;
    const unsigned px = (unsigned)(i % width), py = (unsigned)(i / width);
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
    const size_t pixels = (size_t)p->width * p->width;
    const unsigned blocks = (unsigned)((pixels + BLOCK - 1) / BLOCK);
    mandel_naive<<<blocks, BLOCK, 0, stream>>>(*p, counts, smooth);
    CL_CUDA_CHECK(cudaGetLastError());
}
