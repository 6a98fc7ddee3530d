/**
 * @file padding.cuh
 * @brief v10's copies around the product, reused unchanged from v11 on: the operands copied into
 * rows padded to whole lines, 16 bytes per thread, and C copied out of its padded buffer. v10
 * holds them in its own file.
 */
#ifndef PADDING_CUH
#define PADDING_CUH

#include <cuda_bf16.h>

/* to[row][col] = from[row][col] for col < cols, 0 up to @p pitch (a multiple of 8): vector v of
   the rows' pitch / 8 vectors per row is written by one thread, 16 bytes at once. */
__global__ void pad_rows(const __nv_bfloat16 *__restrict__ from, __nv_bfloat16 *__restrict__ to,
                         int rows, int cols, int pitch)
{
    const size_t per_row = (size_t)pitch / 8, vectors = (size_t)rows * per_row;
    for (size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; v < vectors;
         v += (size_t)gridDim.x * blockDim.x) {
        const size_t row = v / per_row;
        const int col = (int)(v % per_row) * 8;
        const __nv_bfloat16 *source = from + row * cols;
        __align__(16) __nv_bfloat16 values[8];
#pragma unroll
        for (int e = 0; e < 8; e++)
            values[e] = col + e < cols ? source[col + e] : __float2bfloat16(0.0f);
        *(uint4 *)(to + row * pitch + col) = *(const uint4 *)values;
    }
}

/* to[row][col] = from[row][col] for col < cols, where @p from's rows are @p pitch long (a
   multiple of 4): C out of its padded buffer, one float4 read per thread. */
__global__ void unpad_rows(const float *__restrict__ from, float *__restrict__ to, int rows,
                           int cols, int pitch)
{
    const size_t per_row = (size_t)pitch / 4, vectors = (size_t)rows * per_row;
    for (size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; v < vectors;
         v += (size_t)gridDim.x * blockDim.x) {
        const size_t row = v / per_row;
        const int col = (int)(v % per_row) * 4;
        const float4 values = *(const float4 *)(from + row * pitch + col);
        float *out = to + row * cols;
        if (col < cols)
            out[col] = values.x;
        if (col + 1 < cols)
            out[col + 1] = values.y;
        if (col + 2 < cols)
            out[col + 2] = values.z;
        if (col + 3 < cols)
            out[col + 3] = values.w;
    }
}

static int padded(int x, int align)
{
    return (x + align - 1) / align * align;
}

#endif
