/**
 * @file reference.c
 * @brief Lesson 04's CPU side: the inputs of each distribution and the exact sequential histogram.
 */
#include "histogram.h"

#include "cl_random.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ZIPF_GUIDE 65536 /* entries of the guide table into the Zipf CDF */

void fill_inputs(void *in, size_t n, input_type type, unsigned bins, input_dist dist,
                 unsigned long long seed)
{
    uint64_t state = seed;
    unsigned char *u8 = (unsigned char *)in;
    unsigned *u32 = (unsigned *)in;
    double *cdf = NULL;
    unsigned *guide = NULL;
    if (dist == DIST_ZIPF) { /* P(k) ∝ 1/(k+1): bin 0 takes ~1/ln(bins) of the values */
        cdf = (double *)malloc(bins * sizeof *cdf);
        guide = (unsigned *)malloc((ZIPF_GUIDE + 1) * sizeof *guide);
        if (cdf == NULL || guide == NULL)
            abort();
        double total = 0.0;
        for (unsigned k = 0; k < bins; k++)
            cdf[k] = (total += 1.0 / (k + 1.0));
        for (unsigned k = 0; k < bins; k++)
            cdf[k] /= total;
        /* guide[g]: the first k with cdf[k] >= g / ZIPF_GUIDE, so a draw u searches only between
           guide[g] and guide[g + 1] (a few bins) instead of all of them: 2^30 draws in seconds */
        unsigned k = 0;
        for (unsigned g = 0; g <= ZIPF_GUIDE; g++) {
            while (k < bins - 1 && cdf[k] < (double)g / ZIPF_GUIDE)
                k++;
            guide[g] = k;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = dist == DIST_ONE ? 0 : cl_next_random(&state);
        unsigned v;
        if (dist == DIST_ONE) {
            v = bins / 2;
        } else if (dist == DIST_UNIFORM) {
            /* the top 32 bits scaled to [0, bins): no division, which made 2^31 draws slow; and
               for u32, 1 in 1024 values lands past the last bin, to exercise "not counted" */
            v = (unsigned)(((r >> 32) * bins) >> 32);
            if (type == TYPE_U32 && (r & 1023) == 0)
                v = bins + (unsigned)((r >> 10) & 1023);
        } else {
            const double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
            const unsigned g = (unsigned)(u * ZIPF_GUIDE);
            unsigned lo = guide[g], hi = guide[g + 1]; /* first k with cdf[k] >= u, or bins - 1 */
            while (lo < hi) {
                const unsigned mid = lo + (hi - lo) / 2;
                if (cdf[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            v = lo;
        }
        if (type == TYPE_U8)
            u8[i] = (unsigned char)v;
        else
            u32[i] = v;
    }
    free(cdf);
    free(guide);
}

void reference_histogram(const void *in, size_t n, input_type type, unsigned bins,
                         unsigned long long *hist)
{
    memset(hist, 0, bins * sizeof *hist);
    if (type == TYPE_U8) {
        /* Four interleaved histograms, added at the end: when every pixel is the same, one counter
           incremented 2^32 times is a chain of dependent adds (~3 ns each); four chains overlap. */
        unsigned long long lanes[4][256];
        memset(lanes, 0, sizeof lanes);
        const unsigned char *u8 = (const unsigned char *)in;
        size_t i = 0;
        for (; i + 4 <= n; i += 4)
            for (int k = 0; k < 4; k++)
                lanes[k][u8[i + k]]++;
        for (; i < n; i++)
            lanes[0][u8[i]]++;
        for (unsigned b = 0; b < bins; b++)
            hist[b] = lanes[0][b] + lanes[1][b] + lanes[2][b] + lanes[3][b];
    } else {
        const unsigned *u32 = (const unsigned *)in;
        for (size_t i = 0; i < n; i++)
            if (u32[i] < bins)
                hist[u32[i]]++;
    }
}
