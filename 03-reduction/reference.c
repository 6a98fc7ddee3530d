/**
 * @file reference.c
 * @brief Lesson 03's CPU side: the inputs, the double-precision reference, the tolerance.
 */
#include "reduction.h"

#include "cl_check.h"
#include "cl_random.h"

#include "cl_parallel.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Blocks of 4096 keep the double error far below anything the float versions can reach; each
   block's sums go to its own slot, added in block order, so no thread count changes a bit. */
#define SUM_BLOCK 4096

typedef struct {
    double *part, *part_abs; /* one per block */
    int *whole;              /* one per block: every element an integer */
    size_t blocks;
} block_sums;

static void alloc_sums(block_sums *s, size_t n)
{
    s->blocks = cl_chunks(n, SUM_BLOCK);
    s->part = (double *)malloc((2 * s->blocks + 1) * sizeof *s->part);
    s->whole = (int *)malloc((s->blocks + 1) * sizeof *s->whole);
    if (s->part == NULL || s->whole == NULL)
        abort();
    s->part_abs = s->part + s->blocks;
}

/* Block b of x: its elements x[0, length), summed in order. */
static void sum_block(const block_sums *s, size_t b, const float *x, size_t length)
{
    double part = 0.0, part_abs = 0.0;
    int whole = 1;
    for (size_t i = 0; i < length; i++) {
        part += x[i];
        part_abs += fabs(x[i]);
        whole &= x[i] == truncf(x[i]);
    }
    s->part[b] = part;
    s->part_abs[b] = part_abs;
    s->whole[b] = whole;
}

/* The blocks' sums added in block order, and the slots freed. */
static void add_blocks(block_sums *s, double *sum, double *sum_abs, int *whole_out)
{
    double total = 0.0, total_abs = 0.0;
    int all_whole = 1;
    for (size_t b = 0; b < s->blocks; b++) {
        total += s->part[b];
        total_abs += s->part_abs[b];
        all_whole &= s->whole[b];
    }
    free(s->part);
    free(s->whole);
    *sum = total;
    *sum_abs = total_abs;
    *whole_out = all_whole;
}

typedef struct {
    input_dist dist;
    uint64_t seed;
    block_sums *sums; /* or NULL: no reference */
} make_args;

/* One draw per element: element i comes from draw i of the seed's stream, on any thread, and lands
   at piece[i - first]. Then, while the chunk is still in this core's cache, its blocks' sums. */
static void make_piece(void *context, void *piece, size_t first, size_t begin, size_t end)
{
    const make_args *m = (const make_args *)context;
    float *x = (float *)piece; /* x[i - first] is element i */
    uint64_t state = cl_random_at(m->seed, begin);
    for (size_t i = begin; i < end; i++) {
        const uint64_t r = cl_next_random(&state);
        if (m->dist == DIST_INT) {
            x[i - first] = (float)((int)(r % 3) - 1);
        } else {
            /* 24 random mantissa bits in [-0.5, 1.5), scaled by 2^-3..2^3: mixed signs and
               magnitudes, a positive mean so the sum is not near zero. */
            const float u = (float)(r >> 40) * (1.0f / 16777216.0f);
            static const float scale[7] = {0.125f, 0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 8.0f};
            x[i - first] = (2.0f * u - 0.5f) * scale[(r >> 8) % 7];
        }
    }
    if (m->sums != NULL) /* a chunk is whole blocks, but for the last */
        for (size_t b = begin; b < end; b += SUM_BLOCK)
            sum_block(m->sums, b / SUM_BLOCK, x + (b - first),
                      end - b < SUM_BLOCK ? end - b : SUM_BLOCK);
}

void make_inputs(float *x, cl_place where, size_t n, input_dist dist, unsigned long long seed,
                 double *sum, double *sum_abs, int *whole)
{
    block_sums sums = {NULL, NULL, NULL, 0};
    make_args m = {dist, seed, NULL};
    if (sum != NULL) {
        alloc_sums(&sums, n);
        m.sums = &sums;
    }
    cl_make(x, where, n, sizeof *x, CL_CHUNK, make_piece, &m,
            where == CL_ON_DEVICE ? "filling %s of inputs on their way to the GPU"
                                  : "filling %s of inputs");
    if (m.sums != NULL)
        add_blocks(&sums, sum, sum_abs, whole);
}

void fill_inputs(float *x, size_t n, input_dist dist, unsigned long long seed)
{
    make_inputs(x, CL_ON_HOST, n, dist, seed, NULL, NULL, NULL);
}

typedef struct {
    const float *x;
    block_sums *sums;
} sum_args;

static void sum_chunk(void *context, size_t begin, size_t end)
{
    const sum_args *s = (const sum_args *)context;
    sum_block(s->sums, begin / SUM_BLOCK, s->x + begin, end - begin);
}

void reference_sum(const float *x, size_t n, double *sum, double *sum_abs, int *whole)
{
    block_sums sums;
    alloc_sums(&sums, n);
    sum_args s = {x, &sums};
    cl_parallel_phase(n, SUM_BLOCK, sum_chunk, &s, n * sizeof *x, "summing %s of inputs in double");
    add_blocks(&sums, sum, sum_abs, whole);
}

int sum_is_exact_in_float(int whole, double sum_abs)
{
    return whole && sum_abs <= 16777216.0;
}

double reduction_tolerance(size_t n, int exact)
{
    if (exact)
        return 0.0;
    const double h = (double)((n + 65535) / 65536) + 64.0;
    return cl_float_gamma(h);
}
