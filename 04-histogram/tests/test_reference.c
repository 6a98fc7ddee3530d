/**
 * @file test_reference.c
 * @brief CPU tests of lesson 04's inputs and reference histogram.
 */
#include "histogram.h"

#include "cl_unit.h"

#include <stdlib.h>

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
    free(u32);
    free(u8);
    return cl_unit_report("04-histogram reference");
}
