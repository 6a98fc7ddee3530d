/**
 * @file v19_async_chunks.cu
 * @brief v19: v18 with the stream's chunks copied by cp.async into two buffers in turn, the next
 * chunk's copy in flight while this one is walked, and each warp adding its count alone.
 *
 * v17's stream issues a chunk's loads, marks the chunk's containers while they fly, stores the
 * floats to shared memory and walks them: one chunk per warp in flight, held in 12 registers
 * until the stores, which is where ncu finds the stream's warps waiting. Here each lane queues
 * its float4s with cp.async (`__pipeline_memcpy_async`: from L2 to shared memory, no register
 * holds them), and the warp queues the next chunk into its second buffer before it marks this
 * one, so that two chunks of every warp are in flight and the stores are gone. The stream runs
 * on from chunk to chunk except where it jumps a long container: there the copy queued ahead is
 * not the next chunk, and the warp waits for it and queues the right one. The second buffer costs
 * 6 KB of shared memory a block: 10 blocks per SM instead of 12, so the launch bounds ask for 10
 * and leave ptxas 48 registers. With the copies in flight the warps of a block finish further
 * apart, and waiting for the slowest at the block's closing barrier (v16's count per block) cost
 * more than the copies gained on fixed lengths (the tries): each warp adds its count with an
 * atomic of its own instead, and the stream kernel has no barrier.
 */
#include <cuda_pipeline.h>

#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"
#include "slots.cuh"

#include <limits.h>

/* Blocks per SM the short kernel's launch bounds ask for: as many blocks of 4 warps as an SM's
   threads hold. 2048 threads on sm_80, sm_90 and sm_100: 16 blocks, so 32 registers; 1536 on sm_86,
   sm_87, sm_89 and sm_120: 12; 1024 on sm_75: 8 (ptxas refuses more than the SM holds). */
#if __CUDA_ARCH__ == 750
#define MIN_BLOCKS 8
#elif __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200
#define MIN_BLOCKS 12
#else
#define MIN_BLOCKS 16
#endif
/* The stream kernel's two chunk buffers per warp leave shared memory for 10 blocks on sm_90, so
   the bounds ask for that many (48 registers) and no more. */
#define MIN_BLOCKS_TILES (MIN_BLOCKS * 5 / 8)
#define SHORT_BLOCK_SIZE 128  /* the short kernels' blocks: 4 warps */
#define BLOCK_SIZE       256  /* the pieces kernel's */
#define SHORT_MAX        1024 /* longer ones leave the walks (pieces, or a warp sum) */
#define PIECE            512  /* floats per piece: one warp, 16 loads per lane */
#define WARP_SUM_MOST    4096 /* long containers up to this: summed by the warp that meets them */
#define SUM_LOADS        4    /* float4 loads in flight per lane in such a sum */
#define FULL_MASK        0xffffffffu

/* The second kernel's work list, in the workspace (zeroed once; the kernels leave it zeroed). */
typedef struct {
    unsigned long long pieces; /* pieces listed so far */
    unsigned long long over;   /* containers over the limit so far: the count, until it is out */
    unsigned blocks_done;      /* the second kernel's blocks with pieces that have finished */
} piece_list;

/* Reserves places in the list for this lane's `pieces` (0 for a short container): one atomic per
   warp, each lane's share found by a scan. All 32 lanes call it. */
static __device__ unsigned long long reserve_pieces(piece_list *list, unsigned long long pieces)
{
    const unsigned lane = threadIdx.x % 32;
    unsigned long long inclusive = pieces;
    for (int offset = 1; offset < 32; offset *= 2) {
        const unsigned long long up = __shfl_up_sync(FULL_MASK, inclusive, offset);
        if (lane >= offset)
            inclusive += up;
    }
    unsigned long long base = 0;
    if (lane == 31 && inclusive)
        base = atomicAdd(&list->pieces, inclusive);
    return __shfl_sync(FULL_MASK, base, 31) + inclusive - pieces;
}

/* Lists the pieces of this lane's container of `length` floats (0: a short one, nothing to list),
   their places reserved with one atomic per warp. All 32 lanes call it. */
static __device__ void list_pieces(piece_list *list, size_t *piece_container, size_t *piece_first,
                                   size_t c, size_t length)
{
    const size_t pieces = (length + PIECE - 1) / PIECE;
    if (!__any_sync(FULL_MASK, pieces != 0))
        return;
    const unsigned long long first = reserve_pieces(list, pieces);
    for (size_t k = 0; k < pieces; k++)
        piece_container[first + k] = c, piece_first[first + k] = first;
}

