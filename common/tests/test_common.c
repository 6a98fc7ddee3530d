/**
 * @file test_common.c
 * @brief Unit tests of the common library that need no GPU: sizes, options, statistics, checks,
 * report rows.
 */
#include "cl_check.h"
#include "cl_device.h"
#include "cl_options.h"
#include "cl_parallel.h"
#include "cl_random.h"
#include "cl_report.h"
#include "cl_timing.h"

#include "cl_unit.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_sizes(void)
{
    uint64_t v = 0;
    EXPECT(cl_parse_size("16777216", &v) == 0 && v == 16777216u);
    EXPECT(cl_parse_size("16M", &v) == 0 && v == 16777216u);
    EXPECT(cl_parse_size("16Mi", &v) == 0 && v == 16777216u);
    EXPECT(cl_parse_size("1Gi", &v) == 0 && v == 1073741824u);
    EXPECT(cl_parse_size("4k", &v) == 0 && v == 4096u);
    EXPECT(cl_parse_size("2T", &v) == 0 && v == 2ull << 40);
    EXPECT(cl_parse_size("2^24", &v) == 0 && v == 16777216u);
    EXPECT(cl_parse_size("2^31+17", &v) == 0 && v == 2147483665ull);
    EXPECT(cl_parse_size("2^20-1", &v) == 0 && v == 1048575u);
    EXPECT(cl_parse_size("1M+3", &v) == 0 && v == 1048579u);
    EXPECT(cl_parse_size("3^0", &v) == 0 && v == 1u);
    EXPECT(cl_parse_size("18446744073709551615", &v) == 0 && v == UINT64_MAX);
    EXPECT(cl_parse_size("2^63", &v) == 0 && v == 1ull << 63);
    /* rejected: not sizes, or past 64 bits */
    const char *bad[] = {"",
                         "abc",
                         "-5",
                         "16Mx",
                         "1.5",
                         " 16",
                         "16 ",
                         "2^",
                         "^2",
                         "2^64",
                         "18446744073709551616",
                         "16777216T",
                         "1-2",
                         "2^3^2",
                         "0x10",
                         "+1",
                         "1e6"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const int rejected = cl_parse_size(bad[i], &v) != 0;
        if (!rejected)
            fprintf(stderr, "size \"%s\" was accepted\n", bad[i]);
        EXPECT(rejected);
    }
    EXPECT(cl_parse_count("20", 100, &v) == 0 && v == 20);
    EXPECT(cl_parse_count("101", 100, &v) != 0);
    EXPECT(cl_parse_count("-1", 100, &v) != 0);
}

static int parse(cl_options *opt, char *message, int argc, char **argv)
{
    cl_options_defaults(opt, 1000);
    return cl_parse_options_r(argc, argv, opt, NULL, 0, message, 256);
}

static int parse_letter(const char *text, void *target, char *accepted, size_t len)
{
    if (strlen(text) != 1) {
        snprintf(accepted, len, "one letter");
        return -1;
    }
    *(char *)target = text[0];
    return 0;
}

