/**
 * @file test_reference.c
 * @brief CPU tests of lesson 01's inputs and references: the O(n log n) sum against brute force.
 */
#include "pairwise.h"

#include "cl_check.h"

#include "cl_unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    const size_t sizes[] = {1, 2, 31, 33, 1000, 1021};
    float *a = malloc(2000 * sizeof *a), *b = malloc(2000 * sizeof *b);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s];
        /* int inputs: both references are exact, so they must agree exactly */
        fill_inputs(a, b, n, DIST_INT, 5 + s);
        EXPECT(reference_abs_diff(a, b, n) == reference_brute(a, b, n));
        /* real inputs: the brute force sums float-rounded |a - b|, the fast one exact differences
         */
        fill_inputs(a, b, n, DIST_REAL, 9 + s);
        const long double fast = reference_abs_diff(a, b, n), brute = reference_brute(a, b, n);
        EXPECT(fabsl(fast - brute) <= 1e-7L * fabsl(fast));
    }
    /* a hand-checked case: a = {0, 3}, b = {1, 2} gives 1 + 2 + 2 + 1 = 6 */
    a[0] = 0.0f, a[1] = 3.0f, b[0] = 1.0f, b[1] = 2.0f;
    EXPECT(reference_abs_diff(a, b, 2) == 6.0L);
    /* inputs: int values in 0..15 with both ends present; real ones in their ranges, not all equal
     */
    fill_inputs(a, b, 2000, DIST_INT, 1);
    int low = 0, high = 0, outside = 0;
    for (size_t i = 0; i < 2000; i++) {
        low += a[i] == 0.0f;
        high += b[i] == 15.0f;
        outside += a[i] < 0.0f || a[i] > 15.0f || a[i] != floorf(a[i]);
    }
    EXPECT(low > 0 && high > 0 && outside == 0);
    fill_inputs(a, b, 2000, DIST_REAL, 1);
    int a_out = 0, b_out = 0, distinct = 0;
    for (size_t i = 0; i < 2000; i++) {
        a_out += a[i] < -1.0f || a[i] >= 1.0f;
        b_out += b[i] < -0.5f || b[i] >= 1.5f;
        distinct += i > 0 && a[i] != a[i - 1];
    }
    EXPECT(a_out == 0 && b_out == 0 && distinct > 1900);
    /* tolerances: exact for int inputs, gamma for the longest float chain otherwise */
    EXPECT(pairwise_tolerance(DIST_INT) == 0.0);
    EXPECT(pairwise_tolerance(DIST_REAL) > cl_float_gamma(PAIRWISE_MAX_FLOAT_CHAIN));
    EXPECT(pairwise_tolerance(DIST_REAL) < 3e-4);
    free(a);
    free(b);
    return cl_unit_report("01-pairwise reference");
}
