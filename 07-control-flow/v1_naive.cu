/**
 * @file v1_naive.cu
 * @brief Version 1, as a student writes it from the slides: one thread per pixel on a 1D grid,
 * the pixel's row and column from a run-time division by W (i / W, i % W on 64-bit indices), an
 * `unsigned` counter, the escape test on every iteration, and the double literal the slides warn
 * about — `2.0 * x * y` promotes the product to double (F2F conversions and DMUL/DFMA, at half
 * the FP32 rate on the H100) and rounds back to float. The colour uses logf and IEEE divisions.
 * The rest of the iteration uses round-to-nearest intrinsics in a fixed order, so that the CPU
 * reference reproduces every escape count bit for bit (see the page).
 */
#include "colour.cuh"
#include "mandelbrot.h"
#include "pinned.cuh"

#include "cl_cuda_check.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_DOUBLE_LITERAL;

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
        y = 2.0 * x * y + cy; /* double: 2.0 is a double literal */
        x = __fadd_rn(__fsub_rn(x2, y2), cx);
        x2 = __fmul_rn(x, x);
        y2 = __fmul_rn(y, y);
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
