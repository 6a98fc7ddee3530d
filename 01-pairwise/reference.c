/**
 * @file reference.c
 * @brief Lesson 01's CPU side: inputs, the exact O(n log n) reference for |x − y|, brute force.
 */
#include "pairwise.h"

#include "cal.h"
#include "cl_check.h"
#include "cl_random.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float uniform01(uint64_t *state)
{
    return (float)(cl_next_random(state) >> 40) * (1.0f / 16777216.0f);
}

void fill_inputs(float *a, float *b, size_t n, input_dist dist, unsigned long long seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        if (dist == DIST_INT) {
            a[i] = (float)(cl_next_random(&state) % 16);
            b[i] = (float)(cl_next_random(&state) % 16);
        } else {
            a[i] = 2.0f * uniform01(&state) - 1.0f;
            b[i] = uniform01(&state) + uniform01(&state) - 0.5f;
        }
    }
}

static int compare_floats(const void *x, const void *y)
{
    const float p = *(const float *)x, q = *(const float *)y;
    return (p > q) - (p < q);
}

long double reference_abs_diff(const float *a, const float *b, size_t n)
{
    /* Σ_j |a_i − b_j| = a_i·k − P[k] + (P[n] − P[k]) − a_i·(n − k), where b is sorted, k counts the
       b_j ≤ a_i and P holds prefix sums. long double (64-bit mantissa) keeps integer inputs exact.
     */
    float *sorted = (float *)malloc(n * sizeof *sorted);
    long double *prefix = (long double *)malloc((n + 1) * sizeof *prefix);
    if (sorted == NULL || prefix == NULL)
        abort();
    memcpy(sorted, b, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_floats);
    prefix[0] = 0.0L;
    for (size_t j = 0; j < n; j++)
        prefix[j + 1] = prefix[j] + sorted[j];
    long double total = 0.0L;
    for (size_t i = 0; i < n; i++) {
        size_t lo = 0, hi = n; /* first index with sorted[index] > a[i] */
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (sorted[mid] <= a[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        const long double x = a[i];
        total +=
            x * (long double)lo - prefix[lo] + (prefix[n] - prefix[lo]) - x * (long double)(n - lo);
    }
    free(sorted);
    free(prefix);
    return total;
}

long double reference_brute(const float *a, const float *b, size_t n)
{
    long double total = 0.0L;
    for (size_t i = 0; i < n; i++) {
        double row = 0.0;
        for (size_t j = 0; j < n; j++)
            row += (double)cal(a[i], b[j]);
        total += row;
    }
    return total;
}

double pairwise_tolerance(input_dist dist)
{
    /* Every term is >= 0 for |x − y|, so Σ|terms| = S and the relative bound is gamma_h itself;
       the double stages add ~1e-13 at most. */
    return dist == DIST_INT ? 0.0 : cl_float_gamma(PAIRWISE_MAX_FLOAT_CHAIN) + 1e-12;
}
