/**
 * @file cl_gemm_check.c
 * @brief The matrix product's CPU side, for 02-gemm and 08-tensor-cores: the inputs, their BF16
 * rounding, and the check of C = A·B against double precision.
 */
#include "cl_gemm_check.h"

#include "cl_options.h"
#include "cl_parallel.h"
#include "cl_random.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cl_parse_matrix_dim(const char *text, void *target, char *accepted, size_t len)
{
    uint64_t value;
    if (cl_parse_size(text, &value) != 0 || value < 1 || value > CL_GEMM_MAX_DIM) {
        snprintf(accepted, len, "a matrix dimension from 1 to %d", CL_GEMM_MAX_DIM);
        return -1;
    }
    *(int *)target = (int)value;
    return 0;
}

cl_check_result cl_product_verdict(cl_worst worst, int min_plus, double bound)
{
    cl_check_result result =
        min_plus
            ? cl_check_scaled(worst.error, 0.0, 1.0, 0.0, "elements that differ from the exact min")
            : cl_check_scaled(worst.error, 0.0, 1.0, bound,
                              "max |c - exact| / sum |a*b| over the checked elements");
    cl_check_where(&result, "C[%zu][%zu] = %.9g; the reference is %.17g (the worst checked)",
                   worst.row, worst.col, worst.got, worst.want);
    return result;
}

void cl_product_read_bound(cl_report *report, double bytes, double read_gbps)
{
    const double memory_bound = report->work / bytes * read_gbps * 1e9 / report->unit_per_second;
    if (memory_bound < report->ceiling) {
        report->ceiling = memory_bound;
        report->ceiling_name = "read bandwidth";
    }
}

typedef struct {
    float *x;
    unsigned short *bits;
    uint64_t seed;
} fill_args;

/* One draw per element: element i comes from draw i of the seed's stream, on any thread. */
static void fill_chunk(void *context, size_t begin, size_t end)
{
    const fill_args *f = (const fill_args *)context;
    uint64_t state = cl_random_at(f->seed, begin);
    for (size_t i = begin; i < end; i++) /* 24 random bits: exactly representable */
        f->x[i] = (float)((double)(cl_next_random(&state) >> 40) * (2.0 / 16777216.0) - 1.0);
}

void cl_fill_matrix(float *x, size_t count, uint64_t seed)
{
    fill_args f = {x, NULL, seed};
    cl_parallel_phase(count, CL_CHUNK, fill_chunk, &f, count * sizeof *x, "filling a %s matrix");
}

static void round_chunk(void *context, size_t begin, size_t end)
{
    const fill_args *f = (const fill_args *)context;
    for (size_t i = begin; i < end; i++) {
        uint32_t word;
        memcpy(&word, &f->x[i], sizeof word);
        /* keep the top 16 bits, rounding the 16 dropped ones to nearest, ties to the even result
           (the inputs are finite: no NaN or overflow to care for) */
        word += 0x7FFFu + ((word >> 16) & 1u);
        word &= 0xFFFF0000u;
        f->bits[i] = (unsigned short)(word >> 16);
        memcpy(&f->x[i], &word, sizeof word);
    }
}

void cl_round_to_bf16(float *x, unsigned short *bits, size_t count)
{
    fill_args f = {x, bits, 0};
    cl_parallel_for(count, CL_CHUNK, round_chunk, &f, NULL);
}

double cl_product_element(const float *a, const float *b, int n, int k, int i, int j, int min_plus,
                          double *magnitude)
{
    const float *row = a + (size_t)i * (size_t)k;
    if (min_plus) {
        float best = INFINITY;
        for (int p = 0; p < k; p++) {
            const float term = row[p] + b[(size_t)p * (size_t)n + (size_t)j];
            best = term < best ? term : best;
        }
        *magnitude = 0.0;
        return best;
    }
    double sum = 0.0, abs_sum = 0.0;
    for (int p = 0; p < k; p++) {
        const double term = (double)row[p] * (double)b[(size_t)p * (size_t)n + (size_t)j];
        sum += term; /* exact products (48 bits); the double sum errs by ~k·2^-53, far below fp32 */
        abs_sum += fabs(term);
    }
    *magnitude = abs_sum;
    return sum;
}

