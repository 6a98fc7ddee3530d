/**
 * @file tails.cuh
 * @brief v16's walk of a tile's run, reused unchanged from v17 on: the run walked chunk by chunk
 * (sum_segments, v14's), its last few floats past the last whole chunk summed in registers
 * (count_tail, v16's), and the two together in count_run (v16's). v14 to v16 hold these in their
 * own files.
 */
#ifndef TAILS_CUH
#define TAILS_CUH

#include "pieces.cuh"
#include "segments.cuh" /* v13's chunk of CHUNK floats, its slices and their walk */

#define PER_LANE_MOST 3 /* containers per lane at short lengths */

/* Sums the staged chunk by the segments `starts` marks, each sum stored at its segment's last
   float; takes the segment the last chunk left open and returns the one this chunk leaves.
   Warp-uniform. */
static __device__ __forceinline__ float sum_segments(float *sums, const float4 *staged,
                                                     const unsigned *starts, float carried)
{
    const unsigned lane = threadIdx.x % 32;
    const unsigned marks = slice_marks(starts, lane * SLICE);
    const float open = walk_slice(sums, staged, marks);
    __syncwarp(); /* every slice is read before lanes store into their neighbours' */
    const float chain = chain_open(open, marks, carried);
    float from_before = __shfl_up_sync(FULL_MASK, chain, 1);
    if (lane == 0)
        from_before = carried;
    if (marks) { /* the segment that ends before this slice's first mark is complete */
        const unsigned p = lane * SLICE + __ffs(marks) - 1;
        if (p > 0)
            sums[p - 1] = (p > lane * SLICE ? sums[p - 1] : 0.0f) + from_before;
    }
    if (lane == 31) /* a container may end with the chunk: store its sum at its end too */
        sums[CHUNK - 1] = chain;
    return __shfl_sync(FULL_MASK, chain, 31);
}

/* Counts this lane's containers that end in the run's tail, its floats from `from` on: at most 32,
   float from + l held by lane l in `value` (0 past the run). A bit for each container start among
   them, gathered from the lanes that own the containers; then chain_open's scan, cut at those bits,
   gives each lane the sum of its float's segment so far, and a container's sum is the scan at its
   last float. `carried` is the segment open where the tail begins. Warp-uniform. */
static __device__ unsigned count_tail(const unsigned (*at)[32], unsigned own, float value,
                                      unsigned from, float carried, float limit)
{
    const unsigned lane = threadIdx.x % 32;
    unsigned starts = 0;
#pragma unroll
    for (int r = 0; r < PER_LANE_MOST; r++)
        if ((own >> r & 1) && at[r][lane] - from < 32)
            starts |= 1u << (at[r][lane] - from);
    for (int offset = 16; offset > 0; offset /= 2)
        starts |= __shfl_xor_sync(FULL_MASK, starts, offset);
    const float chain = chain_open(value, starts >> lane & 1, carried);
    unsigned over = 0;
#pragma unroll
    for (int r = 0; r < PER_LANE_MOST; r++) {
        const unsigned last = at[r + 1][lane] - 1 - from; /* wraps if it ends before the tail */
        const float sum = __shfl_sync(FULL_MASK, chain, last % 32);
        if ((own >> r & 1) && at[r][lane] != at[r + 1][lane] && last < 32)
            over += sum > limit;
    }
    return over;
}

/* Counts the containers over `limit` in one run of floats, run[0 .. length) (16-byte aligned; the
   array goes on for `left` floats): this lane owns container r when bit r of `own` is set, floats
   run[at[r][lane] .. at[r + 1][lane]) (its column of shared memory; 32-bit positions, relative to
   the run). Empty containers are the caller's. Warp-uniform. */
static __device__ unsigned count_run(const unsigned (*at)[32], unsigned own, const float *run,
                                     unsigned length, size_t left, float limit, float4 *staged,
                                     unsigned *starts)
{
    unsigned over = 0;
    float *sums = (float *)staged; /* segment sums overwrite the floats they were summed from */
    const unsigned lane = threadIdx.x % 32;
    float carried = 0.0f; /* the segment left open at the end of the last chunk */
    for (unsigned base = 0; base < length; base += CHUNK) {
        /* a run that ends at most 32 floats past this chunk: its tail comes with it */
        const int tail_next = length - base > CHUNK && length - base - CHUNK <= 32;
        float tail = 0.0f;
        if (lane < WORDS)
            starts[lane] = 0;
        __syncwarp();
#pragma unroll
        for (int r = 0; r < PER_LANE_MOST; r++)
            if ((own >> r & 1) && at[r][lane] - base < CHUNK)
                mark(starts, at[r][lane] - base);
        if (lane == 0 && length - base < CHUNK) /* floats past the run are no container's */
            mark(starts, length - base);
        if (tail_next && base + CHUNK + lane < length)
            tail = run[base + CHUNK + lane];
        stage_plain(staged, run, base, length, left);
        __syncwarp();
        carried = sum_segments(sums, staged, starts, carried);
        __syncwarp();
#pragma unroll
        for (int r = 0; r < PER_LANE_MOST; r++) {
            const unsigned last =
                at[r + 1][lane] - 1 - base; /* wraps if it ends before the chunk */
            if ((own >> r & 1) && at[r][lane] != at[r + 1][lane] && last < CHUNK)
                over += sums[last] > limit;
        }
        __syncwarp(); /* everyone has read the chunk before the next one overwrites it */
        if (tail_next)
            return over + count_tail(at, own, tail, base + CHUNK, carried, limit);
    }
    return over;
}

#endif
