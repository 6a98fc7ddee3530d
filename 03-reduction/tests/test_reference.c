/**
 * @file test_reference.c
 * @brief CPU tests of lesson 03's inputs, reference and tolerance: no GPU needed.
 */
#include "reduction.h"

#include "cl_check.h"
#include "cl_parallel.h"

#include "cl_unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    const size_t n = 100003;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double sum, sum_abs;
    int whole;

    /* The same seed gives the same inputs; another seed, others. Never all zeros. */
    fill_inputs(x, n, DIST_REAL, 7);
    fill_inputs(y, n, DIST_REAL, 7);
    int same = 1, nonzero = 0, negative = 0, big = 0, small = 0;
    for (size_t i = 0; i < n; i++) {
        same &= x[i] == y[i];
        nonzero += x[i] != 0.0f;
        negative += x[i] < 0.0f;
        big += fabsf(x[i]) > 4.0f;
        small += fabsf(x[i]) < 0.25f;
    }
    EXPECT(same);
    EXPECT(nonzero > (int)(n * 0.99));
    EXPECT(negative > (int)(n / 10) && big > (int)(n / 100) && small > (int)(n / 20));
    fill_inputs(y, n, DIST_REAL, 8);
    EXPECT(x[0] != y[0] || x[1] != y[1]);

    /* The reference agrees with a plain long double sum. */
    long double plain = 0.0L, plain_abs = 0.0L;
    for (size_t i = 0; i < n; i++) {
        plain += x[i];
        plain_abs += fabsl((long double)x[i]);
    }
    reference_sum(x, n, &sum, &sum_abs, &whole);
    EXPECT(fabs(sum - (double)plain) <= 1e-12 * (double)plain_abs);
    EXPECT(fabs(sum_abs - (double)plain_abs) <= 1e-12 * (double)plain_abs);
    EXPECT(!whole && !sum_is_exact_in_float(whole, sum_abs));

    /* int inputs: {-1, 0, 1}, all three present; exact while sum|x| <= 2^24. */
    fill_inputs(y, n, DIST_INT, 3);
    int counts[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        if (y[i] == -1.0f || y[i] == 0.0f || y[i] == 1.0f)
            counts[(int)y[i] + 1]++;
    EXPECT(counts[0] + counts[1] + counts[2] == (int)n);
    EXPECT(counts[0] > (int)(n / 4) && counts[1] > (int)(n / 4) && counts[2] > (int)(n / 4));
    reference_sum(y, n, &sum, &sum_abs, &whole);
    EXPECT(sum == (double)(counts[2] - counts[0]) && sum_abs == (double)(counts[0] + counts[2]));
    EXPECT(whole && sum_is_exact_in_float(whole, sum_abs));
    EXPECT(!sum_is_exact_in_float(whole, 16777217.0));

    /* The tolerance: zero when exact, gamma_h otherwise, and a one-off error of a whole element
       fails at the sizes where the tests use real inputs. */
    EXPECT(reduction_tolerance(n, 1) == 0.0);
    EXPECT(reduction_tolerance(1000, 0) == cl_float_gamma(65.0));
    EXPECT(reduction_tolerance((size_t)1 << 28, 0) == cl_float_gamma(4096.0 + 64.0));
    {
        const size_t m = 1000;
        reference_sum(x, m, &sum, &sum_abs, &whole);
        const double dropped = sum - x[m - 1];
        EXPECT(!cl_check_scaled(dropped, sum, sum_abs, reduction_tolerance(m, 0), "").pass);
        const double rounded = (double)(float)sum;
        EXPECT(cl_check_scaled(rounded, sum, sum_abs, reduction_tolerance(m, 0), "").pass);
    }
    /* On one thread and on five: the same inputs, bit for bit, and the same sums (blocks added in
       block order), at a size of many chunks that is no multiple of one */
    {
        const size_t big = 23 * CL_CHUNK + 4099;
        float *one = malloc(big * sizeof *one), *five = malloc(big * sizeof *five);
        double sums[2][2];
        int wholes[2];
        for (int d = 0; d < 2; d++) {
            cl_set_threads(1);
            fill_inputs(one, big, (input_dist)d, 11);
            reference_sum(one, big, &sums[0][0], &sums[0][1], &wholes[0]);
            cl_set_threads(5);
            fill_inputs(five, big, (input_dist)d, 11);
            reference_sum(five, big, &sums[1][0], &sums[1][1], &wholes[1]);
            EXPECT(memcmp(one, five, big * sizeof *one) == 0);
            EXPECT(memcmp(sums[0], sums[1], sizeof sums[0]) == 0 && wholes[0] == wholes[1]);
            /* made in pieces, as on the way to the GPU (eight here, the last short), with the sums
               taken on the way: the same bytes and the same sums, on one thread and on five */
            cl_set_stage_bytes(3 * CL_CHUNK * sizeof(float) + 100);
            for (int threads = 1; threads <= 5; threads += 4) {
                double made_sums[2];
                int made_whole = -1;
                cl_set_threads(threads);
                memset(five, 0, big * sizeof *five);
                make_inputs(five, CL_ON_HOST, big, (input_dist)d, 11, &made_sums[0], &made_sums[1],
                            &made_whole);
                EXPECT(memcmp(one, five, big * sizeof *one) == 0);
                EXPECT(memcmp(made_sums, sums[0], sizeof made_sums) == 0 &&
                       made_whole == wholes[0]);
            }
            cl_set_stage_bytes((size_t)64 << 20);
        }
        cl_set_threads(0);
        /* and element i is draw i of the seed's stream, wherever a chunk starts */
        fill_inputs(y, n, DIST_INT, 11);
        EXPECT(memcmp(y, five, n * sizeof *y) == 0);
        free(one);
        free(five);
    }
    free(x);
    free(y);
    return cl_unit_report("03-reduction reference");
}
