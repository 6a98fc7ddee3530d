/**
 * @file cl_gemm_check.c
 * @brief The matrix product's CPU side, for 02-gemm and 08-tensor-cores: the inputs, their BF16
 * rounding, and the check of C = A·B against double precision.
 */
#include "cl_gemm_check.h"

#include "cl_device.h"
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

/* The loops that draw and sum below are independent element by element (or lane by lane): GCC
   builds them twice, for baseline x86-64 and for AVX-512, picked when the program loads, where it
   runs eight draws at once (splitmix64 needs 64-bit multiplies in vector registers, which only
   AVX-512 has). The same operations in the same order: the same bits either way. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WIDE __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define WIDE
#endif

/* A float's bits rounded to BF16's (to nearest, ties to the even result; the inputs are finite:
   no NaN or overflow to care for), in the float's top 16 bits. */
static inline uint32_t bf16_word(uint32_t word)
{
    return (word + 0x7FFFu + ((word >> 16) & 1u)) & 0xFFFF0000u;
}

/* The element whose splitmix64 state (before its draw) is @p state: 24 random bits in [-1, 1),
   rounded to BF16 where @p bf16. x·2^-23 - 1 for 24-bit x is a multiple of 2^-23 in [-1, 1):
   every step is exact in float. */
static inline float element_at(uint64_t state, int bf16)
{
    float x = (float)(int32_t)(cl_next_random(&state) >> 40) * (1.0f / 8388608.0f) - 1.0f;
    uint32_t word;
    memcpy(&word, &x, sizeof word);
    word = bf16 ? bf16_word(word) : word; /* a select, not a branch: the loops stay vector */
    memcpy(&x, &word, sizeof word);
    return x;
}

/* The next element of a stream, advancing its state. */
static inline float draw_element(uint64_t *state, int bf16)
{
    const float x = element_at(*state, bf16);
    *state += 0x9E3779B97F4A7C15ull; /* cl_next_random()'s step */
    return x;
}

float cl_matrix_element(uint64_t seed, size_t index, int bf16)
{
    return element_at(cl_random_at(seed, index), bf16);
}

unsigned short cl_bf16_round(float *x)
{
    uint32_t word;
    memcpy(&word, x, sizeof word);
    word = bf16_word(word);
    memcpy(x, &word, sizeof word);
    return (unsigned short)(word >> 16);
}

typedef struct {
    uint64_t seed;
    int bf16; /* the values rounded to BF16 */
    int bits; /* written as BF16 bit patterns (the GPU's A and B), else as floats */
} make_args;

/* One draw per element: element i comes from draw i of the seed's stream, on any thread. */
WIDE static void make_piece(void *context, void *piece, size_t first, size_t begin, size_t end)
{
    const make_args *f = (const make_args *)context;
    uint64_t state = cl_random_at(f->seed, begin);
    if (f->bits) {
        unsigned short *bits = (unsigned short *)piece;
        for (size_t i = begin; i < end; i++) {
            const float x = draw_element(&state, 1);
            uint32_t word;
            memcpy(&word, &x, sizeof word);
            bits[i - first] = (unsigned short)(word >> 16);
        }
    } else {
        float *x = (float *)piece;
        for (size_t i = begin; i < end; i++)
            x[i - first] = draw_element(&state, f->bf16);
    }
}

void cl_make_matrix(void *dst, cl_place where, size_t count, uint64_t seed, int bf16,
                    const char *name)
{
    make_args f = {seed, bf16, bf16};
    char doing[96];
    snprintf(doing, sizeof doing, "making %%s of %s%s", bf16 ? "BF16 " : "", name);
    cl_make(dst, where, count, bf16 ? sizeof(unsigned short) : sizeof(float), CL_CHUNK, make_piece,
            &f, doing);
}

