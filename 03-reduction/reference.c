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

typedef struct {
    float *x;
    input_dist dist;
    uint64_t seed;
} fill_args;

/* One draw per element: element i comes from draw i of the seed's stream, on any thread. */
static void fill_chunk(void *context, size_t begin, size_t end)
{
    const fill_args *f = (const fill_args *)context;
    uint64_t state = cl_random_at(f->seed, begin);
    for (size_t i = begin; i < end; i++) {
        const uint64_t r = cl_next_random(&state);
        if (f->dist == DIST_INT) {
            f->x[i] = (float)((int)(r % 3) - 1);
        } else {
            /* 24 random mantissa bits in [-0.5, 1.5), scaled by 2^-3..2^3: mixed signs and
               magnitudes, a positive mean so the sum is not near zero. */
            const float u = (float)(r >> 40) * (1.0f / 16777216.0f);
            static const float scale[7] = {0.125f, 0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 8.0f};
            f->x[i] = (2.0f * u - 0.5f) * scale[(r >> 8) % 7];
        }
    }
}

void fill_inputs(float *x, size_t n, input_dist dist, unsigned long long seed)
{
    fill_args f = {x, dist, seed};
    cl_parallel_phase(n, CL_CHUNK, fill_chunk, &f, n * sizeof *x, "filling %s of inputs");
}

/* Blocks of 4096 keep the double error far below anything the float versions can reach; each
   block's sums go to its own slot, added in block order, so no thread count changes a bit. */
#define SUM_BLOCK 4096

typedef struct {
    const float *x;
    double *part, *part_abs; /* one per block */
    int *whole;              /* one per block: every element an integer */
} sum_args;

static void sum_chunk(void *context, size_t begin, size_t end)
{
    const sum_args *s = (const sum_args *)context;
    double part = 0.0, part_abs = 0.0;
    int whole = 1;
    for (size_t i = begin; i < end; i++) {
        part += s->x[i];
        part_abs += fabs(s->x[i]);
        whole &= s->x[i] == truncf(s->x[i]);
    }
    s->part[begin / SUM_BLOCK] = part;
    s->part_abs[begin / SUM_BLOCK] = part_abs;
    s->whole[begin / SUM_BLOCK] = whole;
}

void reference_sum(const float *x, size_t n, double *sum, double *sum_abs, int *whole_out)
{
    const size_t blocks = cl_chunks(n, SUM_BLOCK);
    double *part = (double *)malloc(2 * blocks * sizeof *part);
    int *whole = (int *)malloc(blocks * sizeof *whole);
    if (part == NULL || whole == NULL)
        abort();
    sum_args s = {x, part, part + blocks, whole};
    cl_parallel_phase(n, SUM_BLOCK, sum_chunk, &s, n * sizeof *x, "summing %s of inputs in double");
    double total = 0.0, total_abs = 0.0;
    int all_whole = 1;
    for (size_t b = 0; b < blocks; b++) {
        total += part[b];
        total_abs += part[blocks + b];
        all_whole &= whole[b];
    }
    free(part);
    free(whole);
    *sum = total;
    *sum_abs = total_abs;
    *whole_out = all_whole;
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
