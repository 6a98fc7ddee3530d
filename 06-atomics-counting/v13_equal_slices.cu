/**
 * @file v13_equal_slices.cu
 * @brief v13: v12 with the staged chunk cut into equal slices, one per lane, whatever the container
 * boundaries: each lane sums its 12 floats by segments, and a segmented scan across the lanes
 * carries the sums of containers that cross slices.
 *
 * v12 gives each lane its own container, so a warp's walk lasts as long as its longest short
 * container, and each medium one costs the whole warp a walk and a butterfly: on the power law
 * ncu counts a third of the lanes idle per instruction. Here lane l takes floats 12l to 12l + 11 of
 * the chunk, so every lane does the same work whatever the lengths. A bitmap marks where the
 * run's containers start (and where the run ends); a lane closes a segment at each mark and stores
 * its sum at the segment's last float, over the staged value it has already read. The segment
 * open at the end of a slice goes on in the next one: a scan over the lanes, cut by the lanes that
 * hold a mark, gives each lane the floats of that segment from the lanes before it, and carries
 * the open one to the next chunk. The lane that owns a container reads its sum once, at its last
 * float. The additions are grouped by slices, not in v9's order; the check's rounding band holds
 * for any order.
 *
 * The walk costs the same for every float of a chunk, used or not, so the chunk is 384 floats
 * (a power-law warp's short containers hold a few hundred): 3 float4s per lane, an odd count, so
 * the 8 lanes of a quarter warp read float4s 3 apart, in 8 different groups of banks, with no
 * swizzle. The kernel fits in 32 registers, 8 blocks per SM, which the bounds below ask for: the
 * same code with 640-float chunks and more registers (6 blocks, or fewer) measured slower (the
 * tries file).
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"

/* Blocks per SM the launch bounds ask for: as many blocks of 256 as an SM's threads hold. 2048
   threads on sm_80, sm_90 and sm_100: 8 blocks, so 32 registers; 1536 on sm_86, sm_87, sm_89 and
   sm_120: 6; 1024 on sm_75: 4 (ptxas refuses more than the SM holds). */
#if __CUDA_ARCH__ == 750
#define MIN_BLOCKS 4
#elif __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200
#define MIN_BLOCKS 6
#else
#define MIN_BLOCKS 8
#endif
#define BLOCK_SIZE 256
#define SHORT_MAX  1024 /* longer containers go to the pieces, as in v12 */
#include "piece_scan.cuh"

#define CHUNK 384 /* floats a warp stages at once (v12's 640) */

#include "runs.cuh"

#define SLICE (CHUNK / 32) /* floats per lane: 12, three float4s */
#define WORDS (CHUNK / 32) /* 32-bit words of a chunk's bitmap */

/* Float4 i of the chunk stays at i (no padding, no swizzle): lane l reads float4s 3l to 3l + 2
   (see the top of the file), and the stores of 32 consecutive float4s are conflict-free too. */
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

/* Bits first … first + SLICE − 1 of the bitmap: bit i set when a segment starts at float
   first + i. */
static __device__ unsigned slice_marks(const unsigned *starts, unsigned first)
{
    const unsigned word = first / 32, shift = first % 32;
    unsigned bits = starts[word] >> shift;
    if (shift + SLICE > 32)
        bits |= starts[word + 1] << (32 - shift);
    return bits & ((1u << SLICE) - 1);
}

/* Sums the lane's slice by segments: a segment that ends inside the slice has its sum stored at its
   last float (the slice's first segment without the floats of earlier slices, which the scan
   below adds). Returns the floats after the last mark, the segment left open. */
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
        const float before = __shfl_up_sync(FULL_MASK, chain, offset);
        const int before_cut = __shfl_up_sync(FULL_MASK, cut, offset);
        if ((int)lane >= offset && !cut)
            chain += before, cut = before_cut;
    }
    return chain;
}