/* Adds the warp's containers over the limit, `over` per lane, to the count with one atomic, and
   no barrier: a warp that is done leaves. All 32 lanes call it. */
static __device__ void count_warp(unsigned long long *count, unsigned over)
{
    for (int offset = 16; offset > 0; offset /= 2)
        over += __shfl_xor_sync(FULL_MASK, over, offset);
    if (threadIdx.x % 32 == 0 && over)
        atomicAdd(count, (unsigned long long)over);
}

/* The end of the short kernel: this thread's container of `length` floats listed if it is
   long, the block's short containers over the limit counted by __syncthreads_count, one atomic
   per block. All threads of the block call it. */
static __device__ void finish_short(piece_list *list, size_t *piece_container, size_t *piece_first,
                                    size_t c, size_t n, size_t length, float sum, float limit,
                                    unsigned long long *count)
{
    const int is_long = length > SHORT_MAX;
    list_pieces(list, piece_container, piece_first, c, is_long ? length : 0);
    const int block_count = __syncthreads_count(c < n && !is_long && sum > limit);
    if (threadIdx.x == 0 && block_count)
        atomicAdd(count, (unsigned long long)block_count);
}

#define CHUNK 384 /* floats a warp stages at once (v11's 640) */

/* Loads values[base, base + CHUNK) ∩ values[.., hi) into `part` (lane l holds float4s l, l + 32,
   …): base is a multiple of 4, so every float4 is aligned, and every load is in flight before the
   caller's first store (a loop that stores each value as it arrives waits for DRAM once per value).
   Floats past `hi` come along only when they share a float4 with ours; the last float4 of the array
   may be cut short at `total`. */
