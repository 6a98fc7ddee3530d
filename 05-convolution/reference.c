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

typedef struct {
    float *v;
    input_dist dist;
    uint64_t seed;
} fill_args;

/* One draw per value: value i comes from draw i of the seed's stream, on any thread. */
static void fill_chunk(void *context, size_t begin, size_t end)
{
    const fill_args *f = (const fill_args *)context;
    uint64_t state = cl_random_at(f->seed, begin);
    for (size_t i = begin; i < end; i++) {
        const uint64_t r = cl_next_random(&state);
        if (f->dist == DIST_INT)
            f->v[i] = (float)((int)(r % 5) - 2);
        else
            f->v[i] =
                (float)(r >> 40) * (2.0f / 16777216.0f) - 1.0f; /* 24 random bits in [-1, 1) */
    }
}

void fill_inputs(float *v, size_t count, input_dist dist, unsigned long long seed)
{
    fill_args f = {v, dist, seed};
    cl_parallel_phase(count, CL_CHUNK, fill_chunk, &f, count * sizeof *v, "filling %s of inputs");
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
} check_args;

#define CHECK_CHUNK 256 /* outputs per chunk: each is C K multiply-adds */

static cl_worst check_chunk(void *context, size_t begin, size_t end)
{
    const check_args *c = (const check_args *)context;
    const conv_shape *s = c->s;
    cl_worst worst = {0};
    for (size_t k = begin; k < end; k++) {
        const size_t row = c->rows ? c->rows[k] : k / s->length;
        const size_t i = c->columns ? c->columns[k] : k % s->length;
        double magnitude;
        const double want = reference_output(c->x, c->w, s, (int)(row / (size_t)s->channels),
                                             (int)(row % (size_t)s->channels), i, &magnitude);
        const float got = c->y[row * s->length + i];
        cl_worst_note(&worst, cl_scaled_error(got, want, magnitude), row, i, got, want);
    }
    return worst;
}

cl_worst conv_check_outputs(const float *x, const float *w, const float *y, const conv_shape *s,
                            uint64_t seed)
{
    const size_t rows = (size_t)s->batch * (size_t)s->channels;
    const double macs = (double)rows * (double)s->length * s->channels * s->mask;
    size_t *list_rows = NULL, *list_columns = NULL, count = rows * s->length;
    if (macs > (double)CONV_FULL_CHECK_MACS) {
        /* the first and last 2K outputs of up to CONV_EDGE_ROWS rows (where the zero padding and
           partial tiles live), of the last row too, and CONV_CHECK_SAMPLES outputs at random */
        const size_t edge = 2 * (size_t)s->mask < s->length ? 2 * (size_t)s->mask : s->length;
        const size_t step = rows > CONV_EDGE_ROWS ? rows / CONV_EDGE_ROWS : 1;
        const size_t most = (cl_chunks(rows, step) + 1) * 2 * edge + CONV_CHECK_SAMPLES;
        list_rows = (size_t *)malloc(most * sizeof *list_rows);
        list_columns = (size_t *)malloc(most * sizeof *list_columns);
        if (list_rows == NULL || list_columns == NULL)
            abort();
        count = 0;
        for (size_t row = 0; row < rows; row += step)
            for (size_t k = 0; k < edge; k++) {
                list_rows[count] = row, list_columns[count++] = k;
                list_rows[count] = row, list_columns[count++] = s->length - 1 - k;
            }
        for (size_t k = 0; k < edge; k++)
            list_rows[count] = rows - 1, list_columns[count++] = s->length - 1 - k;
        uint64_t state = seed ^ 0x5DEECE66Dull;
        for (int k = 0; k < CONV_CHECK_SAMPLES; k++) {
            list_rows[count] = (size_t)(cl_next_random(&state) % rows);
            list_columns[count++] = (size_t)(cl_next_random(&state) % s->length);
        }
    }
    check_args c = {x, w, y, s, list_rows, list_columns};
    char what[96];
    snprintf(what, sizeof what, "checking %zu outputs against the double reference", count);
    const cl_worst result = cl_parallel_worst(count, CHECK_CHUNK, check_chunk, &c, what);
    free(list_rows);
    free(list_columns);
    return result;
}