/* ---- The check: which elements of C, compared on every host thread ----------------------- */

typedef struct {
    const float *a, *b, *c; /* c: all of C, in host memory, or NULL */
    int m, n, k;
    int min_plus;
    size_t row;                /* the row pass: which row of C */
    const float *column;       /* the column pass: B's column, gathered once */
    size_t column_index;       /* ... and which it is */
    const size_t *rows, *cols; /* the listed elements (NULL: every element, row-major) */
    const float *got;          /* the pass's elements of C, fetched: the row, column or list */
} check_args;

static void note(cl_worst *worst, float got, size_t i, size_t j, double want, double magnitude,
                 int min_plus)
{
    const double error =
        min_plus ? (got == (float)want ? 0.0 : 1.0) : cl_scaled_error(got, want, magnitude);
    cl_worst_note(worst, error, i, j, got, want);
}

/* Elements one by one (every one, or a list): k multiply-adds each down a column of B. */
static cl_worst element_chunk(void *context, size_t begin, size_t end)
{
    const check_args *x = (const check_args *)context;
    cl_worst worst = {0};
    for (size_t e = begin; e < end; e++) {
        const size_t i = x->rows ? x->rows[e] : e / (size_t)x->n;
        const size_t j = x->cols ? x->cols[e] : e % (size_t)x->n;
        double magnitude;
        const double want =
            cl_product_element(x->a, x->b, x->n, x->k, (int)i, (int)j, x->min_plus, &magnitude);
        note(&worst, x->got ? x->got[e] : x->c[i * (size_t)x->n + j], i, j, want, magnitude,
             x->min_plus);
    }
    return worst;
}

#define ROW_CHUNK 512 /* columns of one row of C per chunk: its sums live on the stack */

/* A whole row of C: each chunk of its columns walks B's rows, reading them contiguously instead of
   one column at a time (a cache miss per term). The sums run over p in the same order as
   cl_product_element(): the same values, bit for bit. */
static cl_worst row_chunk(void *context, size_t begin, size_t end)
{
    const check_args *x = (const check_args *)context;
    const float *row = x->a + x->row * (size_t)x->k;
    double sum[ROW_CHUNK], magnitude[ROW_CHUNK];
    float best[ROW_CHUNK];
    for (size_t j = begin; j < end; j++)
        sum[j - begin] = magnitude[j - begin] = 0.0, best[j - begin] = INFINITY;
    for (int p = 0; p < x->k; p++) {
        const float *b_row = x->b + (size_t)p * (size_t)x->n;
        if (x->min_plus) {
            for (size_t j = begin; j < end; j++) {
                const float term = row[p] + b_row[j];
                best[j - begin] = term < best[j - begin] ? term : best[j - begin];
            }
        } else {
            for (size_t j = begin; j < end; j++) {
                const double term = (double)row[p] * (double)b_row[j];
                sum[j - begin] += term;
                magnitude[j - begin] += fabs(term);
            }
        }
    }
    cl_worst worst = {0};
    for (size_t j = begin; j < end; j++)
        note(&worst, x->got[j], x->row, j, x->min_plus ? (double)best[j - begin] : sum[j - begin],
             magnitude[j - begin], x->min_plus);
    return worst;
}

/* A whole column of C: B's column is gathered once, then each row of A is a contiguous dot. */
static cl_worst column_chunk(void *context, size_t begin, size_t end)
{
    const check_args *x = (const check_args *)context;
    cl_worst worst = {0};
    for (size_t i = begin; i < end; i++) {
        const float *row = x->a + i * (size_t)x->k;
        double sum = 0.0, magnitude = 0.0;
        float best = INFINITY;
        for (int p = 0; p < x->k; p++) {
            if (x->min_plus) {
                const float term = row[p] + x->column[p];
                best = term < best ? term : best;
            } else {
                const double term = (double)row[p] * (double)x->column[p];
                sum += term;
                magnitude += fabs(term);
            }
        }
        note(&worst, x->got[i], i, x->column_index, x->min_plus ? (double)best : sum, magnitude,
             x->min_plus);
    }
    return worst;
}

