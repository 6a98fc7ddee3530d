/**
 * @file v10_lane_refill.cu
 * @brief v10: v9 with load balance inside the warp: every lane takes a new pixel from a global
 * queue as soon as its own is done. A dead end, kept as the measured counter-example.
 *
 * Until v9 a lane whose pixel escaped waited, idle, for the slowest lane of its tile (ncu counts
 * the lanes active per instruction on the boundary view: the page). Here the warp runs v8's
 * blocks of UNROLL = 16 iterations, with their checkpoint, until some lane finishes (one vote per
 * block); the finished lanes step to the end, write their pixel and take the next ones — one
 * atomic per warp for all of them, each lane's index from a ballot and a popc. It removes the idle
 * lanes and loses anyway: what v9 paid once per 32 pixels with all lanes together (the single
 * steps after the last block, the colour, the stores, the setup of the next pixel) is now paid by
 * the whole warp for every one or two lanes that finish, which on the boundary view happens
 * almost every block.
 */
#include "mandelbrot.h"
#include "points.cuh"

#include "cl_cuda_check.h"
#include "cl_device.h"

const mandel_arithmetic mandel_version_arithmetic = MANDEL_PINNED;

#define BLOCK     256
#define UNROLL    16
#define HALF      (UNROLL / 2)
#define ALL_LANES 0xffffffffu

/** The lane's pixel and its state between blocks. */
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

typedef struct {
    unsigned pixel, count;
    float cx, cy, x, y, x2, y2;
    int busy; /* holds a pixel not yet written */
    int done; /* the queue is empty */
} lane_state;

/** Gives every lane that wants one (not busy, not done) the next pixel of the queue. */
static __device__ void refill(lane_state *s, const mandel_params *p, unsigned long long *next_pixel)
{
    const unsigned lane = threadIdx.x % 32;
    const int wants = !s->busy && !s->done;
    const unsigned wanting = __ballot_sync(ALL_LANES, wants);
    if (wanting == 0)
        return;
    const int leader = __ffs(wanting) - 1;
    unsigned long long base = 0;
    if (lane == (unsigned)leader)
        base = atomicAdd(next_pixel, (unsigned long long)__popc(wanting));
    base = __shfl_sync(ALL_LANES, base, leader);
    if (!wants)
        return;
    const unsigned long long pixel = base + __popc(wanting & ((1u << lane) - 1));
    if (pixel >= (unsigned long long)p->width * p->width) {
        s->done = 1;
        return;
    }
    s->pixel = (unsigned)pixel; /* W <= 65535: below 2^32 */
    const unsigned px = s->pixel % p->width, py = s->pixel / p->width;
    s->cx = point_x(p, px);
    s->cy = point_y(p, py);
    s->x = s->y = s->x2 = s->y2 = 0.0f;
    s->count = 0;
    s->busy = 1;
}

__global__ void __launch_bounds__(BLOCK)
    mandel_kernel(mandel_params p, unsigned *counts, float *smooth, unsigned long long *next_pixel)
{
    lane_state s;
    s.busy = s.done = 0;
    for (;;) {
        refill(&s, &p, next_pixel);
        if (__all_sync(ALL_LANES, !s.busy))
            return;
        /* blocks of UNROLL steps until some lane of the warp has finished its pixel */
        int finish;
        do {
            finish = s.busy && s.count + UNROLL > p.maxiter;
            if (s.busy && !finish) {
                float x = s.x, y = s.y, x2 = s.x2, y2 = s.y2;
#pragma unroll
                for (int k = 0; k < HALF; k++) {
                    step_z(s.cx, s.cy, &x, &y, &x2, &y2);
                }
                const float x_half = x, y_half = y, x2_half = x2, y2_half = y2;
#pragma unroll
                for (int k = HALF; k < UNROLL; k++) {
                    step_z(s.cx, s.cy, &x, &y, &x2, &y2);
                }
                if (__fadd_rn(x2, y2) <= 4.0f) { /* not escaped: keep the block */
                    s.x = x, s.y = y, s.x2 = x2, s.y2 = y2;
                    s.count += UNROLL;
                } else { /* escaped in the block (or NaN): finish from the half that escaped */
                    if (__fadd_rn(x2_half, y2_half) <= 4.0f) {
                        s.x = x_half, s.y = y_half, s.x2 = x2_half, s.y2 = y2_half;
                        s.count += HALF;
                    }
                    finish = 1;
                }
            }
        } while (!__any_sync(ALL_LANES, finish));
        if (finish) { /* the exact end, at most HALF single steps, then the next pixel */
            float x = s.x, y = s.y, x2 = s.x2, y2 = s.y2;
            unsigned count = s.count;
            while (count < p.maxiter && __fadd_rn(x2, y2) <= 4.0f) {
                step_z(s.cx, s.cy, &x, &y, &x2, &y2);
                count++;
            }
            counts[s.pixel] = count;
            smooth[s.pixel] = smooth_value(count, __fadd_rn(x2, y2), p.maxiter);
            s.busy = 0;
        }
    }
}

size_t mandel_workspace_bytes(const mandel_params *p)
{
    (void)p;
    return sizeof(unsigned long long);
}

void mandel_render(const mandel_params *p, unsigned *counts, float *smooth, void *workspace,
                   cudaStream_t stream)
{
    unsigned long long *next_pixel = (unsigned long long *)workspace;
    CL_CUDA_CHECK(cudaMemsetAsync(next_pixel, 0, sizeof *next_pixel, stream));
    const size_t blocks = cl_resident_blocks((const void *)mandel_kernel, BLOCK, 0);
    mandel_kernel<<<(unsigned)blocks, BLOCK, 0, stream>>>(*p, counts, smooth, next_pixel);
    CL_CUDA_CHECK(cudaGetLastError());
}
