/**
 * @file reference.c
 * @brief Lesson 07's CPU side: the views, the bit-exact reference iteration, the check of a whole
 * image, and the PGM writer. Built with -ffp-contract=off, so that every float operation below is
 * one rounding, as on the GPU's pinned intrinsics.
 */
#include "mandelbrot.h"

#include "cl_check.h"

#include <math.h>
#include <stdio.h>

mandel_params mandel_view_params(mandel_view view, unsigned width, unsigned maxiter)
{
    /* left edge, top edge and side of the square, in double; the floats are rounded once here */
    double left = -2.5, top = 1.75, side = 3.5;
    if (view == VIEW_BOUNDARY) {
        const double centre_x = -0.7445, centre_y = 0.1155;
        side = 0.01;
        left = centre_x - side / 2;
        top = centre_y + side / 2;
    }
    const double step = side / width;
    mandel_params p;
    p.width = width;
    p.maxiter = maxiter;
    p.x_first = (float)(left + 0.5 * step);
    p.y_first = (float)(top - 0.5 * step);
    p.step = (float)step;
    return p;
}

mandel_pixel mandel_reference(const mandel_params *p, mandel_arithmetic arithmetic, unsigned px,
                              unsigned py)
{
    /* fmaf is correctly rounded (C99 7.12.13.1), like __fmaf_rn */
    const float cx = fmaf((float)px, p->step, p->x_first);
    const float cy = fmaf((float)py, -p->step, p->y_first);
    float x = 0.0f, y = 0.0f, x2 = 0.0f, y2 = 0.0f;
    unsigned count = 0;
    while (count < p->maxiter && x2 + y2 <= 4.0f) {
        if (arithmetic == MANDEL_PINNED)
            y = fmaf(2.0f * x, y, cy); /* 2x is exact */
        else /* the product of two floats is exact in double: one rounding to double, one to float
              */
            y = (float)(2.0 * x * y + cy);
        x = (x2 - y2) + cx;
        x2 = x * x;
        y2 = y * y;
        count++;
    }
    mandel_pixel result = {count, (double)p->maxiter};
    if (count < p->maxiter)
        result.smooth = count + 1.0 - log2(0.5 * log2((double)(x2 + y2)));
    return result;
}

mandel_check mandel_check_image(const mandel_params *p, mandel_arithmetic arithmetic,
                                const unsigned *counts, const float *smooth)
{
    const long width = (long)p->width;
    size_t mismatches = 0, first = (size_t)-1;
    double worst = 0.0, iterations = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : mismatches, iterations)               \
    reduction(min : first) reduction(max : worst)
#endif
    for (long py = 0; py < width; py++) {
        for (long px = 0; px < width; px++) {
            const size_t i = (size_t)py * (size_t)width + (size_t)px;
            const mandel_pixel ref = mandel_reference(p, arithmetic, (unsigned)px, (unsigned)py);
            iterations += ref.count;
            if (counts[i] != ref.count) {
                mismatches++;
                first = i < first ? i : first;
                continue;
            }
            /* infinity for NaN or infinity, so the max reduction sees it */
            const double error =
                cl_scaled_error(smooth[i], ref.smooth, ref.smooth > 1.0 ? ref.smooth : 1.0);
            worst = error > worst ? error : worst;
        }
    }
    mandel_check c = {mismatches, first, worst, iterations};
    return c;
}

int mandel_write_pgm(const char *path, unsigned width, unsigned maxiter, const float *smooth)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    fprintf(f, "P5\n%u %u\n255\n", width, width);
    /* grey rises with log(smooth): the many fast-escaping pixels stay dark, the boundary bright */
    const double top = log1p((double)maxiter);
    int ok = 1;
    for (size_t i = 0; i < (size_t)width * width && ok; i++) {
        const double s = smooth[i];
        int grey = 0;
        if (s < maxiter && s > 0.0)
            grey = (int)(255.0 * log1p(s) / top + 0.5);
        ok = fputc(grey > 255 ? 255 : grey, f) != EOF;
    }
    return fclose(f) == 0 && ok ? 0 : -1;
}