/* Runs one pass of the check, its worst element merged into @p worst (passes in order). */
static void check_pass(check_args *x, size_t count, size_t chunk, cl_worst_fn fn, cl_worst *worst,
                       const char *what)
{
    const cl_worst pass = cl_parallel_worst(count, chunk, fn, x, what);
    cl_worst_merge(worst, &pass);
}

/* The samples' generator: a 64-bit LCG, its high bits. */
static uint64_t next_index(uint64_t *state, uint64_t bound)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (*state >> 33) % bound;
}

cl_worst cl_check_product(const float *a, const float *b, const float *c, cl_place where, int m,
                          int n, int k, int min_plus, uint64_t seed)
{
    cl_worst worst = {0};
    check_args x = {a, b, NULL, m, n, k, min_plus, 0, NULL, 0, NULL, NULL, NULL};
    char what[96];
    if ((uint64_t)m * (uint64_t)n * (uint64_t)k <= CL_PRODUCT_FULL_CHECK_MACS) {
        /* every element: all of C in host memory (at most 2^28 elements, where k is 1) */
        const size_t elements = (size_t)m * (size_t)n;
        float *host_c = NULL;
        if (where == CL_ON_DEVICE) {
            host_c = (float *)malloc(elements * sizeof *host_c);
            if (host_c == NULL)
                abort();
            cl_copy_to_host(host_c, c, elements * sizeof *host_c, "C");
        }
        x.c = host_c != NULL ? host_c : c;
        snprintf(what, sizeof what, "checking every element of C against the double reference");
        check_pass(&x, elements, 256, element_chunk, &worst, what);
        free(host_c);
        return worst;
    }
    /* only the elements checked cross the bus: C itself can be 16 GiB */
    float *got =
        (float *)malloc(((size_t)(m > n ? m : n) + CL_PRODUCT_CHECK_SAMPLES) * sizeof *got);
    float *column = (float *)malloc((size_t)k * sizeof *column);
    if (got == NULL || column == NULL)
        abort();
    x.got = got;
    /* the first and last rows and columns, where partial tiles live */
    const size_t edge_rows[2] = {0, (size_t)m - 1}, edge_cols[2] = {0, (size_t)n - 1};
    for (int r = 0; r < 2; r++) {
        x.row = edge_rows[r];
        cl_read(got, c + x.row * (size_t)n, where, (size_t)n, sizeof *got, 1);
        snprintf(what, sizeof what, "checking row %zu of C (%d elements)", x.row, n);
        check_pass(&x, (size_t)n, ROW_CHUNK, row_chunk, &worst, what);
    }
    for (int col = 0; col < 2; col++) {
        for (int p = 0; p < k; p++)
            column[p] = b[(size_t)p * (size_t)n + edge_cols[col]];
        x.column = column;
        x.column_index = edge_cols[col];
        cl_read(got, c + x.column_index, where, (size_t)m, sizeof *got, (size_t)n);
        snprintf(what, sizeof what, "checking column %zu of C (%d elements)", x.column_index, m);
        check_pass(&x, (size_t)m, 256, column_chunk, &worst, what);
    }
    free(column);
    /* and CL_PRODUCT_CHECK_SAMPLES elements drawn from the seed */
    size_t sample_rows[CL_PRODUCT_CHECK_SAMPLES], sample_cols[CL_PRODUCT_CHECK_SAMPLES];
    uint64_t state = seed ^ 0x5DEECE66Dull;
    for (int s = 0; s < CL_PRODUCT_CHECK_SAMPLES; s++) {
        sample_rows[s] = (size_t)next_index(&state, (uint64_t)m);
        sample_cols[s] = (size_t)next_index(&state, (uint64_t)n);
        cl_read(got + s, c + sample_rows[s] * (size_t)n + sample_cols[s], where, 1, sizeof *got, 1);
    }
    x.rows = sample_rows;
    x.cols = sample_cols;
    snprintf(what, sizeof what, "checking %d elements of C drawn at random",
             CL_PRODUCT_CHECK_SAMPLES);
    check_pass(&x, CL_PRODUCT_CHECK_SAMPLES, 16, element_chunk, &worst, what);
    free(got);
    return worst;
}
