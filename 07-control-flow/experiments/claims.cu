/**
 * @file claims.cu
 * @brief The slides' claims that the lesson's versions do not test by themselves, each as a few
 * small kernels timed on the same grid: the three branch patterns, float against double, int
 * against unsigned loop counters, division by a run-time value against a power of two, and the
 * fast-math intrinsics with their accuracy. Prints one table; experiments/gpu-extras.sh commits it.
 * usage: claims
 */
#include "cl_bench.h"
#include "cl_cuda_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 256

static cl_bench g_bench;        /* the device, the stream and the events of every timing */
static unsigned g_blocks;       /* resident blocks of BLOCK threads on the whole GPU */
static const int g_work = 4096; /* loop trips per thread */

/* ---- branch patterns: two heavy paths whose loops the compiler cannot merge --------------------
 */

static __device__ float path_a(float x, int trips)
{
    float a = x, b = x + 1.0f, c = x + 2.0f, d = x + 3.0f;
    for (int k = 0; k < trips; k++) {
        a = fmaf(a, 0.999f, 0.001f), b = fmaf(b, 0.999f, 0.002f);
        c = fmaf(c, 0.999f, 0.003f), d = fmaf(d, 0.999f, 0.004f);
    }
    return a + b + c + d;
}

static __device__ float path_b(float x, int trips)
{
    float a = x, b = x - 1.0f, c = x - 2.0f, d = x - 3.0f;
    for (int k = 0; k < trips; k++) {
        a = fmaf(a, a, -0.5f), b = fmaf(b, b, -0.25f); /* one FFMA each, as path_a */
        c = fmaf(c, c, -0.125f), d = fmaf(d, d, -0.0625f);
    }
    return a + b + c + d;
}

/* pattern 0: t % 2 (every warp splits in half), 1: t < 30 (one warp of the block splits),
 * 2: (t / 32) % 2 (whole warps choose), 3: no branch (path_a for everyone) */
__global__ void __launch_bounds__(BLOCK) branches(float *out, int pattern, int trips)
{
    const int t = threadIdx.x;
    const float x = (float)(t & 7) * 0.01f;
    int take_a = 1;
    if (pattern == 0)
        take_a = t % 2 == 0;
    else if (pattern == 1)
        take_a = t < 30;
    else if (pattern == 2)
        take_a = (t / 32) % 2 == 0;
    const float r = take_a ? path_a(x, trips) : path_b(x, trips);
    if (r == 1234.5f) /* never: keeps the work alive */
        out[0] = r;
}

/* ---- float against double: 8 independent FMA chains per thread --------------------------------
 */

