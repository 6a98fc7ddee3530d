/**
 * @file segments.cuh
 * @brief v13's segmented sum over a staged chunk, the two pieces reused unchanged from v13 on: a
 * segment's start marked in the chunk's bitmap, and the scan over the lanes that carries each
 * lane's open segment to the next. v13 and v14 hold the rest of the walk, sized by their chunk.
 */
#ifndef SEGMENTS_CUH
#define SEGMENTS_CUH

/* Marks float p of the chunk as the first of a segment. */
static __device__ void mark(unsigned *starts, unsigned p)
{
    atomicOr(&starts[p / 32], 1u << (p % 32));
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
