/**
 * @file test_reference.c
 * @brief CPU tests of lesson 06's inputs and reference count.
 */
#include "counting.h"

#include "cl_parallel.h"

#include "cl_unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    const size_t n = 200000;
    size_t *offsets = malloc((n + 1) * sizeof *offsets);

    /* fixed: every container holds mean floats */
    EXPECT(fill_offsets(offsets, n, LENGTHS_FIXED, 16, 1) == 16 * n);
    EXPECT(offsets[0] == 0 && offsets[1] == 16 && offsets[n] == 16 * n);

    /* uniform: 1 to 31, mean close to 16, both ends drawn */
    const uint64_t uniform_total = fill_offsets(offsets, n, LENGTHS_UNIFORM, 16, 2);
    size_t shortest = 1000, longest = 0;
    for (size_t c = 0; c < n; c++) {
        const size_t length = offsets[c + 1] - offsets[c];
        shortest = length < shortest ? length : shortest;
        longest = length > longest ? length : longest;
    }
    EXPECT(shortest == 1 && longest == 31);
    EXPECT(fabs((double)uniform_total / n - 16.0) < 0.2);

    /* power law: mean near 16, many short containers, a long tail capped at 4096 x 16 */
    const uint64_t powerlaw_total = fill_offsets(offsets, n, LENGTHS_POWERLAW, 16, 3);
    size_t empty = 0, over_1000 = 0;
    longest = 0;
    for (size_t c = 0; c < n; c++) {
        const size_t length = offsets[c + 1] - offsets[c];
        empty += length == 0;
        over_1000 += length > 1000;
        longest = length > longest ? length : longest;
    }
    EXPECT(fabs((double)powerlaw_total / n - 16.0) < 2.0);
    EXPECT(empty > n / 20 && over_1000 > 20 && longest > 20000 && longest <= 65536);

    /* mean 0: every container empty, whatever the law */
    EXPECT(fill_offsets(offsets, n, LENGTHS_POWERLAW, 0, 4) == 0);
    EXPECT(fill_offsets(offsets, n, LENGTHS_UNIFORM, 0, 4) == 0);

    /* values: real in [-1, 2) with mean near 1/2; int in {-1, 0, 1, 2} */
    const size_t total = 100001;
    float *values = malloc(total * sizeof *values);
    fill_values(values, total, DIST_REAL, 5);
    double sum = 0.0, low = 10.0, high = -10.0;
    for (size_t i = 0; i < total; i++) {
        sum += values[i];
        low = values[i] < low ? values[i] : low;
        high = values[i] > high ? values[i] : high;
    }
    EXPECT(low >= -1.0 && low < -0.99 && high < 2.0 && high > 1.99);
    EXPECT(fabs(sum / total - 0.5) < 0.02);
    fill_values(values, total, DIST_INT, 6);
    int seen[4] = {0, 0, 0, 0}, other = 0;
    for (size_t i = 0; i < total; i++) {
        const float v = values[i];
        if (v == -1.0f || v == 0.0f || v == 1.0f || v == 2.0f)
            seen[(int)v + 1] = 1;
        else
            other = 1;
    }
    EXPECT(!other && seen[0] && seen[1] && seen[2] && seen[3]);

    /* the count: hand-made containers {1, 2} = 3, {} = 0, {5} = 5, {-1, -1} = -2 */
    const float hand_values[] = {1.0f, 2.0f, 5.0f, -1.0f, -1.0f};
    const size_t hand_offsets[] = {0, 2, 2, 3, 5};
    reference_count r = count_reference(hand_values, hand_offsets, 4, 2.5f, 1);
    EXPECT(r.sure == 2 && r.ambiguous == 0 && r.longest == 2);
    r = count_reference(hand_values, hand_offsets, 4, 3.0f, 1); /* strictly greater: 3 is not */
    EXPECT(r.sure == 1 && r.ambiguous == 0);
    r = count_reference(hand_values, hand_offsets, 4, -1.0f, 1); /* the empty one counts */
    EXPECT(r.sure == 3 && r.ambiguous == 0);
    {
        float made[5];
        reference_count m = {0, 0, 0};
        make_values(made, CL_ON_HOST, 5, DIST_INT, 1, hand_offsets, 4, -1.0f, 1, &m);
        const reference_count want = count_reference(made, hand_offsets, 4, -1.0f, 1);
        EXPECT(m.sure == want.sure && m.ambiguous == want.ambiguous && m.longest == 2);
        const size_t empty_offsets[] = {0, 0, 0}; /* two empty containers, no values at all */
        make_values(made, CL_ON_HOST, 0, DIST_INT, 1, empty_offsets, 2, -1.0f, 1, &m);
        EXPECT(m.sure == 2 && m.ambiguous == 0 && m.longest == 0);
    }

    /* real values: a sum within rounding of the limit is ambiguous, not sure */
    const float near[] = {0.1f, 0.2f, 0.3f};
    const size_t near_offsets[] = {0, 3};
    const float exact_sum = (float)((double)0.1f + (double)0.2f + (double)0.3f);
    r = count_reference(near, near_offsets, 1, exact_sum, 0);
    EXPECT(r.sure == 0 && r.ambiguous == 1);
    r = count_reference(near, near_offsets, 1, 0.5f, 0);
    EXPECT(r.sure == 1 && r.ambiguous == 0);
    r = count_reference(near, near_offsets, 1, 0.7f, 0);
    EXPECT(r.sure == 0 && r.ambiguous == 0);

    /* fixed lengths of 16 real values, limit at the mean sum: about half are over */
    fill_offsets(offsets, 1000, LENGTHS_FIXED, 16, 7);
    float *many = malloc(16000 * sizeof *many);
    fill_values(many, 16000, DIST_REAL, 8);
    r = count_reference(many, offsets, 1000, 8.0f, 0);
    EXPECT(r.sure > 400 && r.sure < 600 && r.ambiguous < 5);

    /* On one thread and on five: the same lengths, values and counts, bit for bit, at sizes of
       many chunks that are no multiple of one; and lengths that overflow are still caught */
    {
        const size_t containers = 9 * CL_CHUNK + 77;
        size_t *offsets1 = malloc((containers + 1) * sizeof *offsets1),
               *offsets5 = malloc((containers + 1) * sizeof *offsets5);
        const length_dist laws[] = {LENGTHS_FIXED, LENGTHS_UNIFORM, LENGTHS_POWERLAW};
        for (int l = 0; l < 3; l++) {
            cl_set_threads(1);
            const uint64_t total1 = fill_offsets(offsets1, containers, laws[l], 9, 51);
            float *values1 = malloc((total1 + 1) * sizeof *values1);
            fill_values(values1, total1, DIST_REAL, 52);
            const reference_count count1 = count_reference(values1, offsets1, containers, 4.0f, 0);
            cl_set_threads(5);
            const uint64_t total5 = fill_offsets(offsets5, containers, laws[l], 9, 51);
            EXPECT(total1 == total5 &&
                   memcmp(offsets1, offsets5, (containers + 1) * sizeof *offsets1) == 0);
            float *values5 = malloc((total5 + 1) * sizeof *values5);
            fill_values(values5, total5, DIST_REAL, 52);
            EXPECT(memcmp(values1, values5, total1 * sizeof *values1) == 0);
            const reference_count count5 = count_reference(values5, offsets5, containers, 4.0f, 0);
            EXPECT(count1.sure == count5.sure && count1.ambiguous == count5.ambiguous &&
                   count1.longest == count5.longest && count1.sure > 0);
            /* made in pieces, as on the way to the GPU (the last short), and counted on the way,
               the containers that cross chunks joined from their pieces: the same values and
               the same counts, on one thread and on five */
            cl_set_stage_bytes(3 * CL_CHUNK * sizeof(float) + 8);
            for (int threads = 1; threads <= 5; threads += 4) {
                reference_count made = {9, 9, 9};
                cl_set_threads(threads);
                memset(values5, 0, total5 * sizeof *values5);
                make_values(values5, CL_ON_HOST, total1, DIST_REAL, 52, offsets1, containers, 4.0f,
                            0, &made);
                EXPECT(memcmp(values1, values5, total1 * sizeof *values1) == 0);
                EXPECT(made.sure == count1.sure && made.ambiguous == count1.ambiguous &&
                       made.longest == count1.longest);
            }
            cl_set_stage_bytes((size_t)64 << 20);
            /* and value i is half i % 2 of draw i / 2, wherever a chunk starts */
            fill_values(values, total, DIST_REAL, 52);
            EXPECT(memcmp(values, values5, total * sizeof *values) == 0);
            free(values1);
            free(values5);
        }
        EXPECT(fill_offsets(offsets5, containers, LENGTHS_FIXED, UINT64_MAX / 1000, 1) ==
               UINT64_MAX);
        /* containers longer than 2^22 values are summed by every thread, in blocks */
        {
            const uint64_t long_mean = ((uint64_t)1 << 22) + 5;
            size_t long_offsets[4];
            const uint64_t long_total = fill_offsets(long_offsets, 3, LENGTHS_FIXED, long_mean, 1);
            float *long_values = malloc(long_total * sizeof *long_values);
            fill_values(long_values, long_total, DIST_REAL, 53);
            cl_set_threads(1);
            const reference_count long1 = count_reference(long_values, long_offsets, 3, 0.0f, 0);
            cl_set_threads(5);
            const reference_count long5 = count_reference(long_values, long_offsets, 3, 0.0f, 0);
            EXPECT(long1.sure == 3 && long5.sure == 3 && long1.ambiguous == 0 &&
                   long5.ambiguous == 0 && long1.longest == long_mean &&
                   long5.longest == long_mean);
            /* the limit at the first container's own sum: within rounding, so ambiguous */
            double sum = 0.0;
            for (size_t j = 0; j < long_mean; j++)
                sum += long_values[j];
            const reference_count at_sum =
                count_reference(long_values, long_offsets, 1, (float)sum, 0);
            EXPECT(at_sum.ambiguous == 1 && at_sum.sure == 0);
            /* made and counted on the way, each container in pieces across 65 chunks */
            reference_count made = {0, 0, 0};
            make_values(long_values, CL_ON_HOST, long_total, DIST_REAL, 53, long_offsets, 3, 0.0f,
                        0, &made);
            EXPECT(made.sure == 3 && made.ambiguous == 0 && made.longest == long_mean);
            make_values(long_values, CL_ON_HOST, long_total, DIST_REAL, 53, long_offsets, 1,
                        (float)sum, 0, &made);
            EXPECT(made.ambiguous == 1 && made.sure == 0);
            free(long_values);
        }
        cl_set_threads(0);
        free(offsets1);
        free(offsets5);
    }
    free(offsets);
    free(values);
    free(many);
    return cl_unit_report("06-atomics-counting reference");
}
