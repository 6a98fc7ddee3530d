/**
 * @file tensor_ceiling.h
 * @brief The dense BF16 tensor-core rate of the device in use, measured, for lesson 08: the
 * ceiling its "% of ceiling" column is measured against.
 */
#ifndef TENSOR_CEILING_H
#define TENSOR_CEILING_H

#include "cl_bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * TFLOP/s of BF16 products with FP32 accumulation, from a probe that issues matrix instructions and
 * nothing else (each multiply-add counted as 2 flops): on a GPU of compute capability 9.0 with
 * code built for sm_90a, wgmma m64n256k16 by two warpgroups per SM on operands in shared memory;
 * on other GPUs of compute capability 8.0 or later, eight independent mma.sync m16n8k16 chains per
 * warp. The median of 10 runs of a few milliseconds each, measured once per process; 0 where no
 * probe could run (no BF16 tensor cores, or no code for them in this build).
 */
double measure_bf16_tensor_tflops(cl_bench *b);

#ifdef __cplusplus
}
#endif

#endif
