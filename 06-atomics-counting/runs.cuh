/**
 * @file runs.cuh
 * @brief v10's runs, reused unchanged from v11 on: a warp's run of consecutive short containers,
 * found among the warp's lanes, and a chunk of its floats loaded with every load in flight. v10
 * holds these functions in its own file.
 */
#ifndef RUNS_CUH
#define RUNS_CUH

/* Loads values[base, base + 128 · loads) ∩ values[.., hi) into part[0 .. loads) (lane l holds
   float4s l, l + 32, …; `loads` is a constant of the caller, so the loop unrolls): base is a
   multiple of 4, so every float4 is aligned, and every load is in flight before the caller's first
   store (a loop that stores each value as it arrives waits for DRAM once per value). Floats past
   `hi` come along only when they share a float4 with ours; the last float4 of the array may be cut
   short at `total`. */
static __device__ __forceinline__ void load_chunk(float4 *part, int loads, const float *values,
                                                  size_t base, size_t hi, size_t total)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < loads; i++) {
        const size_t j = base + (size_t)(i * 32 + lane) * 4;
        part[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (j + 4 <= total && j < hi)
            part[i] = *(const float4 *)(values + j);
        else if (j < hi)
            part[i] = make_float4(values[j], j + 1 < total ? values[j + 1] : 0.0f,
                                  j + 2 < total ? values[j + 2] : 0.0f, 0.0f);
    }
}

/* Takes the warp's next run out of `todo` (a mask of lanes): the lanes first..last, which follow
   one another with no lane missing (a long container ends a run). Warp-uniform. */
static __device__ void next_run(unsigned *todo, int *first, int *last)
{
    *first = __ffs(*todo) - 1;
    const unsigned gaps = ~*todo >> *first;
    *last = gaps ? *first + __ffs(gaps) - 2 : 31;
    *todo = *last == 31 ? 0 : *todo & (~0u << (*last + 1));
}

#endif