void cl_make_product(void *a, void *b, cl_place where, cl_product p)
{
    cl_make_matrix(a, where, (size_t)p.m * (size_t)p.k, p.seed, p.bf16, "A");
    cl_make_matrix(b, where, (size_t)p.k * (size_t)p.n, p.seed + 1, p.bf16, "B");
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

/* ---- The check: the reference of the elements it compares, computed once ------------------- */

struct cl_product_check {
    cl_product p;
    int min_plus;
    const char *n_text; /* the option behind the sizes, for a failed allocation's line */
    float *a, *b;       /* every element checked: A and B on the host (small: m n k <= 2^28) */
    size_t count;       /* else the elements listed: the edge rows, the edge columns, the samples */
    size_t *rows, *cols;
    double *want, *magnitude;
};

static void note(cl_worst *worst, float got, size_t i, size_t j, double want, double magnitude,
                 int min_plus)
{
    const double error =
        min_plus ? (got == (float)want ? 0.0 : 1.0) : cl_scaled_error(got, want, magnitude);
    cl_worst_note(worst, error, i, j, got, want);
}

typedef struct {
    const cl_product_check *check;
    const float *c;   /* all of C, in host memory (every element checked) */
    const float *got; /* the listed elements of C, fetched */
} compare_args;

/* Every element, one by one: k multiply-adds each, down a column of B. */
static cl_worst element_chunk(void *context, size_t begin, size_t end)
{
    const compare_args *x = (const compare_args *)context;
    const cl_product_check *check = x->check;
    const size_t n = (size_t)check->p.n;
    cl_worst worst = {0};
    for (size_t e = begin; e < end; e++) {
        double magnitude;
        const double want =
            cl_product_element(check->a, check->b, check->p.n, check->p.k, (int)(e / n),
                               (int)(e % n), check->min_plus, &magnitude);
        note(&worst, x->c[e], e / n, e % n, want, magnitude, check->min_plus);
    }
    return worst;
}

/* The listed elements against their reference: the reference was computed once. */
static cl_worst listed_chunk(void *context, size_t begin, size_t end)
{
    const compare_args *x = (const compare_args *)context;
    const cl_product_check *check = x->check;
    cl_worst worst = {0};
    for (size_t e = begin; e < end; e++)
        note(&worst, x->got[e], check->rows[e], check->cols[e], check->want[e], check->magnitude[e],
             check->min_plus);
    return worst;
}

typedef struct {
    cl_product_check *check;
    const float *lines; /* A's first and last rows, then B's first and last columns */
    size_t row_tasks, column_tasks;
} reference_args;

/* Each reference below is the sum over p, in order, of a·b in double (exact products of 24-bit
   values; the double sum errs by ~k·2^-53, far below fp32), with Σ|a·b| for the error bound, or
   (min-plus) the min over p of the float a + b: the same operations in the same order as
   cl_product_element(), one element per lane. */

#define ROW_CHUNK    512 /* columns of the edge rows per chunk: their sums live on the stack */
#define SAMPLE_CHUNK 64  /* samples per chunk, summed side by side */
#define LANES        64  /* rows of the edge columns summed side by side (a vector loop) */

/* Columns [begin, end) of C's first and last rows: B's rows drawn again, a chunk's width at a
   time, each element used for both rows (B is never read with a stride of n). */
WIDE static void row_chunk(void *context, size_t begin, size_t end)
{
    const reference_args *x = (const reference_args *)context;
    const cl_product_check *check = x->check;
    const cl_product *p = &check->p;
    const size_t n = (size_t)p->n, k = (size_t)p->k, width = end - begin;
    const float *first = x->lines, *last = x->lines + k; /* A's edge rows */
    const int bf16 = p->bf16;
    double sum[2][ROW_CHUNK], magnitude[2][ROW_CHUNK];
    for (size_t j = 0; j < width; j++)
        for (int r = 0; r < 2; r++)
            sum[r][j] = check->min_plus ? INFINITY : 0.0, magnitude[r][j] = 0.0;
    for (size_t q = 0; q < k; q++) {
        uint64_t state = cl_random_at(p->seed + 1, q * n + begin);
        const float a0 = first[q], a1 = last[q];
        if (check->min_plus) {
            for (size_t j = 0; j < width; j++) {
                const float b = draw_element(&state, bf16);
                const double t0 = (double)(a0 + b), t1 = (double)(a1 + b);
                sum[0][j] = t0 < sum[0][j] ? t0 : sum[0][j];
                sum[1][j] = t1 < sum[1][j] ? t1 : sum[1][j];
            }
        } else {
            for (size_t j = 0; j < width; j++) {
                const double b = (double)draw_element(&state, bf16);
                const double t0 = (double)a0 * b, t1 = (double)a1 * b;
                sum[0][j] += t0, magnitude[0][j] += fabs(t0);
                sum[1][j] += t1, magnitude[1][j] += fabs(t1);
            }
        }
    }
    for (int r = 0; r < 2; r++)
        for (size_t j = 0; j < width; j++) {
            const size_t e = (size_t)r * n + begin + j;
            check->want[e] = sum[r][j];
            check->magnitude[e] = magnitude[r][j];
        }
}

/* Rows [begin, end) of C's first and last columns, LANES rows side by side: A's rows drawn
   again, each element used for both columns, against B's two edge columns drawn once. */
WIDE static void column_chunk(void *context, size_t begin, size_t end)
{
    const reference_args *x = (const reference_args *)context;
    const cl_product_check *check = x->check;
    const cl_product *p = &check->p;
    const size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k;
    const float *first = x->lines + 2 * k, *last = x->lines + 3 * k; /* B's edge columns */
    const int bf16 = p->bf16;
    for (size_t i0 = begin; i0 < end; i0 += LANES) {
        const size_t rows = end - i0 < LANES ? end - i0 : LANES;
        uint64_t state[LANES];
        double sum[2][LANES], magnitude[2][LANES];
        for (size_t l = 0; l < rows; l++) {
            state[l] = cl_random_at(p->seed, (i0 + l) * k);
            for (int c = 0; c < 2; c++)
                sum[c][l] = check->min_plus ? INFINITY : 0.0, magnitude[c][l] = 0.0;
        }
        for (size_t q = 0; q < k; q++) {
            const float b0 = first[q], b1 = last[q];
            if (check->min_plus) {
                for (size_t l = 0; l < rows; l++) {
                    const float a = draw_element(&state[l], bf16);
                    const double t0 = (double)(a + b0), t1 = (double)(a + b1);
                    sum[0][l] = t0 < sum[0][l] ? t0 : sum[0][l];
                    sum[1][l] = t1 < sum[1][l] ? t1 : sum[1][l];
                }
            } else {
                for (size_t l = 0; l < rows; l++) {
                    const double a = (double)draw_element(&state[l], bf16);
                    const double t0 = a * (double)b0, t1 = a * (double)b1;
                    sum[0][l] += t0, magnitude[0][l] += fabs(t0);
                    sum[1][l] += t1, magnitude[1][l] += fabs(t1);
                }
            }
        }
        for (int c = 0; c < 2; c++)
            for (size_t l = 0; l < rows; l++) {
                check->want[2 * n + (size_t)c * m + i0 + l] = sum[c][l];
                check->magnitude[2 * n + (size_t)c * m + i0 + l] = magnitude[c][l];
            }
    }
}

/* The samples [begin, end), side by side: A's rows drawn in order, B's columns element by element
   (one multiply to jump to each). */
WIDE static void sample_chunk(void *context, size_t begin, size_t end)
{
    const reference_args *x = (const reference_args *)context;
    const cl_product_check *check = x->check;
    const cl_product *p = &check->p;
    const size_t n = (size_t)p->n, k = (size_t)p->k, list = 2 * n + 2 * (size_t)p->m;
    const size_t count = end - begin;
    const int bf16 = p->bf16;
    uint64_t state[SAMPLE_CHUNK], column[SAMPLE_CHUNK];
    double sum[SAMPLE_CHUNK], magnitude[SAMPLE_CHUNK];
    for (size_t l = 0; l < count; l++) {
        state[l] = cl_random_at(p->seed, check->rows[list + begin + l] * k);
        column[l] = check->cols[list + begin + l];
        sum[l] = check->min_plus ? INFINITY : 0.0, magnitude[l] = 0.0;
    }
    for (size_t q = 0; q < k; q++) {
        const uint64_t row_of_b = q * n;
        if (check->min_plus) {
            for (size_t l = 0; l < count; l++) {
                const float a = draw_element(&state[l], bf16);
                const float b = element_at(cl_random_at(p->seed + 1, row_of_b + column[l]), bf16);
                const double term = (double)(a + b);
                sum[l] = term < sum[l] ? term : sum[l];
            }
        } else {
            for (size_t l = 0; l < count; l++) {
                const double a = (double)draw_element(&state[l], bf16);
                const double b =
                    (double)element_at(cl_random_at(p->seed + 1, row_of_b + column[l]), bf16);
                sum[l] += a * b, magnitude[l] += fabs(a * b);
            }
        }
    }
    for (size_t l = 0; l < count; l++) {
        check->want[list + begin + l] = sum[l];
        check->magnitude[list + begin + l] = magnitude[l];
    }
}

#define COLUMN_CHUNK 256 /* rows of the edge columns per chunk */

/* Task t of the reference: a chunk of the row pass, of the column pass, or of the samples, handed
   out as threads free up (one phase, one progress line). */
static void reference_task(void *context, size_t begin, size_t end)
{
    const reference_args *x = (const reference_args *)context;
    const cl_product *p = &x->check->p;
    for (size_t t = begin; t < end; t++) {
        if (t < x->row_tasks) {
            const size_t first = t * ROW_CHUNK, n = (size_t)p->n;
            row_chunk(context, first, first + ROW_CHUNK < n ? first + ROW_CHUNK : n);
        } else if (t < x->row_tasks + x->column_tasks) {
            const size_t first = (t - x->row_tasks) * COLUMN_CHUNK, m = (size_t)p->m;
            column_chunk(context, first, first + COLUMN_CHUNK < m ? first + COLUMN_CHUNK : m);
        } else {
            const size_t first = (t - x->row_tasks - x->column_tasks) * SAMPLE_CHUNK;
            sample_chunk(context, first,
                         first + SAMPLE_CHUNK < CL_PRODUCT_CHECK_SAMPLES
                             ? first + SAMPLE_CHUNK
                             : CL_PRODUCT_CHECK_SAMPLES);
        }
    }
}

/* The samples' generator: a 64-bit LCG, its high bits. */
static uint64_t next_index(uint64_t *state, uint64_t bound)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (*state >> 33) % bound;
}