static void test_options(void)
{
    cl_options opt;
    char msg[256];
    {
        char *argv[] = {"p",      "--n", "2^20",     "--repeat", "5",     "--warmup",   "0",
                        "--seed", "7",   "--device", "1",        "--csv", "--no-check", NULL};
        EXPECT(parse(&opt, msg, 13, argv) == CL_PARSE_OK);
        EXPECT(strcmp(opt.n_text, "2^20") == 0);
        EXPECT(opt.n == 1u << 20 && opt.repeat == 5 && opt.warmup == 0 && opt.seed == 7);
        EXPECT(opt.device == 1 && opt.csv == 1 && opt.check == 0);
    }
    {
        char *argv[] = {"p", NULL};
        EXPECT(parse(&opt, msg, 1, argv) == CL_PARSE_OK);
        EXPECT(opt.n == 1000 && opt.repeat == 20 && opt.warmup == 3 && opt.check == 1);
        EXPECT(strcmp(opt.n_text, "1000") == 0);
    }
    {
        char *argv[] = {"p", "--n=16M", NULL};
        EXPECT(parse(&opt, msg, 2, argv) == CL_PARSE_OK && opt.n == 16u << 20);
    }
    {
        char *argv[] = {"p", "--help", NULL};
        EXPECT(parse(&opt, msg, 2, argv) == CL_PARSE_HELP);
    }
    {
        char *argv[] = {"p", "-h", NULL};
        EXPECT(parse(&opt, msg, 2, argv) == CL_PARSE_HELP);
    }
    struct {
        int argc;
        char *argv[4];
        const char *message;
    } bad[] = {
        {2, {"p", "--bogus"}, "--bogus: unknown"},
        {2, {"p", "--n"}, "--n: missing value"},
        {3, {"p", "--n", "0"}, "--n 0: the size must be at least 1"},
        {3, {"p", "--n", "x"}, "--n x: not a size"},
        {3, {"p", "--repeat", "-1"}, "--repeat -1: expected"},
        {3, {"p", "--warmup", "1000001"}, "--warmup 1000001: expected"},
        {3, {"p", "--seed", "1e3"}, "--seed 1e3: expected"},
        {3, {"p", "--device", "1024"}, "--device 1024: expected"},
        {2, {"p", "stray"}, "stray: unexpected argument"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const int rc = parse(&opt, msg, bad[i].argc, bad[i].argv);
        EXPECT(rc == CL_PARSE_ERROR);
        if (strstr(msg, bad[i].message) != msg)
            fprintf(stderr, "message \"%s\" does not start with \"%s\"\n", msg, bad[i].message);
        EXPECT(strstr(msg, bad[i].message) == msg);
        EXPECT(strchr(msg, '\n') == NULL);
    }
    /* a lesson's own option */
    char letter = 'a';
    const cl_extra_option extra[] = {{"letter", "L", "a letter", "a", parse_letter, &letter}};
    {
        char *argv[] = {"p", "--letter", "z", NULL};
        cl_options_defaults(&opt, 1);
        EXPECT(cl_parse_options_r(3, argv, &opt, extra, 1, msg, sizeof msg) == CL_PARSE_OK);
        EXPECT(letter == 'z');
    }
    {
        char *argv[] = {"p", "--letter", "zz", NULL};
        cl_options_defaults(&opt, 1);
        EXPECT(cl_parse_options_r(3, argv, &opt, extra, 1, msg, sizeof msg) == CL_PARSE_ERROR);
        EXPECT(strcmp(msg, "--letter zz: expected one letter") == 0);
    }
}

static void test_choices(void)
{
    static const char *const names[] = {"uniform", "one", "zipf"};
    cl_choice choice = {names, 3, 0};
    char accepted[64];
    EXPECT(cl_parse_choice("zipf", &choice, accepted, sizeof accepted) == 0 && choice.value == 2);
    EXPECT(strcmp(cl_choice_name(&choice), "zipf") == 0);
    EXPECT(cl_parse_choice("Zipf", &choice, accepted, sizeof accepted) != 0 && choice.value == 2);
    EXPECT(strcmp(accepted, "uniform, one or zipf") == 0);
}

static void test_statistics(void)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    EXPECT(cl_median(odd, 3) == 3.0);
    EXPECT(cl_median(even, 4) == 2.5);
    double mins[] = {4, 0.5, 3};
    EXPECT(cl_minimum(mins, 3) == 0.5);
    EXPECT(cl_median(NULL, 0) == 0.0);
}

static void test_checks(void)
{
    EXPECT(fabs(cl_float_gamma(1) / CL_FLOAT_UNIT_ROUNDOFF - 1.0) < 1e-6);
    EXPECT(cl_float_gamma(100) > 100 * CL_FLOAT_UNIT_ROUNDOFF);
    EXPECT(isinf(cl_float_gamma(1 << 24)));

    EXPECT(cl_check_scaled(10.0, 10.0, 5.0, 0.0, "m").pass);
    EXPECT(!cl_check_scaled(10.5, 10.0, 5.0, 0.09, "m").pass); /* error 0.1 */
    EXPECT(cl_check_scaled(10.5, 10.0, 5.0, 0.1, "m").pass);
    EXPECT(!cl_check_scaled(NAN, 10.0, 5.0, 1e300, "m").pass);
    EXPECT(!cl_check_scaled(INFINITY, 10.0, 5.0, 1e300, "m").pass);
    EXPECT(!cl_check_scaled(NAN, NAN, 1.0, INFINITY, "m").pass);

    const double ref[] = {1.0, -2.0, 4.0};
    const float good[] = {1.0f, -2.0f, 4.0f};
    const float off[] = {1.0f, -2.0f, 4.4f};
    const float nan_one[] = {1.0f, NAN, 4.0f};
    EXPECT(cl_check_array_f32(good, ref, 3, 0.0).pass);
    EXPECT(!cl_check_array_f32(off, ref, 3, 0.09).pass); /* 0.4 / 4 = 0.1 */
    EXPECT(cl_check_array_f32(off, ref, 3, 0.11).pass);
    EXPECT(!cl_check_array_f32(nan_one, ref, 3, 1e300).pass);
    EXPECT(!cl_check_array_f32(good, ref, 0, 1.0).pass);
}

