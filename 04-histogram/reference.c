/**
 * @file reference.c
 * @brief Lesson 04's CPU side: the inputs of each distribution and the exact sequential histogram.
 */
#include "histogram.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void fill_inputs(void *in, size_t n, input_type type, unsigned bins, input_dist dist,
                 unsigned long long seed)
{
    uint64_t state = seed;
    unsigned char *u8 = (unsigned char *)in;
    unsigned *u32 = (unsigned *)in;
    double *cdf = NULL;
    if (dist == DIST_ZIPF) { /* P(k) ∝ 1/(k+1): bin 0 takes ~1/ln(bins) of the values */
        cdf = (double *)malloc(bins * sizeof *cdf);
        if (cdf == NULL)
            abort();
        double total = 0.0;
        for (unsigned k = 0; k < bins; k++)
            cdf[k] = (total += 1.0 / (k + 1.0));
        for (unsigned k = 0; k < bins; k++)
            cdf[k] /= total;
    }
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = dist == DIST_ONE ? 0 : next_random(&state);
        unsigned v;
        if (dist == DIST_ONE) {
            v = bins / 2;
        } else if (dist == DIST_UNIFORM) {
            /* u32: 1 in 1024 values lands past the last bin, to exercise "not counted" */
            v = (unsigned)(r % bins);
            if (type == TYPE_U32 && (r >> 54) == 0)
                v = bins + (unsigned)((r >> 20) % 1000);
        } else {
            const double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
            unsigned lo = 0, hi = bins - 1; /* first k with cdf[k] >= u */
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
}

void reference_histogram(const void *in, size_t n, input_type type, unsigned bins,
                         unsigned long long *hist)
{
    memset(hist, 0, bins * sizeof *hist);
    if (type == TYPE_U8) {
        const unsigned char *u8 = (const unsigned char *)in;
        for (size_t i = 0; i < n; i++)
            if (u8[i] < bins)
                hist[u8[i]]++;
    } else {
        const unsigned *u32 = (const unsigned *)in;
        for (size_t i = 0; i < n; i++)
            if (u32[i] < bins)
                hist[u32[i]]++;
    }
}
