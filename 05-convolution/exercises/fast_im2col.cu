/**
 * @file fast_im2col.cu
 * @brief Exercise "A multiply-high in im2col" of 05-convolution (part 3), a solution: v13 with the
 * im2col kernel's division of its row index by K done as a 64-bit multiply-high, v16's idea on the
 * copy instead of on the GEMM.
 *
 * Each thread of im2col splits its row (b · C + ci) · K + j into (b · C + ci) and j once per row
 * of 8 entries: a 64-bit division by a run-time K, an inline routine of dozens of instructions.
 * With m = ⌊(2^64 − 1) / K⌋ + 1 (computed on the host) and e = m · K − 2^64 < K, row / K =
 * umul64hi(row, m) exactly while row · e < 2^64: rows < 2^39 here, e < 511. K = 1 (m would be
 * 2^64) keeps the row as it is.
 */
#include "cl_cublas.h"
#include "cl_cuda_check.h"
#include "conv.h"

#define THREADS       256
#define PER_THREAD    8
#define MAX_WORKSPACE ((size_t)1 << 28) /* floats */

/* Positions per chunk: the whole row when the columns of every batch fit the cap. */
static size_t chunk_length(const conv_shape *s)
{
    const size_t column = (size_t)s->batch * (size_t)s->channels * (size_t)s->mask;
    size_t chunk = MAX_WORKSPACE / column;
    if (chunk < 1)
        chunk = 1;
    return chunk < s->length ? chunk : s->length;
}

/* cols[b][ci·K + j][t] = x[b][ci][first + t + j − r], zero outside the row. The grid's y runs
   over matrix rows (b, ci, j), so a row's indices are divided out once per thread, not per entry;
   along t each thread copies PER_THREAD entries a block apart — loads first, then stores, so that
   8 loads are in flight per thread — and consecutive threads take consecutive t: coalesced. */
__global__ void __launch_bounds__(THREADS)
    im2col(const float *x, float *cols, int mask, unsigned long long mask_inverse, size_t length,
           size_t first, size_t chunk, size_t rows)
{
    const size_t r = (size_t)(mask - 1) / 2;
    const size_t t0 = (size_t)blockIdx.x * THREADS * PER_THREAD + threadIdx.x;
    for (size_t row = blockIdx.y; row < rows; row += gridDim.y) { /* row = (b · C + ci) · K + j */
        const size_t channel_row = mask == 1 ? row : (size_t)__umul64hi(row, mask_inverse);
        const size_t j = row - channel_row * (size_t)mask;
        const float *in = x + channel_row * length; /* x[b][ci][·] */
        float v[PER_THREAD];
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) {
            const size_t i = first + t0 + (size_t)k * THREADS + j; /* input index + r, >= 0 */
            v[k] = t0 + (size_t)k * THREADS < chunk && i >= r && i - r < length ? in[i - r] : 0.0f;
        }
        float *out = cols + row * chunk;
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++)
            if (t0 + (size_t)k * THREADS < chunk)
                out[t0 + (size_t)k * THREADS] = v[k];
    }
}

size_t conv_workspace_bytes(const conv_shape *s)
{
    return (size_t)s->batch * (size_t)s->channels * (size_t)s->mask * chunk_length(s) *
           sizeof(float);
}

void conv1d(const float *x, const float *w, float *y, const conv_shape *s, void *workspace,
            cudaStream_t stream)
{
    float *cols = (float *)workspace;
    const size_t chunk = chunk_length(s);
    const long long depth = (long long)s->channels * s->mask; /* C·K: the dot product's length */
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t handle = cl_cublas_handle(stream);
    const unsigned long long inverse =
        ~0ull / (unsigned long long)s->mask + 1; /* unused at K = 1 */
    for (size_t first = 0; first < s->length; first += chunk) {
        const size_t positions = s->length - first < chunk ? s->length - first : chunk;
        const size_t rows = (size_t)s->batch * (size_t)depth;
        const size_t across = (positions + THREADS * PER_THREAD - 1) / (THREADS * PER_THREAD);
        const dim3 grid((unsigned)across, (unsigned)(rows < 65535 ? rows : 65535));
        im2col<<<grid, THREADS, 0, stream>>>(x, cols, s->mask, inverse, s->length, first, positions,
                                             rows);
        CL_LAUNCH_CHECK("im2col");
        cl_cublas_check(cublasGemmStridedBatchedEx_64(
                            handle, CUBLAS_OP_N, CUBLAS_OP_N, (int64_t)positions,
                            (int64_t)s->channels, depth, &one, cols, CUDA_R_32F, (int64_t)positions,
                            depth * (long long)positions, w, CUDA_R_32F, depth, 0, &zero, y + first,
                            CUDA_R_32F, (int64_t)s->length,
                            (long long)s->channels * (long long)s->length, (int64_t)s->batch,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                        "cublasGemmStridedBatchedEx_64");
    }
}