static void test_report(void)
{
    char text[64];
    cl_format_size(1u << 20, text, sizeof text);
    EXPECT(strcmp(text, "2^20") == 0);
    cl_format_size((1u << 24) + 1, text, sizeof text);
    EXPECT(strcmp(text, "2^24+1") == 0);
    cl_format_size(2147483665ull, text, sizeof text);
    EXPECT(strcmp(text, "2^31+17") == 0);
    cl_format_size(1000003, text, sizeof text);
    EXPECT(strcmp(text, "1000003") == 0);
    cl_format_size(33, text, sizeof text);
    EXPECT(strcmp(text, "33") == 0);
    cl_format_size(5000, text, sizeof text);
    EXPECT(strcmp(text, "5000") == 0);

    cl_device_info dev;
    memset(&dev, 0, sizeof dev);
    strcpy(dev.name, "Test GPU");
    dev.cc_major = 9;
    strcpy(dev.driver_text, "13.0");
    strcpy(dev.runtime_text, "13.0");
    cl_report r;
    memset(&r, 0, sizeof r);
    r.lesson = "03-reduction";
    r.version = "v1_x";
    strcpy(r.case_text, "n=2^20 dist=real");
    r.n = 1u << 20;
    r.timing.median_ms = 2.0;
    r.timing.min_ms = 1.5;
    r.timing.repeats = 5;
    r.work = 4e9; /* 4 GB in 2 ms: 2000 GB/s */
    r.unit_per_second = 1e9;
    r.unit = "GB/s";
    r.ceiling = 4000.0;
    r.ceiling_name = "read bandwidth";
    r.checked = 1;
    r.check = cl_check_scaled(1.0, 1.0, 1.0, 0.0, "m");
    EXPECT(fabs(cl_report_throughput(&r) - 2000.0) < 1e-9);

    char row[1024];
    cl_format_csv_row(&r, &dev, "2026-11-22", row, sizeof row);
    int commas_row = 0, commas_header = 0;
    for (const char *p = row; *p; p++)
        commas_row += *p == ',';
    for (const char *p = CL_CSV_HEADER; *p; p++)
        commas_header += *p == ',';
    EXPECT(commas_row == commas_header);
    EXPECT(strstr(row, ",2000.00,GB/s,4000.00,read bandwidth,50.0,PASS,") != NULL);
    EXPECT(strncmp(row,
                   "03-reduction,v1_x,n=2^20 dist=real,1048576,Test GPU,9.0,13.0,13.0,2026-11-22,"
                   "2.00000,1.50000,",
                   88) == 0);
    r.check = cl_check_scaled(NAN, 1.0, 1.0, 1.0, "m");
    cl_format_csv_row(&r, &dev, "2026-11-22", row, sizeof row);
    EXPECT(strstr(row, ",FAIL,") != NULL);
    r.timing.repeats = 0;
    EXPECT(cl_report_throughput(&r) == 0.0);
}

static void test_device_memory(void)
{
    char why[256] = "";
    const size_t gib = (size_t)1 << 30;
    EXPECT(cl_fits_device_memory(gib, 2 * gib, "GPU", why, sizeof why));
    /* the 256 MiB of working room counts: 1 GiB does not fit in 1.1 GiB free */
    EXPECT(!cl_fits_device_memory(gib, gib + gib / 10, "GPU", why, sizeof why));
    EXPECT(strstr(why, "needs 1.00 GiB of device memory") != NULL);
    EXPECT(strstr(why, "1.10 GiB free on GPU") != NULL);
    EXPECT(!cl_fits_device_memory((size_t)4 << 40, 80 * gib, "H100", why, sizeof why));
    EXPECT(strstr(why, "needs 4.00 TiB") != NULL);
    char text[32];
    cl_format_bytes(3 * ((size_t)1 << 20), text, sizeof text);
    EXPECT(strcmp(text, "3.00 MiB") == 0);
}

