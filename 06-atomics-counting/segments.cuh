/**
 * @file segments.cuh
 * @brief v13's equal slices, reused unchanged from v14 on: the chunk a warp stages (CHUNK floats,
 * a slice of SLICE per lane), its bitmap of segment starts, each lane's walk of its slice and the
 * scan over the lanes that carries each lane's open segment to the next. v13 holds these in its
 * own file.
 */
#ifndef SEGMENTS_CUH
#define SEGMENTS_CUH

#include "runs.cuh"

#define CHUNK 384          /* floats a warp stages at once (v12's 640) */
#define SLICE (CHUNK / 32) /* floats per lane: 12, three float4s */
#define WORDS (CHUNK / 32) /* 32-bit words of a chunk's bitmap */

/* Float4 i stays at i: lane l's reads (3l to 3l + 2) and the stores are conflict-free. */
static __device__ void stage_plain(float4 *staged, const float *values, size_t base, size_t hi,
                                   size_t total)
{
    const unsigned lane = threadIdx.x % 32;
    float4 part[CHUNK / 128];
    load_chunk(part, CHUNK / 128, values, base, hi, total);
#pragma unroll
    for (int i = 0; i < CHUNK / 128; i++)
        staged[i * 32 + lane] = part[i];
}

/* Marks float p of the chunk as the first of a segment. */
static __device__ void mark(unsigned *starts, unsigned p)
{
    atomicOr(&starts[p / 32], 1u << (p % 32));
}

/* Bits first … first + SLICE − 1 of the bitmap: bit i set when a segment starts at first + i. */
static __device__ unsigned slice_marks(const unsigned *starts, unsigned first)
{
    const unsigned word = first / 32, shift = first % 32;
    unsigned bits = starts[word] >> shift;
    if (shift + SLICE > 32)
        bits |= starts[word + 1] << (32 - shift);
    return bits & ((1u << SLICE) - 1);
}

/* Sums the lane's slice by segments, each one that ends inside it stored at its last float (the
   first without earlier slices' floats, which the scan adds); returns the segment left open. */
static __device__ float walk_slice(float *sums, const float4 *staged, unsigned marks)
{
    const unsigned lane = threadIdx.x % 32;
    float x[SLICE];
#pragma unroll
    for (int q = 0; q < SLICE / 4; q++) {
        const float4 v = staged[lane * (SLICE / 4) + q];
        x[4 * q] = v.x, x[4 * q + 1] = v.y, x[4 * q + 2] = v.z, x[4 * q + 3] = v.w;
    }
    float run = 0.0f;
#pragma unroll
    for (int i = 0; i < SLICE; i++) {
        if (marks >> i & 1) {
            if (i > 0)
                sums[lane * SLICE + i - 1] = run;
            run = 0.0f;
        }
        run += x[i];
    }
    return run;
}

/* A scan over the lanes of (open segment, holds a mark), cut at the marks: returns the sum of the
   segment open at the end of this lane's slice, from its start. `carried` is the one the last
   chunk left open, which lane 0's slice continues unless it holds a mark. Warp-uniform. */
static __device__ float chain_open(float open, unsigned marks, float carried)
{
    const unsigned lane = threadIdx.x % 32;
    float chain = open + (lane == 0 && !marks ? carried : 0.0f);
    int cut = marks != 0;
    for (int offset = 1; offset < 32; offset *= 2) {
        const float before = __shfl_up_sync(0xffffffffu, chain, offset);
        const int before_cut = __shfl_up_sync(0xffffffffu, cut, offset);
        if ((int)lane >= offset && !cut)
            chain += before, cut = before_cut;
    }
    return chain;
}

#endif
