/**
 * @file reference.c
 * @brief Lesson 07's CPU side: the views, the bit-exact reference iteration, the check of a whole
 * image, and the PGM writer. Built with -ffp-contract=off, so that every float operation below is
 * one rounding, as on the GPU's pinned intrinsics.
 */
#include "mandelbrot.h"

#include "cl_check.h"
#include "cl_parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

typedef struct {
    const mandel_params *p;
    mandel_arithmetic arithmetic;
    const unsigned *counts;
    const float *smooth;
    mandel_check *rows; /* one per row of the image: what the check found there */
} check_args;

/* One chunk of rows: every pixel's escape count, bit for bit, and its smooth value. */
static void check_rows(void *context, size_t begin, size_t end)
{
    const check_args *a = (const check_args *)context;
    const size_t width = a->p->width;
    for (size_t py = begin; py < end; py++) {
        mandel_check row = {0, (size_t)-1, 0.0, 0.0};
        for (size_t px = 0; px < width; px++) {
            const size_t i = py * width + px;
            const mandel_pixel ref =
                mandel_reference(a->p, a->arithmetic, (unsigned)px, (unsigned)py);
            row.iterations += ref.count;
            if (a->counts[i] != ref.count) {
                if (row.count_mismatches++ == 0)
                    row.first_mismatch = i;
                continue;
            }
            /* infinity for NaN or infinity, so the largest error sees it */
            const double error =
                cl_scaled_error(a->smooth[i], ref.smooth, ref.smooth > 1.0 ? ref.smooth : 1.0);
            row.smooth_error = error > row.smooth_error ? error : row.smooth_error;
        }
        a->rows[py] = row;
    }
}

mandel_check mandel_check_image(const mandel_params *p, mandel_arithmetic arithmetic,
                                const unsigned *counts, const float *smooth)
{
    const size_t width = p->width;
    mandel_check *rows = (mandel_check *)malloc((width ? width : 1) * sizeof *rows);
    if (rows == NULL)
        abort();
    check_args a = {p, arithmetic, counts, smooth, rows};
    cl_progress progress;
    cl_progress_begin(&progress, (double)width, "--no-check skips it",
                      "checking %zu x %zu pixels against the CPU's replay", width, width);
    cl_parallel_for(width, 1, check_rows, &a, &progress);
    /* the rows in order: integer counts and sums, the first mismatch, the largest error */
    mandel_check c = {0, (size_t)-1, 0.0, 0.0};
    for (size_t py = 0; py < width; py++) {
        if (c.count_mismatches == 0 && rows[py].count_mismatches > 0)
            c.first_mismatch = rows[py].first_mismatch;
        c.count_mismatches += rows[py].count_mismatches;
        c.iterations += rows[py].iterations;
        c.smooth_error =
            rows[py].smooth_error > c.smooth_error ? rows[py].smooth_error : c.smooth_error;
    }
    free(rows);
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
