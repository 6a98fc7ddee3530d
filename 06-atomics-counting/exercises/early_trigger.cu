/**
 * @file early_trigger.cu
 * @brief Exercise "Where the dependent starts" of 06-atomics-counting (part 2), a solution: v17
 * with each block of the short kernels letting the pieces kernel launch as soon as it starts.
 *
 * Without a trigger, v17's pieces kernel may launch once every block of the short kernel has
 * exited. `griddepcontrol.launch_dependents` lets it launch once every block has issued it or
 * exited: here the first thing a block does, so the pieces kernel's blocks are placed while the
 * short kernel's last blocks still run. They wait in `griddepcontrol.wait`, which still waits for
 * the whole short kernel and its writes: the count is right wherever the trigger sits.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "counting.h"

/* Blocks of 4 warps per SM for the short kernels' launch bounds: all the SM holds (ptxas refuses
   more). */
#if __CUDA_ARCH__ == 750
#define MIN_BLOCKS 8
#elif __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200
#define MIN_BLOCKS 12
#else
#define MIN_BLOCKS 16
#endif
/* The tiled kernel: 40 registers, 12 blocks of 128 on sm_90, the warps per SM of v14's 6 of 256. */
#define MIN_BLOCKS_TILES (MIN_BLOCKS * 3 / 4)
#define SHORT_BLOCK_SIZE 128  /* the short kernels' blocks: 4 warps */
#define BLOCK_SIZE       256  /* the pieces kernel's */
#define SHORT_MAX        1024 /* longer containers go to the pieces, as in v12 */
#include "piece_scan.cuh"

/* Adds `over` of every thread of the block to the count, one atomic. All threads call it. */
static __device__ void count_block(unsigned long long *count, unsigned over)
{
    __shared__ unsigned warp_over[SHORT_BLOCK_SIZE / 32];
    for (int offset = 16; offset > 0; offset /= 2)
        over += __shfl_xor_sync(FULL_MASK, over, offset);
    if (threadIdx.x % 32 == 0)
        warp_over[threadIdx.x / 32] = over;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long block_count = 0;
        for (int w = 0; w < SHORT_BLOCK_SIZE / 32; w++)
            block_count += warp_over[w];
        if (block_count)
            atomicAdd(count, block_count);
    }
}

#include "tails.cuh" /* v16's walk of a tile's run: v13's slices, v14's tiles, v16's tail */

/* Lets the pieces kernel launch now (sm_90 on); its blocks still wait for all of this grid. */
static __device__ __forceinline__ void allow_dependents(void)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

__global__ void __launch_bounds__(SHORT_BLOCK_SIZE, MIN_BLOCKS)
    count_short(const float *values, const size_t *offsets, size_t n, size_t total, float limit,
                piece_list *list, size_t *piece_container, size_t *piece_first)
{
    allow_dependents();
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
            carried = sum_segments(sums, staged, starts, carried);
            __syncwarp();
            if (in_run && begin < end && end - 1 >= base && end - 1 < base + CHUNK)
                sum = sums[end - 1 - base];
            __syncwarp(); /* everyone has read the chunk before the next one overwrites it */
        }
    }
    finish_short(list, piece_container, piece_first, c, n, end - begin, SHORT_MAX, sum, limit,
                 &list->over);
}