__global__ void __launch_bounds__(BLOCK) fma_float(float *out, int trips)
{
    float v[8];
    for (int j = 0; j < 8; j++)
        v[j] = (float)(threadIdx.x + j) * 1e-3f;
    for (int k = 0; k < trips; k++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            v[j] = fmaf(v[j], 0.999f, 0.001f);
    float s = 0.0f;
    for (int j = 0; j < 8; j++)
        s += v[j];
    if (s == 1234.5f)
        out[0] = s;
}

__global__ void __launch_bounds__(BLOCK) fma_double(float *out, int trips)
{
    double v[8];
    for (int j = 0; j < 8; j++)
        v[j] = (double)(threadIdx.x + j) * 1e-3;
    for (int k = 0; k < trips; k++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            v[j] = fma(v[j], 0.999, 0.001);
    double s = 0.0;
    for (int j = 0; j < 8; j++)
        s += v[j];
    if (s == 1234.5)
        out[0] = (float)s;
}

/* ---- int against unsigned counters in index arithmetic: a[t + k * stride], stride 1 at run time
 * -- */

__global__ void __launch_bounds__(BLOCK)
    counter_int(const float *a, float *out, int trips, int stride)
{
    float s = 0.0f;
    for (int k = 0; k < trips; k++)
        s += a[(int)threadIdx.x + k * stride];
    if (s == 1234.5f)
        out[0] = s;
}

__global__ void __launch_bounds__(BLOCK)
    counter_unsigned(const float *a, float *out, unsigned trips, unsigned stride)
{
    float s = 0.0f;
    for (unsigned k = 0; k < trips; k++)
        s += a[threadIdx.x + k * stride];
    if (s == 1234.5f)
        out[0] = s;
}

/* ---- division: by a run-time value, by the constant 32, and the hand-written shift and mask ----
 */

__global__ void __launch_bounds__(BLOCK) divide_runtime(unsigned *out, int trips, unsigned divisor)
{
    unsigned s = 0, i = blockIdx.x * BLOCK + threadIdx.x;
    for (int k = 0; k < trips; k++, i += 7919)
        s += i / divisor + i % divisor;
    if (s == 12345u)
        out[0] = s;
}

__global__ void __launch_bounds__(BLOCK) divide_constant(unsigned *out, int trips, unsigned divisor)
{
    (void)divisor;
    unsigned s = 0, i = blockIdx.x * BLOCK + threadIdx.x;
    for (int k = 0; k < trips; k++, i += 7919)
        s += i / 32 + i % 32;
    if (s == 12345u)
        out[0] = s;
}

__global__ void __launch_bounds__(BLOCK) divide_shift(unsigned *out, int trips, unsigned divisor)
{
    (void)divisor;
    unsigned s = 0, i = blockIdx.x * BLOCK + threadIdx.x;
    for (int k = 0; k < trips; k++, i += 7919)
        s += (i >> 5) + (i & 31);
    if (s == 12345u)
        out[0] = s;
}

/* ---- math functions: each evaluated on 4 independent arguments per trip -------------------------
 */

enum {
    F_SINF,
    F_FAST_SINF,
    F_EXPF,
    F_FAST_EXPF,
    F_SQRT_DIV,
    F_RSQRTF,
    F_SIN_COS,
    F_SINCOSF,
    F_COUNT
};
static const char *const function_names[F_COUNT] = {
    "sinf(x)",         "__sinf(x)", "expf(x)",           "__expf(x)",
    "1.0f / sqrtf(x)", "rsqrtf(x)", "sinf(x) + cosf(x)", "sincosf(x, &s, &c)"};

static __device__ float evaluate(int function, float x)
{
    float s, c;
    switch (function) {
    case F_SINF: return sinf(x);
    case F_FAST_SINF: return __sinf(x);
    case F_EXPF: return expf(x);
    case F_FAST_EXPF: return __expf(x);
    case F_SQRT_DIV: return 1.0f / sqrtf(x);
    case F_RSQRTF: return rsqrtf(x);
    case F_SIN_COS: return sinf(x) + cosf(x);
    default: sincosf(x, &s, &c); return s + c;
    }
}

/* the argument range of each function's accuracy test and timing */
static float argument(int function, unsigned i, unsigned count)
{
    const float u = (float)i / (float)count; /* [0, 1) */
    if (function == F_EXPF || function == F_FAST_EXPF)
        return -10.0f + 20.0f * u;
    if (function == F_SQRT_DIV || function == F_RSQRTF)
        return 0.01f + 100.0f * u;
    return -3.14159265f + 6.2831853f * u;
}

__global__ void __launch_bounds__(BLOCK) math_throughput(float *out, int function, int trips)
{
    const float base = 0.5f + (float)(threadIdx.x & 15) * 0.01f;
    float v0 = base, v1 = base + 0.1f, v2 = base + 0.2f, v3 = base + 0.3f;
    for (int k = 0; k < trips; k++) { /* the arguments move, so nothing is hoisted */
        v0 = evaluate(function, v0) * 0.5f + 1.0f, v1 = evaluate(function, v1) * 0.5f + 1.0f;
        v2 = evaluate(function, v2) * 0.5f + 1.0f, v3 = evaluate(function, v3) * 0.5f + 1.0f;
    }
    if (v0 + v1 + v2 + v3 == 1234.5f)
        out[0] = v0;
}

__global__ void __launch_bounds__(BLOCK)
    math_values(const float *x, float *y, unsigned count, int function)
{
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < count)
        y[i] = evaluate(function, x[i]);
}

static double reference_value(int function, double x)
{
    switch (function) {
    case F_SINF:
    case F_FAST_SINF: return sin(x);
    case F_EXPF:
    case F_FAST_EXPF: return exp(x);
    case F_SQRT_DIV:
    case F_RSQRTF: return 1.0 / sqrt(x);
    default: return sin(x) + cos(x);
    }
}

/* ---- timing: cl_time_launches (common/cl_bench.c), the median of 7 launches after one warm-up
 * ------------------ */

/** What a launch function gets: the variant of its kernel pair and the scratch buffer. */
typedef struct {
    int variant;
    void *buffer;
} claim_run;

static double median_ms(cl_launch_fn launch, int variant, void *buffer)
{
    claim_run run = {variant, buffer};
    return cl_time_launches(&g_bench, launch, &run, 1, 7, NULL).median_ms;
}

/* 16 waves of blocks: a block whose one warp runs both paths must not decide the kernel's end */
static void launch_branches(void *context, cudaStream_t stream)
{
    const claim_run *r = (const claim_run *)context;
    branches<<<16 * g_blocks, BLOCK, 0, stream>>>((float *)r->buffer, r->variant, g_work / 64);
}

static void launch_fma(void *context, cudaStream_t stream)
{
    const claim_run *r = (const claim_run *)context;
    if (r->variant) /* double */
        fma_double<<<g_blocks, BLOCK, 0, stream>>>((float *)r->buffer, g_work / 16);
    else
        fma_float<<<g_blocks, BLOCK, 0, stream>>>((float *)r->buffer, g_work / 2);
}

static void launch_counter(void *context, cudaStream_t stream)
{
    const claim_run *r = (const claim_run *)context;
    const float *a = (const float *)r->buffer;
    float *out = (float *)r->buffer + 15 * 8192;
    if (r->variant) /* unsigned */
        counter_unsigned<<<g_blocks, BLOCK, 0, stream>>>(a, out, (unsigned)g_work, 1u);
    else
        counter_int<<<g_blocks, BLOCK, 0, stream>>>(a, out, g_work, 1);
}

static void launch_divide(void *context, cudaStream_t stream)
{
    const claim_run *r = (const claim_run *)context;
    unsigned *out = (unsigned *)r->buffer;
    if (r->variant == 0)
        divide_runtime<<<g_blocks, BLOCK, 0, stream>>>(out, g_work, 32u);
    else if (r->variant == 1)
        divide_constant<<<g_blocks, BLOCK, 0, stream>>>(out, g_work, 32u);
    else
        divide_shift<<<g_blocks, BLOCK, 0, stream>>>(out, g_work, 32u);
}

static void launch_math(void *context, cudaStream_t stream)
{
    const claim_run *r = (const claim_run *)context;
    math_throughput<<<g_blocks, BLOCK, 0, stream>>>((float *)r->buffer, r->variant, g_work / 16);
}

/* the largest error of @p function over 2^20 arguments of its range, in units of the result */
static double max_error(int function, float *d_x, float *d_y, float *x, float *y, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        x[i] = argument(function, i, count);
    CL_CUDA_CHECK(cudaMemcpy(d_x, x, count * sizeof(float), cudaMemcpyHostToDevice));
    math_values<<<(count + BLOCK - 1) / BLOCK, BLOCK>>>(d_x, d_y, count, function);
    CL_CUDA_CHECK(cudaGetLastError());
    CL_CUDA_CHECK(cudaMemcpy(y, d_y, count * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0.0;
    for (unsigned i = 0; i < count; i++) {
        const double ref = reference_value(function, (double)x[i]);
        /* absolute error for sin and cos (results near 0), relative for exp and rsqrt */
        const int relative = function >= F_EXPF && function <= F_RSQRTF;
        const double e = fabs((double)y[i] - ref) / (relative ? fabs(ref) : 1.0);
        worst = e > worst ? e : worst;
    }
    return worst;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: %s (no options)\n", argv[0]);
        return 2;
    }
    cl_bench_open_device(&g_bench, 0); /* no device: one line, exit 77 */
    g_blocks = (unsigned)(g_bench.dev.sm_count * (g_bench.dev.max_threads_per_sm / BLOCK));

    const unsigned count = 1u << 20;
    void *buffer;
    float *d_x, *d_y;
    CL_CUDA_CHECK(cudaMalloc(&buffer, 16 * 8192 * sizeof(float)));
    CL_CUDA_CHECK(cudaMemset(buffer, 0, 16 * 8192 * sizeof(float)));
    CL_CUDA_CHECK(cudaMalloc(&d_x, count * sizeof(float)));
    CL_CUDA_CHECK(cudaMalloc(&d_y, count * sizeof(float)));
    float *x = (float *)malloc(count * sizeof(float)), *y = (float *)malloc(count * sizeof(float));
    if (x == NULL || y == NULL)
        return 1;
    const double threads = (double)g_blocks * BLOCK;
    printf("# %u blocks of %d threads (the GPU full), median of 7 launches timed by "
           "cl_time_launches (L2 flushed before each)\n",
           g_blocks, BLOCK);

    printf("\n## branch patterns: two paths of equal cost (4 FFMA chains), chosen per thread; 16 "
           "waves\n");
    printf("| condition | time (ms) | vs no branch |\n|---|--:|--:|\n");
    static const char *const patterns[] = {"threadIdx.x % 2 == 0", "threadIdx.x < 30",
                                           "(threadIdx.x / 32) % 2 == 0", "none (path A only)"};
    double branch_ms[4];
    for (int p = 0; p < 4; p++)
        branch_ms[p] = median_ms(launch_branches, p, buffer);
    for (int p = 0; p < 4; p++)
        printf("| `%s` | %.3f | %.2fx |\n", patterns[p], branch_ms[p], branch_ms[p] / branch_ms[3]);

    printf("\n## float against double: 8 independent FMA chains per thread\n");
    printf("| type | time (ms) | TFLOP/s |\n|---|--:|--:|\n");
    const double fma_f = median_ms(launch_fma, 0, buffer), fma_d = median_ms(launch_fma, 1, buffer);
    printf("| float | %.3f | %.1f |\n", fma_f, threads * (g_work / 2) * 8 * 2 / fma_f / 1e9);
    printf("| double | %.3f | %.1f |\n", fma_d, threads * (g_work / 16) * 8 * 2 / fma_d / 1e9);

    printf(
        "\n## loop counters in index arithmetic: s += a[t + k * stride], stride = 1 at run time\n");
    printf("| counter | time (ms) | vs int |\n|---|--:|--:|\n");
    const double c_int = median_ms(launch_counter, 0, buffer);
    const double c_uns = median_ms(launch_counter, 1, buffer);
    printf("| int | %.3f | 1.00x |\n| unsigned | %.3f | %.2fx |\n", c_int, c_uns, c_uns / c_int);

    printf("\n## division and remainder: i / d + i %% d, d = 32\n");
    printf("| written as | time (ms) | vs shift |\n|---|--:|--:|\n");
    double div_ms[3];
    for (int v = 0; v < 3; v++)
        div_ms[v] = median_ms(launch_divide, v, buffer);
    static const char *const divisions[] = {"i / d + i % d, d a run-time 32", "i / 32 + i % 32",
                                            "(i >> 5) + (i & 31)"};
    for (int v = 0; v < 3; v++)
        printf("| `%s` | %.3f | %.2fx |\n", divisions[v], div_ms[v], div_ms[v] / div_ms[2]);

    printf("\n## math functions: results per second and the largest error over 2^20 arguments\n");
    printf("| function | time (ms) | G results/s | largest error |\n|---|--:|--:|--:|\n");
    for (int f = 0; f < F_COUNT; f++) {
        const double ms = median_ms(launch_math, f, buffer);
        const double error = max_error(f, d_x, d_y, x, y, count);
        const int relative = f >= F_EXPF && f <= F_RSQRTF;
        printf("| `%s` | %.3f | %.1f | %.2e %s |\n", function_names[f], ms,
               threads * (g_work / 16) * 4 / ms / 1e6, error, relative ? "relative" : "absolute");
    }
    printf("(arguments: sin, cos over [-pi, pi]; exp over [-10, 10]; rsqrt over [0.01, 100])\n");

    CL_CUDA_CHECK(cudaFree(buffer));
    CL_CUDA_CHECK(cudaFree(d_x));
    CL_CUDA_CHECK(cudaFree(d_y));
    free(x);
    free(y);
    return cl_bench_finish(&g_bench);
}