/* Draws line @p index of A (a row: k elements in a row) or of B (a column: k elements n apart). */
static void draw_line(float *to, const cl_product *p, int of_b, size_t index)
{
    const size_t n = (size_t)p->n, k = (size_t)p->k;
    for (size_t q = 0; q < k; q++)
        to[q] = of_b ? cl_matrix_element(p->seed + 1, q * n + index, p->bf16)
                     : cl_matrix_element(p->seed, index * k + q, p->bf16);
}

cl_product_check *cl_product_check_open(cl_product p, int min_plus, uint64_t sample_seed,
                                        const char *n_text)
{
    cl_product_check *check =
        (cl_product_check *)cl_host_alloc(n_text, sizeof *check, "the product's check");
    memset(check, 0, sizeof *check);
    check->p = p;
    check->min_plus = min_plus;
    check->n_text = n_text;
    const size_t m = (size_t)p.m, n = (size_t)p.n, k = (size_t)p.k;
    if ((uint64_t)m * n * k <= CL_PRODUCT_FULL_CHECK_MACS) {
        /* every element: A and B on the host, as floats (at most 2^28 elements, where n is 1) */
        cl_require_host_memory(n_text, (m * k + k * n) * sizeof(float));
        check->a = (float *)cl_host_alloc(n_text, m * k * sizeof *check->a, "A's reference copy");
        check->b = (float *)cl_host_alloc(n_text, k * n * sizeof *check->b, "B's reference copy");
        for (int of_b = 0; of_b < 2; of_b++) {
            make_args f = {p.seed + (uint64_t)of_b, p.bf16, 0};
            cl_make(of_b ? check->b : check->a, CL_ON_HOST, of_b ? k * n : m * k, sizeof(float),
                    CL_CHUNK, make_piece, &f, of_b ? "drawing B again" : "drawing A again");
        }
        return check;
    }
    /* the first and last rows and columns, where partial tiles live, and samples drawn from the
       seed: their reference now, from the inputs drawn again (the host keeps no copy of A or B) */
    check->count = 2 * n + 2 * m + CL_PRODUCT_CHECK_SAMPLES;
    check->rows =
        (size_t *)cl_host_alloc(n_text, check->count * sizeof *check->rows, "the checked elements");
    check->cols =
        (size_t *)cl_host_alloc(n_text, check->count * sizeof *check->cols, "the checked elements");
    check->want =
        (double *)cl_host_alloc(n_text, check->count * sizeof *check->want, "the reference");
    check->magnitude =
        (double *)cl_host_alloc(n_text, check->count * sizeof *check->magnitude, "the reference");
    for (size_t j = 0; j < n; j++) {
        check->rows[j] = 0, check->cols[j] = j;
        check->rows[n + j] = m - 1, check->cols[n + j] = j;
    }
    for (size_t i = 0; i < m; i++) {
        check->rows[2 * n + i] = i, check->cols[2 * n + i] = 0;
        check->rows[2 * n + m + i] = i, check->cols[2 * n + m + i] = n - 1;
    }
    uint64_t state = sample_seed ^ 0x5DEECE66Dull;
    for (size_t s = 2 * n + 2 * m; s < check->count; s++) {
        check->rows[s] = (size_t)next_index(&state, (uint64_t)m);
        check->cols[s] = (size_t)next_index(&state, (uint64_t)n);
    }
    float *lines = (float *)cl_host_alloc(n_text, 4 * k * sizeof *lines, "the edge lines");
    draw_line(lines, &p, 0, 0);
    draw_line(lines + k, &p, 0, m - 1);
    draw_line(lines + 2 * k, &p, 1, 0);
    draw_line(lines + 3 * k, &p, 1, n - 1);
    reference_args x = {check, lines, cl_chunks(n, ROW_CHUNK), cl_chunks(m, COLUMN_CHUNK)};
    const size_t tasks =
        x.row_tasks + x.column_tasks + cl_chunks(CL_PRODUCT_CHECK_SAMPLES, SAMPLE_CHUNK);
    cl_progress progress;
    cl_progress_begin(&progress, (double)tasks, "--no-check skips it",
                      "computing the reference of C's edge rows and columns and %d samples",
                      CL_PRODUCT_CHECK_SAMPLES);
    cl_parallel_for(tasks, 1, reference_task, &x, &progress);
    free(lines);
    return check;
}