__global__ void __launch_bounds__(SHORT_BLOCK_SIZE, MIN_BLOCKS_TILES)
    count_short_tiles(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned per_lane, piece_list *list, size_t *piece_container,
                      size_t *piece_first)
{
    allow_dependents();
    __shared__ float4 staged_block[SHORT_BLOCK_SIZE / 32][CHUNK / 4];
    __shared__ unsigned starts_block[SHORT_BLOCK_SIZE / 32][WORDS];
    __shared__ unsigned at_block[SHORT_BLOCK_SIZE / 32][PER_LANE_MOST + 1][32];
    float4 *staged = staged_block[threadIdx.x / 32];
    unsigned *starts = starts_block[threadIdx.x / 32];
    unsigned(*at)[32] = at_block[threadIdx.x / 32];
    const unsigned lane = threadIdx.x % 32;
    const size_t tile = (size_t)per_lane * 32; /* the warp's containers */
    const size_t tile_first = ((size_t)blockIdx.x * SHORT_BLOCK_SIZE + threadIdx.x) / 32 * tile;
    const size_t mine = tile_first + (size_t)lane * per_lane; /* this lane's first container */
    const size_t lo = offsets[tile_first < n ? tile_first : n];
    const size_t hi = offsets[tile_first + tile < n ? tile_first + tile : n];
    const size_t from = lo & ~(size_t)3;
    unsigned own = 0, over = 0;
    int has_long = 0;
    size_t previous = 0;
#pragma unroll
    for (int r = 0; r <= PER_LANE_MOST; r++) {
        const int in_tile = r <= (int)per_lane && mine + r <= n;
        const size_t bound = in_tile ? offsets[mine + r] : previous;
        at[r][lane] = (unsigned)(bound - from); /* used only when the whole tile is short */
        if (r > 0 && in_tile) {
            own |= 1u << (r - 1);
            has_long |= bound - previous > SHORT_MAX;
            over += bound == previous && 0.0f > limit; /* an empty container sums to 0 */
        }
        previous = bound;
    }
    if (!__any_sync(FULL_MASK, has_long)) { /* every container of the tile is short: one run */
        over += count_run(at, own, values + from, (unsigned)(hi - from), total - from, limit,
                          staged, starts);
    } else {
        /* a long container: v13's runs, one row of 32 consecutive containers at a time, a lane
           each, cut at the long ones, which are listed as pieces */
        over = 0;
        for (unsigned row = 0; row < per_lane; row++) {
            const size_t c = tile_first + (size_t)row * 32 + lane;
            size_t begin = 0, end = 0;
            if (c < n)
                begin = offsets[c], end = offsets[c + 1];
            const int is_long = end - begin > SHORT_MAX;
            over += c < n && begin == end && 0.0f > limit;
            unsigned todo = ~__ballot_sync(FULL_MASK, c >= n || is_long);
            while (todo) {
                int first, last;
                next_run(&todo, &first, &last);
                const size_t run_from = __shfl_sync(FULL_MASK, begin, first) & ~(size_t)3;
                const size_t run_end = __shfl_sync(FULL_MASK, end, last);
                const unsigned in_run = (int)lane >= first && (int)lane <= last;
                at[0][lane] = (unsigned)(begin - run_from),
                at[1][lane] = (unsigned)(end - run_from);
                over += count_run(at, in_run, values + run_from, (unsigned)(run_end - run_from),
                                  total - run_from, limit, staged, starts);
            }
            list_pieces(list, piece_container, piece_first, c, is_long ? end - begin : 0);
        }
    }
    count_block(&list->over, over);
}

/* Containers per lane: as many as fill a warp's chunk at the mean length, 1 to PER_LANE_MOST. */
static unsigned containers_per_lane(size_t n, size_t total)
{
    const size_t mean = n ? total / n : 0;
    const size_t fill = CHUNK / (32 * (mean ? mean : 1));
    return fill < 1 ? 1 : fill > PER_LANE_MOST ? PER_LANE_MOST : (unsigned)fill;
}

/* The second kernel, v8's: a warp per listed piece, a container of several finished in its slot;
   the last of its blocks with pieces to finish writes the count and empties the list for the next
   call. */
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

/* The second kernel: as many blocks as the GPU holds, over every piece the first one listed. On
   sm_90 and later it may start before the first ends (its blocks wait in griddepcontrol.wait);
   elsewhere it gets a plain launch. */
static void launch_pieces(const float *values, const size_t *offsets, float limit,
                          unsigned long long *count, const piece_workspace *w, cudaStream_t stream)
{
    /* early only if its blocks wait: built from PTX for sm_90 on (a kernel JIT-built from older
       PTX has no griddepcontrol.wait on any GPU); read once, not on every call */
    static int has_wait = -1;
    if (has_wait < 0) {
        struct cudaFuncAttributes attributes;
        CL_CUDA_CHECK(cudaFuncGetAttributes(&attributes, (const void *)count_pieces));
        has_wait = attributes.ptxVersion >= 90;
    }
    cudaLaunchAttribute early;
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)cl_resident_blocks((const void *)count_pieces, BLOCK_SIZE, 0));
    config.blockDim = dim3(BLOCK_SIZE);
    config.stream = stream;
    config.attrs = &early;
    config.numAttrs = has_wait;
    CL_CUDA_CHECK(cudaLaunchKernelEx(&config, count_pieces, values, offsets, limit, count, w->list,
                                     (const size_t *)w->piece_container,
                                     (const size_t *)w->piece_first, w->slot_sums,
                                     w->slot_tickets));
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)n;
    return piece_workspace_bytes(total, SHORT_MAX);
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    const piece_workspace w = piece_workspace_at(workspace, total, SHORT_MAX);
    const unsigned per_lane = containers_per_lane(n, total);
    if (per_lane == 1) {
        const size_t grid = (n + SHORT_BLOCK_SIZE - 1) / SHORT_BLOCK_SIZE;
        count_short<<<(unsigned)grid, SHORT_BLOCK_SIZE, 0, stream>>>(
            values, offsets, n, total, limit, w.list, w.piece_container, w.piece_first);
        CL_LAUNCH_CHECK("count_short");
    } else {
        const size_t tiles = (n + 32 * (size_t)per_lane - 1) / (32 * (size_t)per_lane);
        const size_t grid = (tiles + SHORT_BLOCK_SIZE / 32 - 1) / (SHORT_BLOCK_SIZE / 32);
        count_short_tiles<<<(unsigned)grid, SHORT_BLOCK_SIZE, 0, stream>>>(
            values, offsets, n, total, limit, per_lane, w.list, w.piece_container, w.piece_first);
        CL_LAUNCH_CHECK("count_short_tiles");
    }
    launch_pieces(values, offsets, limit, count, &w, stream);
}