static __device__ void load_chunk(float4 part[CHUNK / 128], const float *values, size_t base,
                                  size_t hi, size_t total)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < CHUNK / 128; i++) {
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

#define SLICE       (CHUNK / 32) /* floats per lane: 12, three float4s */
#define WORDS       (CHUNK / 32) /* 32-bit words of a chunk's bitmap */
#define GROUPS_MOST 16           /* a stream tile's most containers, in groups of 32 */
#define TILE_CHUNKS 4            /* chunks a stream tile fills at the mean length */

/* Float4 i of the chunk stays at i (no padding, no swizzle): lane l reads float4s 3l to 3l + 2
   (see the top of the file), and the stores of 32 consecutive float4s are conflict-free too. */
static __device__ void stage_plain(float4 *staged, const float *values, size_t base, size_t hi,
                                   size_t total)
{
    const unsigned lane = threadIdx.x % 32;
    float4 part[CHUNK / 128];
    load_chunk(part, values, base, hi, total);
#pragma unroll
    for (int i = 0; i < CHUNK / 128; i++)
        staged[i * 32 + lane] = part[i];
}

/* Queues the copy of values[base, base + CHUNK) ∩ values[.., hi) into `staged` as load_chunk
   reads it (float4 i of the chunk to slot i, lane l taking float4s l, l + 32, …), zeros past hi;
   the array's last float4, when total cuts it short, is loaded and stored as in load_chunk. The
   caller commits and waits. */
static __device__ void copy_chunk(float4 *staged, const float *values, size_t base, size_t hi,
                                  size_t total)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < CHUNK / 128; i++) {
        const size_t j = base + (size_t)(i * 32 + lane) * 4;
        if (j + 4 <= total && j < hi)
            __pipeline_memcpy_async(&staged[i * 32 + lane], values + j, 16);
        else if (j < hi)
            staged[i * 32 + lane] = make_float4(values[j], j + 1 < total ? values[j + 1] : 0.0f,
                                                j + 2 < total ? values[j + 2] : 0.0f, 0.0f);
        else
            staged[i * 32 + lane] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
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

__global__ void __launch_bounds__(SHORT_BLOCK_SIZE, MIN_BLOCKS)
    count_short(const float *values, const size_t *offsets, size_t n, size_t total, float limit,
                piece_list *list, size_t *piece_container, size_t *piece_first)
{
    __shared__ float4 staged_block[SHORT_BLOCK_SIZE / 32][CHUNK / 4];
    __shared__ unsigned starts_block[SHORT_BLOCK_SIZE / 32][WORDS];
    float4 *staged = staged_block[threadIdx.x / 32];
    float *sums = (float *)staged; /* segment sums overwrite the floats they were summed from */
    unsigned *starts = starts_block[threadIdx.x / 32];
    const unsigned lane = threadIdx.x % 32;
    const size_t c = (size_t)blockIdx.x * SHORT_BLOCK_SIZE + threadIdx.x;
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
    finish_short(list, piece_container, piece_first, c, n, end - begin, sum, limit, &list->over);
}

/* The sum of x[0 .. length), read by the whole warp: the floats before the first 16-byte boundary
   one per lane, then float4s, SUM_LOADS per lane in flight, then the last few floats. All 32 lanes
   call it; each gets the sum. */
static __device__ float sum_by_warp(const float *x, size_t length)
{
    const unsigned lane = threadIdx.x % 32;
    const size_t head = (4 - (uintptr_t)x / sizeof(float) % 4) % 4; /* floats before the boundary */
    float sum = lane < head && lane < length ? x[lane] : 0.0f;
    const float4 *body = (const float4 *)(x + head);
    const size_t quads = length > head ? (length - head) / 4 : 0;
    for (size_t q = lane; q < quads; q += 32 * SUM_LOADS) {
        float4 v[SUM_LOADS];
#pragma unroll
        for (int i = 0; i < SUM_LOADS; i++)
            v[i] = q + 32 * i < quads ? body[q + 32 * i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int i = 0; i < SUM_LOADS; i++)
            sum += (v[i].x + v[i].y) + (v[i].z + v[i].w);
    }
    const size_t rest = head + quads * 4; /* fewer than 4 floats from here on */
    if (rest + lane < length)
        sum += x[rest + lane];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(FULL_MASK, sum, offset);
    return sum;
}

/* The kernel for short means. Warp w takes `tile` consecutive containers (a multiple of 32, at
   most GROUPS_MOST · 32) and streams their floats through its chunk front to back, whatever their
   lengths. `next`, the first container not yet counted, moves on with the chunks: a chunk's bitmap
   gets the starts of the containers from `next` up to the first that ends past the chunk, visited
   32 at a time (consecutive containers, so those that end in the chunk are a prefix of the lanes),
   and after the walk the same containers read their sums. A long container is summed by the warp
   (listed as pieces if longer than WARP_SUM_MOST) when `next` reaches it, and the stream goes on
   from its end. Positions are kept as 32-bit offsets from the tile's first float: the host takes
   this kernel only below 2^32 floats. */
__global__ void __launch_bounds__(SHORT_BLOCK_SIZE, MIN_BLOCKS_TILES)
    count_short_tiles(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned tile, piece_list *list, size_t *piece_container,
                      size_t *piece_first)
{
    __shared__ float4 staged_block[SHORT_BLOCK_SIZE / 32][2][CHUNK / 4];
    __shared__ unsigned starts_block[SHORT_BLOCK_SIZE / 32][WORDS];
    __shared__ unsigned at_block[SHORT_BLOCK_SIZE / 32][GROUPS_MOST * 32 + 1];
    __shared__ unsigned longs_block[SHORT_BLOCK_SIZE / 32][GROUPS_MOST];
    unsigned *starts = starts_block[threadIdx.x / 32];
    unsigned *at = at_block[threadIdx.x / 32];       /* container k starts at float at[k] */
    unsigned *longs = longs_block[threadIdx.x / 32]; /* bit k % 32 of word k / 32: k is long */
    const unsigned lane = threadIdx.x % 32;
    const size_t tile_first = ((size_t)blockIdx.x * SHORT_BLOCK_SIZE + threadIdx.x) / 32 * tile;
    const unsigned count = tile_first >= n         ? 0
                           : n - tile_first < tile ? (unsigned)(n - tile_first)
                                                   : tile;
    unsigned over = 0;
    if (count) {
        const size_t from = offsets[tile_first] & ~(size_t)3;
#pragma unroll
        for (unsigned g = 0; g <= GROUPS_MOST; g++) { /* unrolled: the loads go out together */
            const unsigned k = g * 32 + lane;
            if (k <= count)
                at[k] = (unsigned)(offsets[tile_first + k] - from);
        }
        __syncwarp();
        for (unsigned g = 0; g * 32 < count; g++) {
            const unsigned k = g * 32 + lane;
            const unsigned is_long =
                __ballot_sync(FULL_MASK, k < count && at[k + 1] - at[k] > SHORT_MAX);
            if (lane == 0)
                longs[g] = is_long;
        }
        __syncwarp();
        const unsigned end = at[count]; /* floats past it are no container's */
        unsigned next = 0, base = 0;    /* the chunk is floats base … base + CHUNK − 1 */
        float carried = 0.0f;           /* the segment left open at the end of the last chunk */
        unsigned buffer = 0, queued = UINT_MAX; /* queued: the chunk queued into `buffer` */
        while (next < count) {
            if (longs[next / 32] >> (next % 32) & 1) { /* the stream skips it */
                const unsigned length = at[next + 1] - at[next];
                if (length <= WARP_SUM_MOST)
                    over += sum_by_warp(values + from + at[next], length) > limit && lane == 0;
                else
                    list_pieces(list, piece_container, piece_first, tile_first + next,
                                lane == 0 ? length : 0);
                base = at[next + 1] & ~3u, carried = 0.0f, next++;
                continue;
            }
            float4 *staged = staged_block[threadIdx.x / 32][buffer];
            float *sums = (float *)staged; /* segment sums overwrite the floats summed from */
            if (queued != base) { /* the tile's first chunk, or the stream jumped a long one */
                __pipeline_wait_prior(0); /* the copy queued ahead into this buffer has landed */
                copy_chunk(staged, values + from, base, end, total - from);
                __pipeline_commit();
            }
            queued = base + CHUNK; /* the next chunk, into the other buffer */
            if (queued < end)
                copy_chunk(staged_block[threadIdx.x / 32][buffer ^ 1], values + from, queued, end,
                           total - from);
            __pipeline_commit(); /* always one group: the wait below leaves only this one */
            if (lane < WORDS)
                starts[lane] = 0;
            __syncwarp();
            /* The containers from `next` on: e ≥ base for each (every earlier one is counted), so
               unsigned differences compare them with the chunk. Those that end in it are done. */
            unsigned done = 0;
            for (;;) {
                const unsigned k = next + done + lane;
                const int in = k < count;
                const unsigned s = in ? at[k] : 0, e = in ? at[k + 1] : 0;
                if (in && s - base < CHUNK) /* one that started earlier wraps past CHUNK */
                    mark(starts, s - base);
                const unsigned ends_here =
                    __popc(__ballot_sync(FULL_MASK, in && e - base <= CHUNK));
                done += ends_here;
                if (ends_here < 32)
                    break;
            }
            if (lane == 0 && end - base < CHUNK)
                mark(starts, end - base);
            __pipeline_wait_prior(1); /* this lane's copies of this chunk have landed */
            __syncwarp();             /* and every lane's */
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
            for (unsigned j = lane; j < done; j += 32) { /* an empty container sums to 0 */
                const unsigned s = at[next + j], e = at[next + j + 1];
                over += s == e ? 0.0f > limit : sums[e - 1 - base] > limit;
            }
            __syncwarp(); /* everyone has read the chunk before a copy overwrites it */
            next += done, base += CHUNK, buffer ^= 1;
        }
        __pipeline_wait_prior(0); /* no copy lands in the block's shared memory after it is gone */
    }
    count_warp(&list->over, over);
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_pieces(const float *values, const size_t *offsets, float limit, unsigned long long *count,
                 piece_list *list, const size_t *piece_container, const size_t *piece_first,
                 float *slot_sums, unsigned *slot_tickets)
{
    __shared__ unsigned long long block_count;
    __shared__ bool is_last_block;
    if (threadIdx.x == 0)
        block_count = 0;
#if __CUDA_ARCH__ >= 900
    /* launched early: wait until the short kernel has finished and its writes are visible */
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
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
    /* The active blocks: those whose first warp had a piece, and block 0 always, so that with no
       piece at all one block still writes the count. The others had nothing to add and draw no
       ticket. One that reads the list after the last active block emptied it finds no piece, and
       it had none: every active block reads the list before its own ticket. */
    const size_t blocks_with_pieces = (pieces + BLOCK_SIZE / 32 - 1) / (BLOCK_SIZE / 32);
    const size_t active = blocks_with_pieces == 0          ? 1
                          : blocks_with_pieces < gridDim.x ? blocks_with_pieces
                                                           : gridDim.x;
    if (blockIdx.x >= active)
        return;
    for (int offset = 16; offset > 0; offset /= 2)
        over += __shfl_xor_sync(FULL_MASK, over, offset);
    if (lane == 0 && over)
        atomicAdd(&block_count, (unsigned long long)over);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (block_count)
            atomicAdd(&list->over, block_count);
        __threadfence();
        is_last_block = atomicAdd(&list->blocks_done, 1u) == active - 1;
    }
    __syncthreads();
    if (is_last_block && threadIdx.x == 0) { /* every active block has read the list: empty it */
        __threadfence();
        *count = atomicExch(&list->over, 0ull);
        list->pieces = 0, list->blocks_done = 0;
    }
}

/* The most pieces a problem can list: every container longer than SHORT_MAX, cut every PIECE. */
static size_t max_pieces(size_t total)
{
    return total / (SHORT_MAX + 1) + total / PIECE + 1;
}

/* Where the list lives in the workspace: its counters, then per piece its container and its
   container's first piece, then (indexed by that first piece) the slot of a container cut into
   several. */
typedef struct {
    piece_list *list;
    size_t *piece_container, *piece_first;
    float *slot_sums;
    unsigned *slot_tickets;
} piece_workspace;

static size_t piece_workspace_bytes(size_t total)
{
    return 256 + max_pieces(total) * (2 * sizeof(size_t) + sizeof(float) + sizeof(unsigned));
}

static piece_workspace piece_workspace_at(void *workspace, size_t total)
{
    const size_t most = max_pieces(total);
    piece_workspace w;
    w.list = (piece_list *)workspace;
    w.piece_container = (size_t *)((char *)workspace + 256);
    w.piece_first = w.piece_container + most;
    w.slot_sums = (float *)(w.piece_first + most);
    w.slot_tickets = (unsigned *)(w.slot_sums + most);
    return w;
}

/* The second kernel: as many blocks as the GPU holds, over every piece the first one listed. On
   sm_90 and later it may start before the first ends (its blocks wait in griddepcontrol.wait);
   older GPUs have no such wait, and get a plain launch. */
static void launch_pieces(const float *values, const size_t *offsets, float limit,
                          unsigned long long *count, const piece_workspace *w, cudaStream_t stream)
{
    static int major = -1; /* read once, not on every (timed) call */
    if (major < 0) {
        int device;
        CL_CUDA_CHECK(cudaGetDevice(&device));
        CL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    }
    cudaLaunchAttribute early;
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)cl_resident_blocks((const void *)count_pieces, BLOCK_SIZE, 0));
    config.blockDim = dim3(BLOCK_SIZE);
    config.stream = stream;
    config.attrs = &early;
    config.numAttrs = major >= 9;
    CL_CUDA_CHECK(cudaLaunchKernelEx(&config, count_pieces, values, offsets, limit, count, w->list,
                                     (const size_t *)w->piece_container,
                                     (const size_t *)w->piece_first, w->slot_sums,
                                     w->slot_tickets));
}

