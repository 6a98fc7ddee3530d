/**
 * @file reference.c
 * @brief Lesson 03's CPU side: the inputs, the double-precision reference, the tolerance.
 */
#include "reduction.h"

#include "cl_check.h"
#include "cl_random.h"

#include <math.h>
#include <stdint.h>

void fill_inputs(float *x, size_t n, input_dist dist, unsigned long long seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = cl_next_random(&state);
        if (dist == DIST_INT) {
            x[i] = (float)((int)(r % 3) - 1);
        } else {
            /* 24 random mantissa bits in [-0.5, 1.5), scaled by 2^-3..2^3: mixed signs and
               magnitudes, a positive mean so the sum is not near zero. */
            const float u = (float)(r >> 40) * (1.0f / 16777216.0f);
            static const float scale[7] = {0.125f, 0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 8.0f};
            x[i] = (2.0f * u - 0.5f) * scale[(r >> 8) % 7];
        }
    }
}

void reference_sum(const float *x, size_t n, double *sum, double *sum_abs)
{
    /* Blocks of 4096 keep the double error far below anything the float versions can reach. */
    double total = 0.0, total_abs = 0.0;
    for (size_t start = 0; start < n; start += 4096) {
        const size_t end = start + 4096 < n ? start + 4096 : n;
        double part = 0.0, part_abs = 0.0;
        for (size_t i = start; i < end; i++) {
            part += x[i];
            part_abs += fabs(x[i]);
        }
        total += part;
        total_abs += part_abs;
    }
    *sum = total;
    *sum_abs = total_abs;
}

int sum_is_exact_in_float(const float *x, size_t n, double sum_abs)
{
    if (sum_abs > 16777216.0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] != truncf(x[i]))
            return 0;
    return 1;
}

double reduction_tolerance(size_t n, int exact)
{
    if (exact)
        return 0.0;
    const double h = (double)((n + 65535) / 65536) + 64.0;
    return cl_float_gamma(h);
}
