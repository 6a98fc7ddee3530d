/**
 * @file broken_gemm.cu
 * @brief Deliberately wrong products, to prove that the harness's check can fail. BROKEN=1 never
 * writes the last column of C (a partial tile forgotten: it stays NaN); BROKEN=2 drops the last
 * term of every sum (a loop bound off by one).
 */
#include "cl_cuda_check.h"
#include "gemm.h"

__global__ void broken_product(const float *a, const float *b, float *c, int m, int n, int k,
                               semiring ring)
{
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= m || col >= n || (BROKEN == 1 && col == n - 1))
        return;
    float acc = semiring_zero(ring);
    for (int p = 0; p < (BROKEN == 2 ? k - 1 : k); p++)
        acc = semiring_mac(acc, a[(size_t)row * k + p], b[(size_t)p * n + col], ring);
    c[(size_t)row * n + col] = acc;
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
    const dim3 grid((n + 15) / 16, (m + 15) / 16), block(16, 16);
    broken_product<<<grid, block, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("broken_product");
}
