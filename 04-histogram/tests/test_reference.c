/**
 * @file test_reference.c
 * @brief CPU tests of lesson 04's inputs and reference histogram.
 */
#include "histogram.h"

#include "cl_parallel.h"

#include "cl_unit.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    const size_t n = 100000;
    unsigned *u32 = malloc(n * sizeof *u32);
    unsigned char *u8 = malloc(n);
    unsigned long long hist[4096], total;

    /* uniform u32: every bin used, about 1 in 1024 values past the last bin and not counted */
    fill_inputs(u32, n, TYPE_U32, 256, DIST_UNIFORM, 1);
    reference_histogram(u32, n, TYPE_U32, 256, hist);
    total = 0;
    int empty = 0;
    for (int b = 0; b < 256; b++) {
        total += hist[b];
        empty += hist[b] == 0;
    }
    EXPECT(empty == 0);
    EXPECT(total < n && n - total > n / 2048 && n - total < n / 512);

    /* one: everything in bin bins/2 */
    fill_inputs(u32, n, TYPE_U32, 4096, DIST_ONE, 2);
    reference_histogram(u32, n, TYPE_U32, 4096, hist);
    EXPECT(hist[2048] == n && hist[0] == 0 && hist[4095] == 0);

    /* zipf: decreasing frequencies, bin 0 about 1/H(256) ≈ 16% of the values, all counted */
    fill_inputs(u8, n, TYPE_U8, 256, DIST_ZIPF, 3);
    reference_histogram(u8, n, TYPE_U8, 256, hist);
    total = 0;
    for (int b = 0; b < 256; b++)
        total += hist[b];
    EXPECT(total == n);
    EXPECT(hist[0] > n / 8 && hist[0] < n / 5 && hist[0] > hist[1] && hist[1] > hist[10] &&
           hist[10] > hist[200]);

    /* uniform u8 (eight pixels a draw, the bytes themselves at 256 bins): every bin within a
       fifth of its share (about four standard deviations) */
    fill_inputs(u8, n, TYPE_U8, 256, DIST_UNIFORM, 6);
    reference_histogram(u8, n, TYPE_U8, 256, hist);
    int even = 1;
    for (int b = 0; b < 256; b++)
        even &= hist[b] > n / 256 * 4 / 5 && hist[b] < n / 256 * 6 / 5;
    EXPECT(even);

    /* fewer bins than byte values: values >= bins are not counted */
    fill_inputs(u8, n, TYPE_U8, 256, DIST_UNIFORM, 4);
    reference_histogram(u8, n, TYPE_U8, 100, hist);
    total = 0;
    for (int b = 0; b < 100; b++)
        total += hist[b];
    EXPECT(total > n * 35 / 100 && total < n * 43 / 100);

    /* the interleaved u8 reference equals the plain loop, bin for bin (n not a multiple of 4) */
    fill_inputs(u8, n - 3, TYPE_U8, 256, DIST_ZIPF, 5);
    unsigned long long plain[256] = {0};
    for (size_t i = 0; i < n - 3; i++)
        if (u8[i] < 200)
            plain[u8[i]]++;
    reference_histogram(u8, n - 3, TYPE_U8, 200, hist);
    int same = 1;
    for (int b = 0; b < 200; b++)
        same &= hist[b] == plain[b];
    EXPECT(same);

    /* the same seed gives the same inputs */
    fill_inputs(u32, 10, TYPE_U32, 256, DIST_ZIPF, 9);
    const unsigned first = u32[0], last = u32[9];
    fill_inputs(u32, 10, TYPE_U32, 256, DIST_ZIPF, 9);
    EXPECT(u32[0] == first && u32[9] == last);
    /* On one thread and on five: the same inputs, bit for bit, and the same counts as a plain
       loop, with few bins (each chunk its own counters) and many (runs of equal values added at
       once), at a size of many chunks that is no multiple of one */
    {
        const size_t big = 37 * CL_CHUNK + 1001;
        const unsigned many_bins = 1u << 20;
        unsigned *one = malloc(big * sizeof *one), *five = malloc(big * sizeof *five);
        unsigned long long *counted = malloc(many_bins * sizeof *counted),
                           *plain_counts = calloc(many_bins, sizeof *plain_counts);
        const struct {
            input_type type;
            unsigned bins;
            input_dist dist;
        } cases[] = {{TYPE_U8, 256, DIST_ZIPF},
                     {TYPE_U32, 4096, DIST_UNIFORM},
                     {TYPE_U32, many_bins, DIST_UNIFORM},
                     {TYPE_U32, many_bins, DIST_ONE},
                     {TYPE_U32, many_bins, DIST_ZIPF}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const size_t bytes = big * (cases[c].type == TYPE_U8 ? 1 : sizeof(unsigned));
            cl_set_threads(1);
            fill_inputs(one, big, cases[c].type, cases[c].bins, cases[c].dist, 21);
            cl_set_threads(5);
            fill_inputs(five, big, cases[c].type, cases[c].bins, cases[c].dist, 21);
            EXPECT(memcmp(one, five, bytes) == 0);
            reference_histogram(five, big, cases[c].type, cases[c].bins, counted);
            memset(plain_counts, 0, many_bins * sizeof *plain_counts);
            for (size_t i = 0; i < big; i++) {
                const unsigned v = cases[c].type == TYPE_U8 ? ((unsigned char *)one)[i] : one[i];
                if (v < cases[c].bins)
                    plain_counts[v]++;
            }
            EXPECT(memcmp(counted, plain_counts, cases[c].bins * sizeof *counted) == 0);
            /* made in pieces of one chunk, as on the way to the GPU (three here, the last
               short), counted on the way: the same bytes and counts, on one thread and on five */
            cl_set_stage_bytes(1);
            for (int threads = 1; threads <= 5; threads += 4) {
                cl_set_threads(threads);
                memset(five, 0, bytes);
                memset(counted, 0xff, many_bins * sizeof *counted);
                make_inputs(five, CL_ON_HOST, big, cases[c].type, cases[c].bins, cases[c].dist, 21,
                            counted);
                EXPECT(memcmp(one, five, bytes) == 0);
                EXPECT(memcmp(counted, plain_counts, cases[c].bins * sizeof *counted) == 0);
            }
            cl_set_stage_bytes((size_t)64 << 20);
        }
        cl_set_threads(0);
        /* and value i is draw i of the seed's stream, wherever a chunk starts */
        fill_inputs(u32, n, TYPE_U32, many_bins, DIST_ZIPF, 21);
        EXPECT(memcmp(u32, five, n * sizeof *u32) == 0);
        free(one);
        free(five);
        free(counted);
        free(plain_counts);
    }
    free(u32);
    free(u8);
    return cl_unit_report("04-histogram reference");
}