__global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
    count_short(const float *values, const size_t *offsets, size_t n, size_t total, float limit,
                unsigned long long *count, piece_list *list, size_t *piece_container,
                size_t *piece_first)
{
    __shared__ float4 staged_block[BLOCK_SIZE / 32][CHUNK / 4];
    __shared__ unsigned starts_block[BLOCK_SIZE / 32][WORDS];
    float4 *staged = staged_block[threadIdx.x / 32];
    float *sums = (float *)staged; /* segment sums overwrite the floats they were summed from */
    unsigned *starts = starts_block[threadIdx.x / 32];
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
        float carried = 0.0f; /* the segment left open at the end of the last chunk */
        for (size_t base = lo & ~(size_t)3; base < hi; base += CHUNK) {
            if (lane < WORDS)
                starts[lane] = 0;
            __syncwarp();
            if (in_run && begin >= base && begin < base + CHUNK)
                mark(starts, (unsigned)(begin - base));
            if (lane == 0 && hi < base + CHUNK) /* floats past the run are no container's */
                mark(starts, (unsigned)(hi - base));
            stage_plain(staged, values, base, hi, total);
            __syncwarp();
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
            carried = __shfl_sync(FULL_MASK, chain, 31);
            __syncwarp();
            if (in_run && begin < end && end - 1 >= base && end - 1 < base + CHUNK)
                sum = sums[end - 1 - base];
            __syncwarp(); /* everyone has read the chunk before the next one overwrites it */
        }
    }
    finish_short(list, piece_container, piece_first, c, n, end - begin, SHORT_MAX, sum, limit,
                 count);
}

/* The second kernel, v8's unchanged: a warp per listed piece, a container of several finished in
   its slot; the last block to finish empties the list for the next call. */
__global__ void __launch_bounds__(BLOCK_SIZE)
    count_pieces(const float *values, const size_t *offsets, float limit, unsigned long long *count,
                 piece_list *list, const size_t *piece_container, const size_t *piece_first,
                 float *slot_sums, unsigned *slot_tickets)
{
    __shared__ unsigned long long block_count;
    __shared__ bool is_last_block;
    if (threadIdx.x == 0)
        block_count = 0;
    __syncthreads();
    const unsigned lane = threadIdx.x % 32;
    const size_t pieces = list->pieces;
    const size_t warps = (size_t)gridDim.x * (BLOCK_SIZE / 32);
    int over = 0;
    for (size_t t = ((size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x) / 32; t < pieces; t += warps) {
        const size_t c = piece_container[t], first = piece_first[t];
        const size_t begin = offsets[c], end = offsets[c + 1];
        const size_t from = begin + (t - first) * PIECE;
        const size_t to = from + PIECE < end ? from + PIECE : end;
        float part[PIECE / 32];
#pragma unroll
        for (int i = 0; i < PIECE / 32; i++) { /* 16 loads in flight per lane */
            const size_t j = from + i * 32 + lane;
            part[i] = j < to ? values[j] : 0.0f;
        }
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < PIECE / 32; i++)
            sum += part[i];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_xor_sync(FULL_MASK, sum, offset);
        const unsigned container_pieces = (unsigned)((end - begin + PIECE - 1) / PIECE);
        if (lane == 0)
            over += container_pieces == 1 ? sum > limit
                                          : finish_in_slot(slot_sums, slot_tickets, first,
                                                           container_pieces, sum, limit);
    }
    for (int offset = 16; offset > 0; offset /= 2)
        over += __shfl_xor_sync(FULL_MASK, over, offset);
    if (lane == 0 && over)
        atomicAdd(&block_count, (unsigned long long)over);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (block_count)
            atomicAdd(count, block_count);
        __threadfence();
        is_last_block = atomicAdd(&list->blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last_block && threadIdx.x == 0) /* every block has read the list: empty it */
        list->pieces = 0, list->blocks_done = 0;
}

/* The second kernel: as many blocks as the GPU holds, over every piece the first one listed. */
static void launch_pieces(const float *values, const size_t *offsets, float limit,
                          unsigned long long *count, const piece_workspace *w, cudaStream_t stream)
{
    const size_t grid = cl_resident_blocks((const void *)count_pieces, BLOCK_SIZE, 0);
    count_pieces<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(values, offsets, limit, count, w->list,
                                                            w->piece_container, w->piece_first,
                                                            w->slot_sums, w->slot_tickets);
    CL_LAUNCH_CHECK("count_pieces");
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)n;
    return piece_workspace_bytes(total, SHORT_MAX);
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    const piece_workspace w = piece_workspace_at(workspace, total, SHORT_MAX);
    const size_t grid = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    count_short<<<(unsigned)grid, BLOCK_SIZE, 0, stream>>>(
        values, offsets, n, total, limit, count, w.list, w.piece_container, w.piece_first);
    CL_LAUNCH_CHECK("count_short");
    launch_pieces(values, offsets, limit, count, &w, stream);
}
