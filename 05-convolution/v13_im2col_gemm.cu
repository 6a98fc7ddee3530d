/**
 * @file v13_im2col_gemm.cu
 * @brief v13: a new path — the layer with many channels as a matrix product, starting again from
 * v1's problem statement. im2col copies, for every output position i, the
 * C·K inputs its dot product reads into column i of a (C·K) × L matrix; then one SGEMM per batch
 * (cuBLAS, plain FP32, no TF32) multiplies the C_out × (C·K) weights by it. All the cleverness is
 * cuBLAS's: tiling, registers, pipelining — lesson 02's whole path for free.
 *
 * v1 to v9 are built for one long signal, where the work per output is a short dot product; a
 * layer with C channels makes each output a dot product of C·K terms, the shape of a GEMM. The
 * price is the copy: K times the input is written and read back (7× at K = 7), and for one
 * channel the product is a matrix times a vector (C_out = 1), which no GEMM makes fast. The
 * workspace is capped at 2^28 floats (1 GiB): longer signals go through in chunks of positions.
 * cuBLAS is column-major: the row-major [C·K][chunk] columns are a column-major chunk × C·K
 * matrix and the row-major weights a column-major C·K × C_out one, so y's rows (ld = L) come out
 * as y[b]ᵀ = colsᵀ · wᵀ with no transposition. The 64-bit API takes L past 2^31.
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
    im2col(const float *x, float *cols, int mask, size_t length, size_t first, size_t chunk,
           size_t rows)
{
    const size_t r = (size_t)(mask - 1) / 2;
    const size_t t0 = (size_t)blockIdx.x * THREADS * PER_THREAD + threadIdx.x;
    for (size_t row = blockIdx.y; row < rows; row += gridDim.y) { /* row = (b · C + ci) · K + j */
        const size_t j = row % (size_t)mask;
        const float *in = x + row / (size_t)mask * length; /* x[b][ci][·] */
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
    for (size_t first = 0; first < s->length; first += chunk) {
        const size_t positions = s->length - first < chunk ? s->length - first : chunk;
        const size_t rows = (size_t)s->batch * (size_t)depth;
        const size_t across = (positions + THREADS * PER_THREAD - 1) / (THREADS * PER_THREAD);
        const dim3 grid((unsigned)across, (unsigned)(rows < 65535 ? rows : 65535));
        im2col<<<grid, THREADS, 0, stream>>>(x, cols, s->mask, s->length, first, positions, rows);
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
