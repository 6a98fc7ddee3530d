/**
 * @file v2_float_literal.cu
 * @brief v2: v1 with `2.0f` instead of `2.0`.
 *
 * The product 2xy + cy stays in float: one FFMA after an exact doubling, where v1 converted x, y
 * and cy to double (F2F), multiplied and added in double and converted back. The SASS shows the F2F
 * and the DFMA and DADD gone (the page). Four conversions and two double operations per
 * iteration, on units narrower than the FP32 pipes, cost the H100 more than twice the time; on a
 * GPU whose FP64 runs at 1/64 of FP32 (most GeForce cards) the double literal costs far more. The
 * step is now all float, in the pinned arithmetic that every later version keeps and the check
 * replays bit for bit.
 */
#include "mandelbrot.h"
#include "points.cuh"

#include "cl_cuda_check.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_PINNED;

#define BLOCK 256

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

__global__ void __launch_bounds__(BLOCK)
    mandel_kernel(mandel_params p, unsigned *counts, float *smooth)
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
    const size_t pixels = (size_t)p->width * p->width;
    const unsigned blocks = (unsigned)((pixels + BLOCK - 1) / BLOCK);
    mandel_kernel<<<blocks, BLOCK, 0, stream>>>(*p, counts, smooth);
    CL_CUDA_CHECK(cudaGetLastError());
}
