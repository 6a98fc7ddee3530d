/**
 * @file broken_gemm.cu
 * @brief Deliberately wrong products, to prove that the harness's check can fail at its BF16 bound.
 * BROKEN=1 never writes the last column of C (a partial tile forgotten: it stays NaN); BROKEN=2
 * drops the last term of every sum (a loop bound off by one).
 */
#include "cl_cuda_check.h"
#include "tensor_gemm.h"

__global__ void broken_product(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m,
                               int n, int k)
{
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= m || col >= n || (BROKEN == 1 && col == n - 1))
        return;
    float acc = 0.0f;
    for (int p = 0; p < (BROKEN == 2 ? k - 1 : k); p++)
        acc = fmaf(__bfloat162float(a[(size_t)row * k + p]),
                   __bfloat162float(b[(size_t)p * n + col]), acc);
    c[(size_t)row * n + col] = acc;
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    (void)m, (void)n, (void)k;
    return 0;
}

void gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
          void *workspace, cudaStream_t stream)
{
    (void)workspace;
    const dim3 grid((n + 15) / 16, (m + 15) / 16), block(16, 16);
    broken_product<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CL_LAUNCH_CHECK("broken_product");
}
