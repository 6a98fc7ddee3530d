/**
 * @file test_reference.c
 * @brief CPU tests of lesson 07's reference: points whose escape is known by hand, the views, the
 * two arithmetics, and a check that catches a wrong count, a NaN and an unwritten pixel.
 */
#include "mandelbrot.h"

#include "cl_parallel.h"

#include "cl_unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    /* W = 1 puts the only pixel at the view's centre: c = -0.75 is in the set (the main cardioid
     * ends at -0.75, the period-2 disc begins there), so it never escapes */
    mandel_params p = mandel_view_params(VIEW_FULL, 1, 1000);
    EXPECT(p.x_first == -0.75f && p.y_first == 0.0f && p.step == 3.5f);
    mandel_pixel r = mandel_reference(&p, MANDEL_PINNED, 0, 0);
    EXPECT(r.count == 1000 && r.smooth == 1000.0);

    /* W = 2: the top-left pixel is c = (-1.625, 0.875): z1 = c, |c|^2 = 3.4 <= 4; z2 = c^2 + c =
     * (0.25, -1.96875), |z2|^2 = 3.94 <= 4; z3 has |z3|^2 > 4, so the count is 3 */
    p = mandel_view_params(VIEW_FULL, 2, 1000);
    r = mandel_reference(&p, MANDEL_PINNED, 0, 0);
    EXPECT(r.count == 3);
    /* the smooth value is count + 1 - log2(log2 |z3|), z3 = (-5.4385, -0.1094) by hand: 2.7111 */
    EXPECT(fabs(r.smooth - 2.7111) < 1e-3);
    /* the view is symmetric about the real axis: rows 0 and 1 agree */
    EXPECT(mandel_reference(&p, MANDEL_PINNED, 0, 1).count == r.count);

    /* maxiter 1: every pixel stops at 1 (z1 = c is never tested before the first step) */
    p = mandel_view_params(VIEW_FULL, 64, 1);
    size_t ones = 0;
    for (unsigned py = 0; py < 64; py++)
        for (unsigned px = 0; px < 64; px++)
            ones += mandel_reference(&p, MANDEL_PINNED, px, py).count == 1;
    EXPECT(ones == 64 * 64);

    /* the two arithmetics: the same picture almost everywhere, and both bounded by maxiter */
    p = mandel_view_params(VIEW_BOUNDARY, 128, 1024);
    size_t differ = 0, inside = 0, escaped = 0;
    double total = 0.0;
    for (unsigned py = 0; py < 128; py++)
        for (unsigned px = 0; px < 128; px++) {
            const mandel_pixel a = mandel_reference(&p, MANDEL_PINNED, px, py);
            const mandel_pixel b = mandel_reference(&p, MANDEL_DOUBLE_LITERAL, px, py);
            differ += a.count != b.count;
            inside += a.count == 1024;
            escaped += a.count < 1024;
            total += a.count;
        }
    EXPECT(differ < 128 * 128 / 100);
    /* the boundary view has both kinds of pixels in quantity, and long escapes */
    EXPECT(inside > 128 * 128 / 20 && escaped > 128 * 128 / 2 && total / (128 * 128) > 100.0);

    /* the check: a perfect image passes with the work counted; a wrong count, a NaN and a
     * poisoned pixel are each caught */
    const unsigned w = 40;
    p = mandel_view_params(VIEW_BOUNDARY, w, 300);
    unsigned *counts = malloc(w * w * sizeof *counts);
    float *smooth = malloc(w * w * sizeof *smooth);
    double expected_work = 0.0;
    for (unsigned i = 0; i < w * w; i++) {
        const mandel_pixel ref = mandel_reference(&p, MANDEL_PINNED, i % w, i / w);
        counts[i] = ref.count;
        smooth[i] = (float)ref.smooth;
        expected_work += ref.count;
    }
    mandel_check c = mandel_check_image(&p, MANDEL_PINNED, counts, smooth);
    EXPECT(c.count_mismatches == 0 && c.smooth_error < 1e-7 && c.iterations == expected_work);
    counts[777]++;
    counts[900]++;
    /* on one thread and on five: the same first mismatch, count and work (rows merged in order) */
    cl_set_threads(1);
    const mandel_check one = mandel_check_image(&p, MANDEL_PINNED, counts, smooth);
    cl_set_threads(5);
    c = mandel_check_image(&p, MANDEL_PINNED, counts, smooth);
    cl_set_threads(0);
    EXPECT(c.count_mismatches == 2 && c.first_mismatch == 777);
    EXPECT(one.count_mismatches == 2 && one.first_mismatch == 777 &&
           one.iterations == c.iterations && one.smooth_error == c.smooth_error);
    counts[900]--;
    counts[777]--;
    smooth[5] = NAN;
    c = mandel_check_image(&p, MANDEL_PINNED, counts, smooth);
    EXPECT(c.count_mismatches == 0 && !(c.smooth_error <= MANDEL_SMOOTH_TOLERANCE));
    smooth[5] = (float)mandel_reference(&p, MANDEL_PINNED, 5, 0).smooth;
    smooth[6] += 0.01f; /* far more than the tolerance */
    c = mandel_check_image(&p, MANDEL_PINNED, counts, smooth);
    EXPECT(!(c.smooth_error <= MANDEL_SMOOTH_TOLERANCE));
    memset(counts, 0xff, sizeof *counts); /* the harness's poison */
    c = mandel_check_image(&p, MANDEL_PINNED, counts, smooth);
    EXPECT(c.count_mismatches >= 1 && c.first_mismatch == 0);
    free(counts);
    free(smooth);
    return cl_unit_report("07-control-flow reference");
}