cl_worst cl_product_check_run(const cl_product_check *check, const float *c, cl_place where)
{
    const size_t m = (size_t)check->p.m, n = (size_t)check->p.n;
    compare_args x = {check, NULL, NULL};
    char what[96];
    if (check->a != NULL) {
        /* every element: all of C in host memory (at most 2^28 elements, where k is 1) */
        float *host_c = NULL;
        if (where == CL_ON_DEVICE) {
            host_c = (float *)cl_host_alloc(check->n_text, m * n * sizeof *host_c, "C");
            cl_copy_to_host(host_c, c, m * n * sizeof *host_c, "C");
        }
        x.c = host_c != NULL ? host_c : c;
        snprintf(what, sizeof what, "checking every element of C against the double reference");
        const cl_worst worst = cl_parallel_worst(m * n, 256, element_chunk, &x, what);
        free(host_c);
        return worst;
    }
    /* only the elements checked cross the bus: C itself can be 16 GiB */
    float *got =
        (float *)cl_host_alloc(check->n_text, check->count * sizeof *got, "C's checked elements");
    cl_read(got, c, where, n, sizeof *got, 1);
    cl_read(got + n, c + (m - 1) * n, where, n, sizeof *got, 1);
    cl_read(got + 2 * n, c, where, m, sizeof *got, n);
    cl_read(got + 2 * n + m, c + n - 1, where, m, sizeof *got, n);
    for (size_t s = 2 * n + 2 * m; s < check->count; s++)
        cl_read(got + s, c + check->rows[s] * n + check->cols[s], where, 1, sizeof *got, 1);
    x.got = got;
    snprintf(what, sizeof what, "checking %zu elements of C", check->count);
    const cl_worst worst = cl_parallel_worst(check->count, 4096, listed_chunk, &x, what);
    free(got);
    return worst;
}

void cl_product_check_close(cl_product_check *check)
{
    if (check == NULL)
        return;
    free(check->a);
    free(check->b);
    free(check->rows);
    free(check->cols);
    free(check->want);
    free(check->magnitude);
    free(check);
}