/* Every item of a cl_parallel_for() is visited once, in chunks that start where they should. */
typedef struct {
    unsigned char *visits;
    size_t chunk;
    int misplaced;
} visit_args;

static void visit_chunk(void *context, size_t begin, size_t end)
{
    visit_args *v = (visit_args *)context;
    if (begin % v->chunk != 0 || end - begin > v->chunk || end <= begin)
        v->misplaced = 1; /* a benign race: any chunk may set it */
    for (size_t i = begin; i < end; i++)
        v->visits[i]++;
}

static void test_parallel(void)
{
    /* jumping ahead: the state after d draws, in one multiply */
    uint64_t state = 12345;
    for (uint64_t d = 0; d < 1000; d++) {
        EXPECT(cl_random_at(12345, d) == state);
        (void)cl_next_random(&state);
    }
    uint64_t jumped = cl_random_at(7, 999);
    state = 7;
    for (int d = 0; d < 999; d++)
        (void)cl_next_random(&state);
    EXPECT(cl_next_random(&jumped) == cl_next_random(&state));

    const size_t counts[] = {0, 1, 255, 256, 257, 1000003};
    for (int threads = 1; threads <= 7; threads += 6) {
        cl_set_threads(threads);
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            const size_t count = counts[c];
            visit_args v = {(unsigned char *)calloc(count + 1, 1), 256, 0};
            cl_parallel_for(count, v.chunk, visit_chunk, &v, NULL);
            int once = 1;
            for (size_t i = 0; i < count; i++)
                once &= v.visits[i] == 1;
            EXPECT(once && !v.misplaced && v.visits[count] == 0);
            free(v.visits);
        }
    }
    cl_set_threads(0);

    /* the worst output: the first among equals, NaN worse than any number, and merging chunks in
       order finds the same one as one pass */
    const double errors[] = {0.5, 0.25, 2.0, 1.0, 2.0, NAN, 3.0, NAN};
    cl_worst one = {0}, merged = {0}, part = {0};
    for (size_t i = 0; i < 8; i++) {
        cl_worst_note(&one, errors[i], i, 0, (double)i, 0.0);
        cl_worst_note(&part, errors[i], i, 0, (double)i, 0.0);
        if (i % 3 == 2 || i == 7) {
            cl_worst_merge(&merged, &part);
            memset(&part, 0, sizeof part);
        }
    }
    EXPECT(isnan(one.error) && one.row == 5 && merged.row == 5 && isnan(merged.error));
    cl_worst numbers = {0};
    for (size_t i = 0; i < 5; i++)
        cl_worst_note(&numbers, errors[i], i, 0, 0.0, 0.0);
    EXPECT(numbers.error == 2.0 && numbers.row == 2);
    cl_check_result r = cl_check_scaled(1.0, 0.0, 1.0, 0.0, "test");
    EXPECT(r.where[0] == '\0');
    cl_check_where(&r, "C[%d][%d] = %.1f", 3, 4, 2.5);
    EXPECT(strcmp(r.where, "C[3][4] = 2.5") == 0);
}

int main(void)
{
    test_parallel();
    test_sizes();
    test_options();
    test_choices();
    test_statistics();
    test_checks();
    test_report();
    test_device_memory();
    /* One output's scaled error: NaN and infinity never pass. */
    EXPECT(cl_scaled_error(3.0f, 3.0, 0.0) == 0.0);
    EXPECT(cl_scaled_error(3.5f, 3.0, 2.0) == 0.25);
    EXPECT(isinf(cl_scaled_error(3.5f, 3.0, 0.0)));
    EXPECT(isinf(cl_scaled_error(NAN, 3.0, 2.0)) && isinf(cl_scaled_error(INFINITY, 3.0, 2.0)));
    return cl_unit_report("common");
}
