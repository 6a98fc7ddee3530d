/**
 * @file test_reference.c
 * @brief CPU tests of lesson 05's inputs, reference and tolerance: no GPU needed.
 */
#include "conv.h"

#include "cl_check.h"
#include "cl_parallel.h"

#include "cl_unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    /* The same seed gives the same inputs, never all zeros; int inputs are integers in -2..2. */
    enum { COUNT = 10007 };
    static float a[COUNT], b[COUNT];
    fill_inputs(a, COUNT, DIST_REAL, 5);
    fill_inputs(b, COUNT, DIST_REAL, 5);
    int same = 1, nonzero = 0, negative = 0, in_range = 1;
    for (int i = 0; i < COUNT; i++) {
        same &= a[i] == b[i];
        nonzero += a[i] != 0.0f;
        negative += a[i] < 0.0f;
        in_range &= a[i] >= -1.0f && a[i] < 1.0f;
    }
    EXPECT(same && in_range && nonzero > COUNT * 99 / 100 && negative > COUNT / 3);
    fill_inputs(b, COUNT, DIST_INT, 5);
    int integers = 1, values_seen[5] = {0};
    for (int i = 0; i < COUNT; i++) {
        integers &= b[i] == truncf(b[i]) && b[i] >= -2.0f && b[i] <= 2.0f;
        if (integers)
            values_seen[(int)b[i] + 2]++;
    }
    EXPECT(integers && values_seen[0] && values_seen[1] && values_seen[2] && values_seen[3] &&
           values_seen[4]);

    /* A hand-checked case: one channel, x = 1 2 3 4, w = 1 10 100 (cross-correlation, r = 1):
       y[0] = 0*1 + 1*10 + 2*100 = 210, y[1] = 1 + 20 + 300 = 321, y[3] = 3 + 40 + 0 = 43. */
    const float x1[4] = {1, 2, 3, 4}, w1[3] = {1, 10, 100};
    const conv_shape one = {1, 1, 3, 4};
    double mag;
    EXPECT(reference_output(x1, w1, &one, 0, 0, 0, &mag) == 210.0 && mag == 210.0);
    EXPECT(reference_output(x1, w1, &one, 0, 0, 1, &mag) == 321.0);
    EXPECT(reference_output(x1, w1, &one, 0, 0, 3, &mag) == 43.0);

    /* Two channels, batch 2: y[b][co][i] sums over both input channels of batch b only. The mask
       (K = 5) is longer than the signal (L = 2): only the in-range taps count. */
    const float x2[2 * 2 * 2] = {1, 2, 3, 4, /* batch 1: */ 5, 6, 7, 8};
    float w2[2 * 2 * 5] = {0};
    w2[(1 * 2 + 0) * 5 + 2] = 1.0f;  /* co 1 <- ci 0, centre tap */
    w2[(1 * 2 + 1) * 5 + 3] = -2.0f; /* co 1 <- ci 1, tap right of centre */
    const conv_shape two = {2, 2, 5, 2};
    /* y[1][1][0] = x[1][0][0] * 1 + x[1][1][1] * -2 = 5 - 16 = -11 */
    EXPECT(reference_output(x2, w2, &two, 1, 1, 0, &mag) == -11.0 && mag == 21.0);
    /* y[1][1][1] = x[1][0][1] * 1 + x[1][1][2] (padding) = 6 */
    EXPECT(reference_output(x2, w2, &two, 1, 1, 1, &mag) == 6.0);
    EXPECT(reference_output(x2, w2, &two, 0, 0, 1, &mag) == 0.0 && mag == 0.0);

    /* The tolerance: exact for int inputs, gamma_{C K} otherwise, growing with C K. */
    const conv_shape layer = {16, 64, 7, 16384};
    EXPECT(conv_tolerance(&layer, 1, 0) == 0.0);
    EXPECT(conv_tolerance(&layer, 0, 0) == cl_float_gamma(64.0 * 7.0));
    EXPECT(conv_tolerance(&one, 0, 0) < conv_tolerance(&layer, 0, 0));
    /* Split TF32 on the tensor cores: looser, still exact for int inputs, and a tenth of the
       1 / (C K) that one lost tap of equal-sized terms would cost. */
    EXPECT(conv_tolerance(&layer, 1, 1) == 0.0);
    EXPECT(conv_tolerance(&layer, 0, 1) > conv_tolerance(&layer, 0, 0));
    EXPECT(conv_tolerance(&layer, 0, 1) < 0.1 / (64.0 * 7.0));
    /* The check finds a wrong output and names it: every output of a small layer is the
       reference's but one */
    {
        const conv_shape small = {2, 3, 5, 50};
        const size_t outputs = 2 * 3 * 50;
        float *x = malloc(outputs * sizeof *x), *y = malloc(outputs * sizeof *y), w[3 * 3 * 5];
        fill_inputs(x, outputs, DIST_REAL, 31);
        fill_inputs(w, 3 * 3 * 5, DIST_REAL, 32);
        for (size_t row = 0; row < 6; row++)
            for (size_t i = 0; i < 50; i++)
                y[row * 50 + i] =
                    (float)reference_output(x, w, &small, (int)(row / 3), (int)(row % 3), i, &mag);
        cl_worst worst = conv_check_outputs(x, w, y, &small, 1);
        EXPECT(worst.error <= conv_tolerance(&small, 0, 0));
        y[5 * 50 + 49] += 0.5f;
        worst = conv_check_outputs(x, w, y, &small, 1);
        EXPECT(worst.error > 0.01 && worst.row == 5 && worst.col == 49 && worst.got == y[299]);
        free(x);
        free(y);
    }

    /* On one thread and on five: the same inputs, bit for bit, and the same worst output, for a
       check of every output and for one of edges and samples (more than CONV_EDGE_ROWS rows) */
    {
        const conv_shape shapes[2] = {{4, 8, 7, 3001}, {1024, 1, 511, 300}};
        for (int c = 0; c < 2; c++) {
            const conv_shape *s = &shapes[c];
            const size_t count = (size_t)s->batch * (size_t)s->channels * s->length;
            const size_t taps = (size_t)s->channels * (size_t)s->channels * (size_t)s->mask;
            float *x1 = malloc(count * sizeof *x1), *x5 = malloc(count * sizeof *x5);
            float *y = malloc(count * sizeof *y), *w = malloc(taps * sizeof *w);
            cl_set_threads(1);
            fill_inputs(x1, count, DIST_REAL, 41);
            fill_inputs(w, taps, DIST_REAL, 42);
            fill_inputs(y, count, DIST_REAL, 43); /* any outputs: only the worst's place matters */
            const cl_worst worst1 = conv_check_outputs(x1, w, y, s, 44);
            cl_set_threads(5);
            fill_inputs(x5, count, DIST_REAL, 41);
            EXPECT(memcmp(x1, x5, count * sizeof *x1) == 0);
            const cl_worst worst5 = conv_check_outputs(x5, w, y, s, 44);
            EXPECT(memcmp(&worst1, &worst5, sizeof worst1) == 0 && worst1.error > 0.0);
            /* made in pieces, as on the way to the GPU: the same bytes */
            cl_set_stage_bytes(3 * CL_CHUNK * sizeof(float));
            memset(x5, 0, count * sizeof *x5);
            make_inputs(x5, CL_ON_HOST, count, DIST_REAL, 41);
            EXPECT(memcmp(x1, x5, count * sizeof *x1) == 0);
            cl_set_stage_bytes((size_t)64 << 20);
            if (!conv_checks_every_output(s)) {
                /* the sample checked without x, its inputs drawn again from the seed: the same
                   worst output, and a wrong one planted at an edge is found */
                cl_worst drawn = conv_check_sample(y, CL_ON_HOST, w, s, DIST_REAL, 41, 44);
                EXPECT(drawn.error == worst1.error && drawn.row == worst1.row &&
                       drawn.col == worst1.col && drawn.got == worst1.got);
                y[(s->batch - 1) * s->length + s->length - 2] = 1e6f;
                drawn = conv_check_sample(y, CL_ON_HOST, w, s, DIST_REAL, 41, 44);
                EXPECT(drawn.row == (size_t)s->batch - 1 && drawn.col == s->length - 2 &&
                       drawn.got == 1e6f);
            }
            EXPECT(conv_checks_every_output(s) == (c == 0));
            free(x1);
            free(x5);
            free(y);
            free(w);
        }
        cl_set_threads(0);
    }
    return cl_unit_report("05-convolution reference");
}
