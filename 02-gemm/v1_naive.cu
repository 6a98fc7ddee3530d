/**
 * @file v1_naive.cu
 * @brief v1: one thread per element of C, with consecutive threads walking down a column of C
 * (the shortcut exercise's first kernel).
 *
 * Thread (x, y) of a 16×16 block computes c[row][col] with row = blockIdx.x·16 + x: the 16
 * consecutive threads of a half-warp take 16 consecutive *rows*. At each step p they read
 * a[row][p], 16 floats k·4 bytes apart, each in its own 32-byte sector, and b[p][col], the same
 * address for all of them; and they write C a row apart. Every load brings 32 bytes to use 4: the
 * kernel is bound by memory transactions, not by arithmetic.
 */
#include "cl_cuda_check.h"
#include "gemm.h"

#define TILE 16

static __device__ __forceinline__ void naive_element(const float *a, const float *b, float *c,
                                                     int m, int n, int k, semiring ring)
{
    const int row = blockIdx.x * TILE + threadIdx.x; /* threadIdx.x, the fastest index: rows */
    const int col = blockIdx.y * TILE + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = semiring_zero(ring);
    for (int p = 0; p < k; p++)
        acc = semiring_mac(acc, a[(size_t)row * k + p], b[(size_t)p * n + col], ring);
    c[(size_t)row * n + col] = acc;
}

/* The semiring is a constant in each branch, so each gets its own loop, free of the test. */
__global__ void gemm_naive(const float *a, const float *b, float *c, int m, int n, int k,
                           semiring ring)
{
    if (ring == SEMIRING_MIN_PLUS)
        naive_element(a, b, c, m, n, k, SEMIRING_MIN_PLUS);
    else
        naive_element(a, b, c, m, n, k, SEMIRING_PLUS_TIMES);
}

int gemm_supports(semiring ring)
{
    (void)ring;
    return 1;
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    (void)m, (void)n, (void)k;
    return 0;
}

void gemm(const float *a, const float *b, float *c, int m, int n, int k, semiring ring,
          void *workspace, cudaStream_t stream)
{
    (void)workspace;
    const dim3 block(TILE, TILE);
    const dim3 grid((m + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    gemm_naive<<<grid, block, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("gemm_naive");
}
