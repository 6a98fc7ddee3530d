/**
 * @file reference.c
 * @brief Lesson 06's CPU side: container lengths, values, and the count with its rounding bounds.
 */
#include "counting.h"

#include "cl_check.h"
#include "cl_random.h"

#include <math.h>

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

uint64_t fill_offsets(size_t *offsets, size_t n, length_dist lengths, uint64_t mean, uint64_t seed)
{
    uint64_t state = seed, total = 0;
    const double cap = (double)mean * POWERLAW_CAP_FACTOR;
    const double scale = mean > 0 ? powerlaw_scale((double)mean, cap) : 0.0;
    offsets[0] = 0;
    for (size_t c = 0; c < n; c++) {
        uint64_t length = mean;
        if (lengths == LENGTHS_UNIFORM && mean > 0) {
            length = 1 + cl_next_random(&state) % (2 * mean - 1);
        } else if (lengths == LENGTHS_POWERLAW && mean > 0) {
            /* inverse CDF of the Lomax law: s (u^(−1/1.5) − 1), u uniform in (0, 1] */
            const double x = scale * (pow(open_unit(cl_next_random(&state)), -2.0 / 3.0) - 1.0);
            length = x < cap ? (uint64_t)x : (uint64_t)cap;
        }
        if (length > UINT64_MAX - total)
            return UINT64_MAX;
        total += length;
        offsets[c + 1] = (size_t)total;
    }
    return total;
}

/* One value from 32 random bits: an integer from -1 to 2, or a float in [-1, 2) from 24 bits. */
static float value_from_bits(uint32_t bits, value_dist dist)
{
    return dist == DIST_INT ? (float)((int)(bits >> 30) - 1)
                            : -1.0f + 3.0f * (float)(bits >> 8) * 0x1p-24f;
}

void fill_values(float *values, size_t total, value_dist dist, uint64_t seed)
{
    uint64_t state = seed ^ 0x5eed0f10a75ull;
    size_t i = 0;
    /* two values per draw: filling 2^31 floats takes seconds, not tens of them */
    for (; i + 2 <= total; i += 2) {
        const uint64_t r = cl_next_random(&state);
        values[i] = value_from_bits((uint32_t)r, dist);
        values[i + 1] = value_from_bits((uint32_t)(r >> 32), dist);
    }
    if (i < total)
        values[i] = value_from_bits((uint32_t)cl_next_random(&state), dist);
}

reference_count count_reference(const float *values, const size_t *offsets, size_t n, float limit,
                                int exact_ints)
{
    reference_count r = {0, 0, 0};
    const double threshold = (double)limit;
    for (size_t c = 0; c < n; c++) {
        const size_t begin = offsets[c], end = offsets[c + 1];
        double sum = 0.0, magnitude = 0.0;
        for (size_t j = begin; j < end; j++) {
            sum += values[j];
            magnitude += fabs((double)values[j]);
        }
        const size_t length = end - begin;
        if (length > r.longest)
            r.longest = length;
        /* Any order of float additions of `length` terms errs by at most γ_{length−1} Σ|x|
           (Higham, Thm 4.4 for any summation tree); our own double sum adds γ_{length} Σ|x| at
           2^−53, so the band covers both. Integers summing to ≤ 2^24 in magnitude are exact. */
        double bound = 0.0;
        if (!(exact_ints && magnitude <= 16777216.0) && length > 1)
            bound = (cl_float_gamma((double)(length - 1)) + (double)length * 0x1p-52) * magnitude;
        if (sum - bound > threshold)
            r.sure++;
        else if (sum + bound > threshold)
            r.ambiguous++;
    }
    return r;
}
