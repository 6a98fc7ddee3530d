/**
 * @file reference.c
 * @brief Lesson 04's CPU side: the inputs of each distribution and the exact histogram.
 */
#include "histogram.h"

#include "cl_parallel.h"
#include "cl_random.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ZIPF_GUIDE 65536 /* entries of the guide table into the Zipf CDF */

typedef struct {
    input_type type;
    unsigned bins;
    input_dist dist;
    uint64_t seed;
    const double *cdf;        /* the Zipf CDF, or NULL */
    const unsigned *guide;    /* and its guide table */
    unsigned long long *hist; /* the reference, counted on the way, or NULL */
} make_args;

static void count_values(const void *values, size_t length, input_type type, unsigned bins,
                         unsigned long long *hist);

/* One draw per element (none for dist one; for uniform u8 pixels, eight per draw, byte i % 8 of
   draw i / 8: the draw is most of a pixel's cost): element i comes from the seed's stream alone,
   on any thread, and lands at piece[i - first]. Chunks start at multiples of eight. Then, while
   the chunk is still in this core's cache, it is counted. */
static void make_piece(void *context, void *piece, size_t first, size_t begin, size_t end)
{
    const make_args *f = (const make_args *)context;
    const unsigned bins = f->bins;
    unsigned char *u8 = (unsigned char *)piece; /* u8[i - first] is element i */
    unsigned *u32 = (unsigned *)piece;
    const int pixels_per_draw = f->type == TYPE_U8 && f->dist == DIST_UNIFORM;
    uint64_t state = cl_random_at(f->seed, pixels_per_draw ? begin / 8 : begin);
    for (size_t i = begin; pixels_per_draw && i < end; i += 8) {
        const uint64_t r = cl_next_random(&state);
        unsigned char *out = u8 + (i - first);
        if (bins == 256 && i + 8 <= end) { /* the bytes themselves, low byte first */
            for (int k = 0; k < 8; k++)
                out[k] = (unsigned char)(r >> (8 * k));
        } else {
            for (size_t k = 0; k < 8 && i + k < end; k++) /* a byte scaled to [0, bins) */
                out[k] = (unsigned char)((((r >> (8 * k)) & 255u) * bins) >> 8);
        }
    }
    for (size_t i = begin; !pixels_per_draw && i < end; i++) {
        const uint64_t r = f->dist == DIST_ONE ? 0 : cl_next_random(&state);
        unsigned v;
        if (f->dist == DIST_ONE) {
            v = bins / 2;
        } else if (f->dist == DIST_UNIFORM) {
            /* the top 32 bits scaled to [0, bins): no division, which made 2^31 draws slow; and
               for u32, 1 in 1024 values lands past the last bin, to exercise "not counted" */
            v = (unsigned)(((r >> 32) * bins) >> 32);
            if (f->type == TYPE_U32 && (r & 1023) == 0)
                v = bins + (unsigned)((r >> 10) & 1023);
        } else {
            const double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
            const unsigned g = (unsigned)(u * ZIPF_GUIDE);
            unsigned lo = f->guide[g], hi = f->guide[g + 1]; /* first k: cdf[k] >= u, or bins - 1 */
            while (lo < hi) {
                const unsigned mid = lo + (hi - lo) / 2;
                if (f->cdf[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            v = lo;
        }
        if (f->type == TYPE_U8)
            u8[i - first] = (unsigned char)v;
        else
            u32[i - first] = v;
    }
    if (f->hist != NULL)
        count_values(f->type == TYPE_U8 ? (const void *)(u8 + (begin - first))
                                        : (const void *)(u32 + (begin - first)),
                     end - begin, f->type, bins, f->hist);
}

/* A chunk of the reference counts into its own counters and adds them to the shared bins at its
   end: integer sums, so the order in which chunks finish changes nothing. */
#define COUNT_CHUNK     ((size_t)1 << 20)
#define LOCAL_BINS_UPTO 65536u /* more bins than this: each chunk adds runs of equal values */

void make_inputs(void *in, cl_place where, size_t n, input_type type, unsigned bins,
                 input_dist dist, unsigned long long seed, unsigned long long *hist)
{
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
           guide[g] and guide[g + 1] (a few bins) instead of all of them */
        unsigned k = 0;
        for (unsigned g = 0; g <= ZIPF_GUIDE; g++) {
            while (k < bins - 1 && cdf[k] < (double)g / ZIPF_GUIDE)
                k++;
            guide[g] = k;
        }
    }
    make_args f = {type, bins, dist, seed, cdf, guide, hist};
    if (hist != NULL)
        memset(hist, 0, bins * sizeof *hist);
    cl_make(in, where, n, element_bytes(type), COUNT_CHUNK, make_piece, &f, "filling %s of inputs");
    free(cdf);
    free(guide);
}

void fill_inputs(void *in, size_t n, input_type type, unsigned bins, input_dist dist,
                 unsigned long long seed)
{
    make_inputs(in, CL_ON_HOST, n, type, bins, dist, seed, NULL);
}

typedef struct {
    const void *in;
    input_type type;
    unsigned bins;
    unsigned long long *hist;
} count_args;

static void add_to_bin(unsigned long long *hist, unsigned bin, unsigned long long count)
{
    __atomic_fetch_add(&hist[bin], count, __ATOMIC_RELAXED);
}

/* Values [0, length) of a chunk, into the shared counters. */
static void count_values(const void *values, size_t length, input_type type, unsigned bins,
                         unsigned long long *hist)
{
    if (type == TYPE_U8) {
        /* four interleaved counters per value: when every pixel is the same, one counter
           incremented for each is a chain of dependent adds (~3 ns each); four chains overlap */
        unsigned lanes[4][256];
        memset(lanes, 0, sizeof lanes);
        const unsigned char *u8 = (const unsigned char *)values;
        size_t i = 0;
        for (; i + 4 <= length; i += 4)
            for (int k = 0; k < 4; k++)
                lanes[k][u8[i + k]]++;
        for (; i < length; i++)
            lanes[0][u8[i]]++;
        for (unsigned b = 0; b < bins; b++)
            if (lanes[0][b] + lanes[1][b] + lanes[2][b] + lanes[3][b])
                add_to_bin(hist, b,
                           (unsigned long long)lanes[0][b] + lanes[1][b] + lanes[2][b] +
                               lanes[3][b]);
        return;
    }
    const unsigned *u32 = (const unsigned *)values;
    if (bins <= LOCAL_BINS_UPTO) {
        unsigned *local = (unsigned *)calloc(bins, sizeof *local);
        if (local == NULL)
            abort();
        for (size_t i = 0; i < length; i++)
            if (u32[i] < bins)
                local[u32[i]]++;
        for (unsigned b = 0; b < bins; b++)
            if (local[b])
                add_to_bin(hist, b, local[b]);
        free(local);
        return;
    }
    /* too many bins for a chunk's own copy: add each run of equal values at once (all of a
       one-value image is one add per chunk, not a fight over one counter) */
    size_t i = 0;
    while (i < length) {
        size_t j = i + 1;
        while (j < length && u32[j] == u32[i])
            j++;
        if (u32[i] < bins)
            add_to_bin(hist, u32[i], j - i);
        i = j;
    }
}

static void count_chunk(void *context, size_t begin, size_t end)
{
    const count_args *c = (const count_args *)context;
    count_values((const char *)c->in + begin * element_bytes(c->type), end - begin, c->type,
                 c->bins, c->hist);
}

void reference_histogram(const void *in, size_t n, input_type type, unsigned bins,
                         unsigned long long *hist)
{
    memset(hist, 0, bins * sizeof *hist);
    count_args c = {in, type, bins, hist};
    cl_parallel_phase(n, COUNT_CHUNK, count_chunk, &c, n * (type == TYPE_U8 ? 1 : sizeof(unsigned)),
                      "counting %s of inputs");
}
