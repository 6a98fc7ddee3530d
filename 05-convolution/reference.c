/**
 * @file reference.c
 * @brief Lesson 05's CPU side: the inputs, one output in double precision, the tolerance.
 */
#include "conv.h"

#include "cl_check.h"
#include "cl_random.h"

#include <math.h>
#include <stdint.h>

void fill_inputs(float *v, size_t count, input_dist dist, unsigned long long seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < count; i++) {
        const uint64_t r = cl_next_random(&state);
        if (dist == DIST_INT)
            v[i] = (float)((int)(r % 5) - 2);
        else
            v[i] = (float)(r >> 40) * (2.0f / 16777216.0f) - 1.0f; /* 24 random bits in [-1, 1) */
    }
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
