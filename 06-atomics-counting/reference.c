/**
 * @file reference.c
 * @brief Lesson 06's CPU side: container lengths, values, and the count with its rounding bounds.
 */
#include "counting.h"

#include "cl_check.h"
#include "cl_device.h"
#include "cl_parallel.h"
#include "cl_random.h"

#include <math.h>
#include <stdlib.h>

/* Containers per chunk of the reference count: a container may hold millions of values. */
#define COUNT_CHUNK ((size_t)1 << 10)

/* A uniform double in (0, 1], never 0 (the power law divides by it). */
static double open_unit(uint64_t r)
{
    return ((double)(r >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

/* The Lomax scale s whose capped, floored law has mean ≈ mean: E[min(X, cap)] = 2s (1 − (1 +
   cap/s)^−1/2) for shape 1.5, and flooring takes about 1/2 off. A few fixed-point steps. */
static double powerlaw_scale(double mean, double cap)
{
    double s = (mean + 0.5) / 2.0;
    for (int step = 0; step < 50; step++)
        s = (mean + 0.5) / (2.0 * (1.0 - 1.0 / sqrt(1.0 + cap / s)));
    return s;
}

typedef struct {
    size_t *offsets;
    length_dist lengths;
    uint64_t mean, seed;
    double cap, scale;
    uint64_t *chunk_total; /* one per chunk of containers; UINT64_MAX when it overflows */
} offsets_args;

/* One draw per container (none for fixed lengths): container c's length comes from draw c, on
   any thread. Each chunk writes its lengths' running sum from 0, and its total. */
static void lengths_chunk(void *context, size_t begin, size_t end)
{
    const offsets_args *o = (const offsets_args *)context;
    uint64_t state = cl_random_at(o->seed, begin), total = 0;
    for (size_t c = begin; c < end; c++) {
        uint64_t length = o->mean;
        if (o->lengths == LENGTHS_UNIFORM && o->mean > 0) {
            length = 1 + cl_next_random(&state) % (2 * o->mean - 1);
        } else if (o->lengths == LENGTHS_POWERLAW && o->mean > 0) {
            /* inverse CDF of the Lomax law: s (u^(−1/1.5) − 1), u uniform in (0, 1] */
            const double x = o->scale * (pow(open_unit(cl_next_random(&state)), -2.0 / 3.0) - 1.0);
            length = x < o->cap ? (uint64_t)x : (uint64_t)o->cap;
        }
        if (length > UINT64_MAX - total) {
            o->chunk_total[begin / CL_CHUNK] = UINT64_MAX;
            return;
        }
        total += length;
        o->offsets[c + 1] = (size_t)total;
    }
    o->chunk_total[begin / CL_CHUNK] = total;
}

/* Adds the chunk's start (the totals of the chunks before it) to its running sums. */
static void shift_chunk(void *context, size_t begin, size_t end)
{
    const offsets_args *o = (const offsets_args *)context;
    const uint64_t start = o->chunk_total[begin / CL_CHUNK];
    for (size_t c = begin; c < end; c++)
        o->offsets[c + 1] += (size_t)start;
}

uint64_t fill_offsets(size_t *offsets, size_t n, length_dist lengths, uint64_t mean, uint64_t seed)
{
    const double cap = (double)mean * POWERLAW_CAP_FACTOR;
    const size_t chunks = cl_chunks(n, CL_CHUNK);
    uint64_t *chunk_total = (uint64_t *)malloc((chunks ? chunks : 1) * sizeof *chunk_total);
    if (chunk_total == NULL)
        abort();
    offsets_args o = {offsets,    lengths, mean,
                      seed,       cap,     mean > 0 ? powerlaw_scale((double)mean, cap) : 0.0,
                      chunk_total};
    offsets[0] = 0;
    cl_progress progress;
    cl_progress_begin(&progress, (double)n, NULL, "drawing %zu container lengths", n);
    cl_parallel_for(n, CL_CHUNK, lengths_chunk, &o, &progress);
    /* each chunk's start: the sum of the totals before it, in order (overflow: UINT64_MAX) */
    uint64_t total = 0;
    for (size_t c = 0; c < chunks; c++) {
        const uint64_t chunk = chunk_total[c];
        if (chunk > UINT64_MAX - total) {
            free(chunk_total);
            return UINT64_MAX;
        }
        chunk_total[c] = total;
        total += chunk;
    }
    cl_parallel_for(n, CL_CHUNK, shift_chunk, &o, NULL);
    free(chunk_total);
    return total;
}

/* One value from 32 random bits: an integer from -1 to 2, or a float in [-1, 2) from 24 bits. */
static float value_from_bits(uint32_t bits, value_dist dist)
{
    return dist == DIST_INT ? (float)((int)(bits >> 30) - 1)
                            : -1.0f + 3.0f * (float)(bits >> 8) * 0x1p-24f;
}

typedef struct {
    float *values;
    value_dist dist;
    uint64_t seed;
} values_args;

/* Two values per draw (filling 2^31 floats takes seconds, not tens of them): value i is half
   i % 2 of draw i / 2, written at out[i - begin]. Chunks start at even values. */
static void draw_values(float *out, size_t begin, size_t end, value_dist dist, uint64_t seed)
{
    uint64_t state = cl_random_at(seed, begin / 2);
    size_t i = begin;
    for (; i + 2 <= end; i += 2) {
        const uint64_t r = cl_next_random(&state);
        out[i - begin] = value_from_bits((uint32_t)r, dist);
        out[i + 1 - begin] = value_from_bits((uint32_t)(r >> 32), dist);
    }
    if (i < end)
        out[i - begin] = value_from_bits((uint32_t)cl_next_random(&state), dist);
}

static void values_chunk(void *context, size_t begin, size_t end)
{
    const values_args *v = (const values_args *)context;
    draw_values(v->values + begin, begin, end, v->dist, v->seed);
}

void fill_values(float *values, size_t total, value_dist dist, uint64_t seed)
{
    values_args v = {values, dist, seed ^ 0x5eed0f10a75ull};
    cl_parallel_phase(total, CL_CHUNK, values_chunk, &v, total * sizeof *values,
                      "filling %s of values");
}

/* A container longer than this is summed by every thread, in blocks of CL_CHUNK values whose sums
   are added in block order: the same bits on any number of threads. Shorter ones are one thread's
   each. */
#define LONG_CONTAINER ((size_t)1 << 22)

/* Adds one container's verdict to @p r, from its double sum and the sum of its magnitudes. */
static void classify(reference_count *r, double sum, double magnitude, size_t length,
                     double threshold, int exact_ints)
{
    if (length > r->longest)
        r->longest = length;
    /* Any order of float additions of `length` terms errs by at most γ_{length−1} Σ|x| (Higham,
       Thm 4.4 for any summation tree); our own double sum, in any order, adds γ_{length} Σ|x| at
       2^−53, so the band covers both. Integers summing to ≤ 2^24 in magnitude are exact. */
    double bound = 0.0;
    if (!(exact_ints && magnitude <= 16777216.0) && length > 1)
        bound = (cl_float_gamma((double)(length - 1)) + (double)length * 0x1p-52) * magnitude;
    if (sum - bound > threshold)
        r->sure++;
    else if (sum + bound > threshold)
        r->ambiguous++;
}

/* Adds the verdicts of @p more to @p r. */
static void add_counts(reference_count *r, const reference_count *more)
{
    r->sure += more->sure;
    r->ambiguous += more->ambiguous;
    r->longest = more->longest > r->longest ? more->longest : r->longest;
}

typedef struct {
    const float *values;
    const size_t *offsets;
    float limit;
    int exact_ints;
    reference_count *counts; /* one per chunk of containers: integers, added in any order */
    double *block_sums;      /* a long container's: sum and magnitude per block */
} count_args;

static void count_chunk(void *context, size_t begin, size_t end)
{
    const count_args *a = (const count_args *)context;
    reference_count r = {0, 0, 0};
    for (size_t c = begin; c < end; c++) {
        const size_t first = a->offsets[c], last = a->offsets[c + 1];
        if (last - first > LONG_CONTAINER) { /* summed on its own, by every thread */
            r.longest = last - first > r.longest ? last - first : r.longest;
            continue;
        }
        double sum = 0.0, magnitude = 0.0;
        for (size_t j = first; j < last; j++) {
            sum += a->values[j];
            magnitude += fabs((double)a->values[j]);
        }
        classify(&r, sum, magnitude, last - first, (double)a->limit, a->exact_ints);
    }
    a->counts[begin / COUNT_CHUNK] = r;
}

/* One block of a long container (values from a->values, already offset to its start). */
static void block_chunk(void *context, size_t begin, size_t end)
{
    const count_args *a = (const count_args *)context;
    double sum = 0.0, magnitude = 0.0;
    for (size_t j = begin; j < end; j++) {
        sum += a->values[j];
        magnitude += fabs((double)a->values[j]);
    }
    a->block_sums[2 * (begin / CL_CHUNK)] = sum;
    a->block_sums[2 * (begin / CL_CHUNK) + 1] = magnitude;
}

reference_count count_reference(const float *values, const size_t *offsets, size_t n, float limit,
                                int exact_ints)
{
    const size_t chunks = cl_chunks(n, COUNT_CHUNK);
    reference_count *counts = (reference_count *)malloc((chunks ? chunks : 1) * sizeof *counts);
    if (counts == NULL)
        abort();
    count_args a = {values, offsets, limit, exact_ints, counts, NULL};
    char size[32];
    cl_format_bytes(offsets[n] * sizeof *values, size, sizeof size);
    cl_progress progress;
    cl_progress_begin(&progress, (double)n, NULL, "summing %zu containers (%s) in double", n, size);
    cl_parallel_for(n, COUNT_CHUNK, count_chunk, &a, &progress);
    reference_count r = {0, 0, 0};
    for (size_t c = 0; c < chunks; c++)
        add_counts(&r, &counts[c]);
    /* the long containers, one at a time, in the chunks that hold one */
    for (size_t chunk = 0; chunk < chunks; chunk++) {
        if (counts[chunk].longest <= LONG_CONTAINER)
            continue;
        const size_t last_container = (chunk + 1) * COUNT_CHUNK < n ? (chunk + 1) * COUNT_CHUNK : n;
        for (size_t c = chunk * COUNT_CHUNK; c < last_container; c++) {
            const size_t length = offsets[c + 1] - offsets[c];
            if (length <= LONG_CONTAINER)
                continue;
            const size_t blocks = cl_chunks(length, CL_CHUNK);
            a.values = values + offsets[c];
            a.block_sums = (double *)malloc(2 * blocks * sizeof *a.block_sums);
            if (a.block_sums == NULL)
                abort();
            cl_format_bytes(length * sizeof *values, size, sizeof size);
            cl_progress_begin(&progress, (double)length, NULL,
                              "summing container %zu (%s) in double", c, size);
            cl_parallel_for(length, CL_CHUNK, block_chunk, &a, &progress);
            double sum = 0.0, magnitude = 0.0;
            for (size_t b = 0; b < blocks; b++) {
                sum += a.block_sums[2 * b];
                magnitude += a.block_sums[2 * b + 1];
            }
            free(a.block_sums);
            classify(&r, sum, magnitude, length, (double)limit, exact_ints);
        }
    }
    free(counts);
    return r;
}

/* ---- The values made on their way to the GPU, and counted there ---------------------------- */

typedef struct {
    double sum, magnitude;
} piece_sum;

typedef struct {
    value_dist dist;
    uint64_t seed;
    const size_t *offsets;
    size_t n;
    double threshold;
    int exact_ints;
    /* one of each per chunk of CL_CHUNK values, or NULL: no reference */
    reference_count *whole; /* the containers the chunk holds whole */
    piece_sum *head;        /* the piece of the container that began before the chunk */
    piece_sum *tail;        /* the piece of the container that begins in it and goes on */
    size_t *tail_container; /* which that is (n: none) */
} make_args;

/* The first container whose values reach past @p value: offsets[c] <= value < offsets[c + 1]. */
static size_t container_of(const size_t *offsets, size_t n, size_t value)
{
    size_t lo = 0, hi = n; /* offsets[lo] <= value < offsets[hi] */
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] <= value)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Values [begin, end), at piece[i - first]; then, while they are in this core's cache, the sums
   of the containers they hold, whole or in part. */
static void make_piece(void *context, void *piece, size_t first, size_t begin, size_t end)
{
    const make_args *m = (const make_args *)context;
    const float *v = (float *)piece + (begin - first); /* v[j - begin] is value j */
    draw_values((float *)piece + (begin - first), begin, end, m->dist, m->seed);
    if (m->whole == NULL)
        return;
    const size_t chunk = begin / CL_CHUNK;
    reference_count r = {0, 0, 0};
    for (size_t c = container_of(m->offsets, m->n, begin); c < m->n && m->offsets[c] < end; c++) {
        const size_t start = m->offsets[c], stop = m->offsets[c + 1];
        if (start == stop)
            continue; /* empty: counted apart */
        const size_t lo = start > begin ? start : begin, hi = stop < end ? stop : end;
        double sum = 0.0, magnitude = 0.0;
        for (size_t j = lo; j < hi; j++) {
            sum += v[j - begin];
            magnitude += fabs((double)v[j - begin]);
        }
        if (start < begin) {
            m->head[chunk] = (piece_sum){sum, magnitude};
        } else if (stop > end) {
            m->tail[chunk] = (piece_sum){sum, magnitude};
            m->tail_container[chunk] = c;
        } else {
            classify(&r, sum, magnitude, stop - start, m->threshold, m->exact_ints);
        }
    }
    m->whole[chunk] = r;
}

typedef struct {
    const size_t *offsets;
    size_t *empty; /* one per chunk of containers */
} empty_args;

static void empty_chunk(void *context, size_t begin, size_t end)
{
    const empty_args *e = (const empty_args *)context;
    size_t empty = 0;
    for (size_t c = begin; c < end; c++)
        empty += e->offsets[c] == e->offsets[c + 1];
    e->empty[begin / COUNT_CHUNK] = empty;
}

void make_values(float *values, cl_place where, size_t total, value_dist dist, uint64_t seed,
                 const size_t *offsets, size_t n, float limit, int exact_ints, reference_count *ref)
{
    const size_t chunks = cl_chunks(total, CL_CHUNK);
    make_args m = {
        dist, seed ^ 0x5eed0f10a75ull, offsets, n, (double)limit, exact_ints, NULL, NULL, NULL,
        NULL};
    if (ref != NULL) {
        m.whole = (reference_count *)calloc(chunks + 1, sizeof *m.whole);
        m.head = (piece_sum *)calloc(chunks + 1, sizeof *m.head);
        m.tail = (piece_sum *)calloc(chunks + 1, sizeof *m.tail);
        m.tail_container = (size_t *)malloc((chunks + 1) * sizeof *m.tail_container);
        if (m.whole == NULL || m.head == NULL || m.tail == NULL || m.tail_container == NULL)
            abort();
        for (size_t t = 0; t < chunks; t++)
            m.tail_container[t] = n;
    }
    cl_make(values, where, total, sizeof *values, CL_CHUNK, make_piece, &m, "filling %s of values");
    if (ref == NULL)
        return;
    /* the chunks' whole containers, then those that cross chunks, their pieces joined in chunk
       order: the same bits on any number of threads */
    reference_count r = {0, 0, 0};
    size_t open = n; /* the container whose pieces are being joined */
    piece_sum joined = {0.0, 0.0};
    for (size_t t = 0; t < chunks; t++) {
        add_counts(&r, &m.whole[t]);
        if (open < n) {
            joined.sum += m.head[t].sum;
            joined.magnitude += m.head[t].magnitude;
            if (offsets[open + 1] <= (t + 1) * CL_CHUNK) { /* it ends in this chunk */
                classify(&r, joined.sum, joined.magnitude, offsets[open + 1] - offsets[open],
                         (double)limit, exact_ints);
                open = n;
            }
        }
        if (m.tail_container[t] < n) {
            open = m.tail_container[t];
            joined = m.tail[t];
        }
    }
    /* the empty containers: a sum of 0, over the limit only if the limit is negative */
    const size_t container_chunks = cl_chunks(n, COUNT_CHUNK);
    empty_args e = {offsets, (size_t *)calloc(container_chunks + 1, sizeof(size_t))};
    if (e.empty == NULL)
        abort();
    cl_parallel_for(n, COUNT_CHUNK, empty_chunk, &e, NULL);
    size_t empties = 0;
    for (size_t c = 0; c < container_chunks; c++)
        empties += e.empty[c];
    reference_count empty = {0, 0, 0}; /* one empty container's verdict, given to each */
    classify(&empty, 0.0, 0.0, 0, (double)limit, exact_ints);
    r.sure += empties * empty.sure;
    r.ambiguous += empties * empty.ambiguous;
    free(e.empty);
    free(m.whole);
    free(m.head);
    free(m.tail);
    free(m.tail_container);
    *ref = r;
}
