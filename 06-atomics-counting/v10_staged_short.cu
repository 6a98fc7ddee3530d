/**
 * @file v10_staged_short.cu
 * @brief v10: v9 with the short containers' floats read coalesced: a warp stages the floats of its
 * 32 containers in shared memory with 16-byte loads, and each lane then sums its own container
 * there.
 *
 * v9's short kernel waits on memory: each lane walks its own container one float at a time, so a
 * load instruction of a warp touches up to 32 different lines, and the walk of the longest
 * container holds the warp. But the 32 containers of a warp lie one after another in memory. So
 * the warp reads them as one run: every lane loads CHUNK / 128 float4s (all issued before the first
 * store, as v6 learned), stores them to shared memory, and the serial walk — still one lane per
 * container, in the same order of additions as v9 — reads shared memory instead of DRAM. A long
 * container splits the warp's containers into runs, and its floats are left to the pieces.
 */
#include "pieces.cuh"
#include "staged.cuh"

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_short(const float *values, const size_t *offsets, size_t n, size_t total, float limit,
                unsigned long long *count, piece_list *list, size_t *piece_container,
                size_t *piece_first)
{
    __shared__ float staged_block[BLOCK_SIZE / 32][PADDED];
    float *staged = staged_block[threadIdx.x / 32];
    const unsigned lane = threadIdx.x % 32;
    const size_t c = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t begin = 0, end = 0;
    if (c < n)
        begin = offsets[c], end = offsets[c + 1];
    const int is_long = end - begin > SHORT_MAX;
    float sum = 0.0f;
    /* the warp's short containers, as runs of consecutive lanes between long ones (warp-uniform) */
    unsigned todo = ~__ballot_sync(FULL_MASK, c >= n || is_long);
    while (todo) {
        int first, last;
        next_run(&todo, &first, &last);
        const size_t lo = __shfl_sync(FULL_MASK, begin, first);
        const size_t hi = __shfl_sync(FULL_MASK, end, last);
        const int in_run = (int)lane >= first && (int)lane <= last;
        for (size_t base = lo & ~(size_t)3; base < hi; base += CHUNK) {
            stage_chunk_padded(staged, values, base, hi, total);
            __syncwarp();
            const size_t start = begin > base ? begin : base;
            const size_t stop = end < base + CHUNK ? end : base + CHUNK;
            if (in_run && start < stop)
                for (unsigned p = (unsigned)(start - base); p < (unsigned)(stop - base); p++)
                    sum += staged[padded(p)];
            __syncwarp(); /* everyone has read the chunk before the next one overwrites it */
        }
    }
    finish_short(list, piece_container, piece_first, c, n, end - begin, sum, limit, count);
}
