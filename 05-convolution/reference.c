/**
 * @file reference.c
 * @brief Lesson 05's CPU side: the inputs, one output in double precision, the tolerance.
 */
#include "conv.h"

#include "cl_check.h"
#include "cl_parallel.h"
#include "cl_random.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Value i from draw i of the seed's stream: a function of the seed and i alone. */
static float input_value(uint64_t seed, size_t i, input_dist dist)
{
    uint64_t state = cl_random_at(seed, i);
    const uint64_t r = cl_next_random(&state);
    if (dist == DIST_INT)
        return (float)((int)(r % 5) - 2);
    return (float)(r >> 40) * (2.0f / 16777216.0f) - 1.0f; /* 24 random bits in [-1, 1) */
}

typedef struct {
    input_dist dist;
    uint64_t seed;
} make_args;

/* Values [begin, end), at piece[i - first], on any thread. */
static void make_piece(void *context, void *piece, size_t first, size_t begin, size_t end)
{
    const make_args *m = (const make_args *)context;
    float *v = (float *)piece;
    for (size_t i = begin; i < end; i++)
        v[i - first] = input_value(m->seed, i, m->dist);
}

void make_inputs(float *v, cl_place where, size_t count, input_dist dist, unsigned long long seed)
{
    make_args m = {dist, seed};
    cl_make(v, where, count, sizeof *v, CL_CHUNK, make_piece, &m, "filling %s of inputs");
}

void fill_inputs(float *v, size_t count, input_dist dist, unsigned long long seed)
{
    make_inputs(v, CL_ON_HOST, count, dist, seed);
}

double reference_output(const float *x, const float *w, const conv_shape *s, int b, int co,
                        size_t i, double *magnitude)
{
    const long long r = (s->mask - 1) / 2;
    double sum = 0.0, mag = 0.0;
    for (int ci = 0; ci < s->channels; ci++) {
        const float *row = x + ((size_t)b * (size_t)s->channels + (size_t)ci) * s->length;
        const float *taps = w + ((size_t)co * (size_t)s->channels + (size_t)ci) * (size_t)s->mask;
        for (int j = 0; j < s->mask; j++) {
            const long long at = (long long)i + j - r;
            if (at < 0 || at >= (long long)s->length)
                continue; /* zero padding */
            const double term = (double)taps[j] * (double)row[at];
            sum += term;
            mag += fabs(term);
        }
    }
    *magnitude = mag;
    return sum;
}

double conv_tolerance(const conv_shape *s, int exact, int split_tf32)
{
    const double h = (double)s->channels * (double)s->mask;
    if (exact)
        return 0.0;
    if (split_tf32)
        return cl_float_gamma(4.0 * h) + 5.0 * ldexp(1.0, -22) + ldexp(1.0, -24);
    return cl_float_gamma(h);
}

/* The outputs a check compares, in the order it compares them: every one, or a list of them. */
typedef struct {
    const float *x, *w, *y;
    const conv_shape *s;
    const size_t *rows, *columns; /* the listed outputs; NULL: every output, row-major */
    const float *got;             /* the listed outputs' values, fetched; NULL: read them in y */
    input_dist dist;              /* x's values, drawn again where x is NULL */
    uint64_t x_seed;
} check_args;

#define CHECK_CHUNK 256 /* outputs per chunk: each is C K multiply-adds */

static cl_worst check_chunk(void *context, size_t begin, size_t end)
{
    const check_args *c = (const check_args *)context;
    const conv_shape *s = c->s;
    const long long r = (s->mask - 1) / 2;
    /* without x: the C K inputs under one output, drawn again from the seed, as one signal of
       length K whose middle output is the one checked (zeros where the padding is) */
    const conv_shape window_shape = {1, s->channels, s->mask, (size_t)s->mask};
    float *window = c->x ? NULL : (float *)malloc((size_t)s->channels * s->mask * sizeof *window);
    if (c->x == NULL && window == NULL)
        abort();
    cl_worst worst = {0};
    for (size_t k = begin; k < end; k++) {
        const size_t row = c->rows ? c->rows[k] : k / s->length;
        const size_t i = c->columns ? c->columns[k] : k % s->length;
        const int b = (int)(row / (size_t)s->channels), co = (int)(row % (size_t)s->channels);
        double magnitude, want;
        if (window != NULL) {
            for (int ci = 0; ci < s->channels; ci++) {
                const size_t row_start = ((size_t)b * (size_t)s->channels + (size_t)ci) * s->length;
                for (int j = 0; j < s->mask; j++) {
                    const long long at = (long long)i + j - r;
                    window[(size_t)ci * s->mask + j] =
                        at < 0 || at >= (long long)s->length
                            ? 0.0f
                            : input_value(c->x_seed, row_start + (size_t)at, c->dist);
                }
            }
            want = reference_output(window, c->w, &window_shape, 0, co, (size_t)r, &magnitude);
        } else {
            want = reference_output(c->x, c->w, s, b, co, i, &magnitude);
        }
        const float got = c->got ? c->got[k] : c->y[row * s->length + i];
        cl_worst_note(&worst, cl_scaled_error(got, want, magnitude), row, i, got, want);
    }
    free(window);
    return worst;
}

