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
#include <string.h>

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

/* Block b of x: its elements x[0, length), in four interleaved sums (one chain of dependent adds
   would wait on each add's latency), joined in a fixed order; and, where @p check_whole, whether
   every element is an integer (else the block says no, which only ever costs exactness). */
static void sum_block(const block_sums *s, size_t b, const float *x, size_t length, int check_whole)
{
    double part[4] = {0.0, 0.0, 0.0, 0.0}, part_abs[4] = {0.0, 0.0, 0.0, 0.0};
    size_t i = 0;
    for (; i + 4 <= length; i += 4)
        for (int k = 0; k < 4; k++) {
            part[k] += x[i + k];
            part_abs[k] += fabs(x[i + k]);
        }
    for (; i < length; i++) {
        part[0] += x[i];
        part_abs[0] += fabs(x[i]);
    }
    int whole = check_whole;
    for (i = 0; whole && i < length; i++)
        whole = x[i] == truncf(x[i]);
    s->part[b] = (part[0] + part[1]) + (part[2] + part[3]);
    s->part_abs[b] = (part_abs[0] + part_abs[1]) + (part_abs[2] + part_abs[3]);
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

/* One value from 32 random bits: an integer in {-1, 0, 1}, or 24 random mantissa bits in
   [-0.5, 1.5) scaled by 2^e, e from -3 to 3 taken from the low byte (mixed signs and magnitudes, a
   positive mean so the sum is not near zero). The scale is built from its exponent bits, no table
   or division, so that a chunk's values cost little more than their draws. */
static float input_value(uint32_t bits, input_dist dist)
{
    if (dist == DIST_INT)
        return (float)((int)(bits % 3) - 1);
    const float u = (float)(bits >> 8) * (1.0f / 16777216.0f);
    const uint32_t e = ((bits & 255u) * 7u) >> 8; /* 0 to 6 */
    const uint32_t scale_bits = (e + 124u) << 23; /* 2^(e - 3) */
    float scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    return (2.0f * u - 0.5f) * scale;
}

/* Two values per draw (the draw is most of a value's cost): element i is half i % 2 of draw i / 2
   of the seed's stream, on any thread, and lands at piece[i - first]. Chunks start at even
   elements. Then, while the chunk is still in this core's cache, its blocks' sums. */
static void make_piece(void *context, void *piece, size_t first, size_t begin, size_t end)
{
    const make_args *m = (const make_args *)context;
    float *x = (float *)piece; /* x[i - first] is element i */
    uint64_t state = cl_random_at(m->seed, begin / 2);
    size_t i = begin;
    for (; i + 2 <= end; i += 2) {
        const uint64_t r = cl_next_random(&state);
        x[i - first] = input_value((uint32_t)r, m->dist);
        x[i + 1 - first] = input_value((uint32_t)(r >> 32), m->dist);
    }
    if (i < end)
        x[i - first] = input_value((uint32_t)cl_next_random(&state), m->dist);
    if (m->sums != NULL) /* a chunk is whole blocks, but for the last */
        for (size_t b = begin; b < end; b += SUM_BLOCK)
            sum_block(m->sums, b / SUM_BLOCK, x + (b - first),
                      end - b < SUM_BLOCK ? end - b : SUM_BLOCK, m->dist == DIST_INT);
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
    cl_make(x, where, n, sizeof *x, CL_CHUNK, make_piece, &m, "filling %s of inputs");
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
    sum_block(s->sums, begin / SUM_BLOCK, s->x + begin, end - begin, 1);
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