/* Containers per tile of the stream kernel: groups of 32 that fill TILE_CHUNKS chunks at the mean
   length, at most GROUPS_MOST of them. 0 where one container per lane already fills most of a
   chunk (the short kernel's case, as in v13: means over 6) or where the floats pass 2^32. */
static unsigned stream_tile(size_t n, size_t total)
{
    const size_t mean = n && total / n ? total / n : 1;
    if (CHUNK / (32 * mean) < 2 || total >= (size_t)UINT_MAX - CHUNK)
        return 0;
    const size_t groups = TILE_CHUNKS * CHUNK / (32 * mean);
    return 32 * (unsigned)(groups > GROUPS_MOST ? GROUPS_MOST : groups);
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)n;
    return piece_workspace_bytes(total);
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    const piece_workspace w = piece_workspace_at(workspace, total);
    const unsigned tile = stream_tile(n, total);
    if (tile == 0) {
        const size_t grid = (n + SHORT_BLOCK_SIZE - 1) / SHORT_BLOCK_SIZE;
        count_short<<<(unsigned)grid, SHORT_BLOCK_SIZE, 0, stream>>>(
            values, offsets, n, total, limit, w.list, w.piece_container, w.piece_first);
        CL_LAUNCH_CHECK("count_short");
    } else {
        const size_t tiles = (n + tile - 1) / tile;
        const size_t grid = (tiles + SHORT_BLOCK_SIZE / 32 - 1) / (SHORT_BLOCK_SIZE / 32);
        count_short_tiles<<<(unsigned)grid, SHORT_BLOCK_SIZE, 0, stream>>>(
            values, offsets, n, total, limit, tile, w.list, w.piece_container, w.piece_first);
        CL_LAUNCH_CHECK("count_short_tiles");
    }
    launch_pieces(values, offsets, limit, count, &w, stream);
}