int conv_checks_every_output(const conv_shape *s)
{
    const size_t rows = (size_t)s->batch * (size_t)s->channels;
    return (double)rows * (double)s->length * s->channels * s->mask <= (double)CONV_FULL_CHECK_MACS;
}

/* The sampled check's list: the first and last 2K outputs of up to CONV_EDGE_ROWS rows (where the
   zero padding and partial tiles live), of the last row too, each edge in column order (so that
   it is fetched in one copy), and CONV_CHECK_SAMPLES outputs at random. Returns their count. */
static size_t sample_list(const conv_shape *s, uint64_t seed, size_t **rows_out,
                          size_t **columns_out)
{
    const size_t rows = (size_t)s->batch * (size_t)s->channels;
    const size_t edge = 2 * (size_t)s->mask < s->length ? 2 * (size_t)s->mask : s->length;
    const size_t step = rows > CONV_EDGE_ROWS ? rows / CONV_EDGE_ROWS : 1;
    const size_t most = (cl_chunks(rows, step) + 1) * 2 * edge + CONV_CHECK_SAMPLES;
    size_t *list_rows = (size_t *)malloc(most * sizeof *list_rows);
    size_t *list_columns = (size_t *)malloc(most * sizeof *list_columns);
    if (list_rows == NULL || list_columns == NULL)
        abort();
    size_t count = 0;
    for (size_t row = 0; row < rows + step; row += step) {
        const size_t at = row < rows ? row : rows - 1; /* then the last row */
        for (size_t k = 0; k < edge; k++)
            list_rows[count] = at, list_columns[count++] = k;
        for (size_t k = 0; k < edge; k++)
            list_rows[count] = at, list_columns[count++] = s->length - edge + k;
    }
    uint64_t state = seed ^ 0x5DEECE66Dull;
    for (int k = 0; k < CONV_CHECK_SAMPLES; k++) {
        list_rows[count] = (size_t)(cl_next_random(&state) % rows);
        list_columns[count++] = (size_t)(cl_next_random(&state) % s->length);
    }
    *rows_out = list_rows;
    *columns_out = list_columns;
    return count;
}

static cl_worst check_list(check_args *c, size_t count)
{
    char what[96];
    snprintf(what, sizeof what, "checking %zu outputs against the double reference", count);
    return cl_parallel_worst(count, CHECK_CHUNK, check_chunk, c, what);
}

cl_worst conv_check_outputs(const float *x, const float *w, const float *y, const conv_shape *s,
                            uint64_t seed)
{
    size_t *list_rows = NULL, *list_columns = NULL;
    size_t count = (size_t)s->batch * (size_t)s->channels * s->length;
    if (!conv_checks_every_output(s))
        count = sample_list(s, seed, &list_rows, &list_columns);
    check_args c = {x, w, y, s, list_rows, list_columns, NULL, DIST_REAL, 0};
    const cl_worst result = check_list(&c, count);
    free(list_rows);
    free(list_columns);
    return result;
}

cl_worst conv_check_sample(const float *y, cl_place where, const float *w, const conv_shape *s,
                           input_dist dist, uint64_t x_seed, uint64_t seed)
{
    size_t *list_rows, *list_columns;
    const size_t count = sample_list(s, seed, &list_rows, &list_columns);
    float *got = (float *)malloc(count * sizeof *got);
    if (got == NULL)
        abort();
    /* fetched in runs of consecutive outputs of one row: an edge is one copy */
    for (size_t k = 0, run; k < count; k += run) {
        for (run = 1; k + run < count && list_rows[k + run] == list_rows[k] &&
                      list_columns[k + run] == list_columns[k] + run;
             run++)
            ;
        cl_read(got + k, y + list_rows[k] * s->length + list_columns[k], where, run, sizeof *got,
                1);
    }
    check_args c = {NULL, w, NULL, s, list_rows, list_columns, got, dist, x_seed};
    const cl_worst result = check_list(&c, count);
    free(got);
    free(list_rows);
    free(list_columns);
    return result;
}
