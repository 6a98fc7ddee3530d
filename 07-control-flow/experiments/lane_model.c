/**
 * @file lane_model.c
 * @brief How many of a warp's 32 lanes the iteration keeps busy, from the reference's escape
 * counts alone (CPU): a warp iterates as long as its slowest pixel, so over a set of warps the
 * busy share is Σ counts / (32 · Σ max count per warp). Printed for the warp shapes the versions
 * use (ncu's threads per instruction should agree), and for a scheme the lesson has not built:
 * after each pass of some iterations, the pixels still running are packed into full warps again,
 * at no cost. That says how much of the idle lanes such re-packing could win back if it were free;
 * what it costs in instructions is the open question (the page's exercise 2).
 * usage: lane_model [W]   (default 4096; maxiter 1024, both views)
 */
#include "mandelbrot.h"

#include <stdio.h>
#include <stdlib.h>

#define MAXITER 1024

/* iterations done over the busy share: Σ (min(c, end) − start) over Σ 32 · max per warp of 32 */
static double pass_busy(const unsigned *c, size_t n, unsigned start, unsigned end, double *work)
{
    double done = 0.0, slots = 0.0;
    size_t lanes = 0;
    unsigned longest = 0;
    for (size_t k = 0; k < n; k++) {
        if (start > 0 && c[k] <= start)
            continue; /* escaped in an earlier pass: not in this pass's warps */
        const unsigned it = (c[k] < end ? c[k] : end) - start;
        done += it;
        longest = it > longest ? it : longest;
        if (++lanes == 32) {
            slots += 32.0 * longest;
            lanes = 0, longest = 0;
        }
    }
    slots += 32.0 * longest;
    *work += done;
    return slots;
}

static void model(mandel_view view, unsigned w)
{
    const mandel_params p = mandel_view_params(view, w, MAXITER);
    const size_t n = (size_t)w * w;
    unsigned *rows = malloc(n * sizeof *rows), *tiles = malloc(n * sizeof *tiles);
    if (!rows || !tiles) {
        fprintf(stderr, "lane_model: out of memory\n");
        exit(1);
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (long long py = 0; py < (long long)w; py++)
        for (unsigned px = 0; px < w; px++) {
            const unsigned count = mandel_reference(&p, MANDEL_PINNED, px, (unsigned)py).count;
            rows[(size_t)py * w + px] = count;
            /* 8 x 4 tiles in row-major tile order, pixels row-major inside a tile (W % 8 == 0) */
            const size_t tile = (size_t)(py / 4) * (w / 8) + px / 8;
            tiles[tile * 32 + (size_t)(py % 4) * 8 + px % 8] = count;
        }
    double total = 0.0;
    for (size_t k = 0; k < n; k++)
        total += rows[k];
    printf("## --view %s: %.4g iterations, %.1f per pixel\n",
           view == VIEW_FULL ? "full" : "boundary", total, total / (double)n);
    double work = 0.0;
    const double row_slots = pass_busy(rows, n, 0, MAXITER, &work);
    printf("32 x 1 rows of pixels (v1-v3):     %.3f of the lanes busy (%.1f of 32)\n",
           total / row_slots, 32.0 * total / row_slots);
    work = 0.0;
    const double tile_slots = pass_busy(tiles, n, 0, MAXITER, &work);
    printf("8 x 4 tiles (v4-v9):               %.3f (%.1f of 32)\n", total / tile_slots,
           32.0 * total / tile_slots);
    /* pass ends: doubling passes from 64, from 16, and a repack every 32 iterations */
    static const unsigned firsts[] = {64, 16, 32};
    for (int e = 0; e < 3; e++) {
        double slots = 0.0;
        work = 0.0;
        unsigned start = 0, end = firsts[e];
        while (start < MAXITER) {
            end = end < MAXITER ? end : MAXITER;
            slots += pass_busy(tiles, n, start, end, &work);
            start = end;
            end = e < 2 ? 2 * end + firsts[e] : end + 32; /* 64, 192, 448, 960, ... or + 32 */
        }
        printf("8 x 4 tiles, survivors repacked %s %u iterations, free: %.3f (%.1f of 32)\n",
               e < 2 ? "after passes doubling from" : "every", firsts[e], work / slots,
               32.0 * work / slots);
    }
    free(rows);
    free(tiles);
}

int main(int argc, char **argv)
{
    const unsigned w = argc > 1 ? (unsigned)atoi(argv[1]) : 4096u;
    if (w < 8 || w % 8 != 0 || w > MANDEL_MAX_WIDTH) {
        fprintf(stderr, "lane_model: W must be a multiple of 8 from 8 to %u\n", MANDEL_MAX_WIDTH);
        return 2;
    }
    printf(
        "# 07-control-flow: lanes a warp keeps busy, modelled from the reference's escape counts "
        "(CPU), W = %u, maxiter %u\n",
        w, MAXITER);
    model(VIEW_FULL, w);
    model(VIEW_BOUNDARY, w);
    return 0;
}
