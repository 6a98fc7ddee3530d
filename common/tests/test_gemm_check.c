/**
 * @file test_gemm_check.c
 * @brief CPU tests of the matrix product's inputs and check (02-gemm's and 08-tensor-cores'): the
 * same bytes and the same verdict on any number of threads, and a wrong element found and named
 * wherever the check looks.
 */
#include "cl_gemm_check.h"

#include "cl_check.h"
#include "cl_parallel.h"

#include "cl_unit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* C = A B in float from the double reference, for an m x n x k product. */
static void exact_product(const float *a, const float *b, float *c, int m, int n, int k,
                          int min_plus)
{
    double magnitude;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            c[(size_t)i * n + j] =
                (float)cl_product_element(a, b, n, k, i, j, min_plus, &magnitude);
}

int main(void)
{
    /* the inputs: 24-bit values in [-1, 1), made in many small pieces the same on one thread
       and on five, element by element the same as drawn alone; and their BF16 rounding */
    const size_t count = 13 * CL_CHUNK + 333;
    float *one = malloc(count * sizeof *one), *five = malloc(count * sizeof *five);
    unsigned short *bits1 = malloc(count * sizeof *bits1), *bits5 = malloc(count * sizeof *bits5);
    cl_set_stage_bytes(3 * CL_CHUNK * sizeof(float));
    cl_set_threads(1);
    cl_make_matrix(one, CL_ON_HOST, count, 61, 0, "A");
    cl_make_matrix(bits1, CL_ON_HOST, count, 61, 1, "A");
    cl_set_threads(5);
    cl_make_matrix(five, CL_ON_HOST, count, 61, 0, "A");
    cl_make_matrix(bits5, CL_ON_HOST, count, 61, 1, "A");
    cl_set_stage_bytes(0);
    EXPECT(memcmp(one, five, count * sizeof *one) == 0);
    EXPECT(memcmp(bits1, bits5, count * sizeof *bits1) == 0);
    int in_range = 1, alone = 1, rounded = 1;
    for (size_t i = 0; i < count; i++) {
        in_range &= one[i] >= -1.0f && one[i] < 1.0f;
        alone &= cl_matrix_element(61, i, 0) == one[i];
        float x = one[i];
        rounded &= cl_bf16_round(&x) == bits1[i] && cl_matrix_element(61, i, 1) == x;
    }
    EXPECT(in_range && alone && rounded && one[0] != one[1]);
    /* BF16 keeps 7 bits after the point: 1 + 1/256 and 1 + 3/256 are ties, to the even neighbour */
    float ties[2] = {1.0f + 1.0f / 256.0f, 1.0f + 3.0f / 256.0f};
    EXPECT(cl_bf16_round(&ties[0]) == 0x3F80 && ties[0] == 1.0f);
    EXPECT(cl_bf16_round(&ties[1]) == 0x3F82 && ties[1] == 1.0f + 2.0f / 128.0f);
    free(one);
    free(five);
    free(bits1);
    free(bits5);

    /* the check, everywhere (small) and at the edges and samples (m n k >
       CL_PRODUCT_FULL_CHECK_MACS, their reference from the inputs drawn again): an exact C passes,
       a wrong element is found and named where the check looks, and the verdict is the same on one
       thread and on five */
    const int shapes[3][4] = {{37, 41, 29, 0}, {517, 1031, 600, 0}, {300, 2003, 701, 1}};
    const int rings[2] = {0, 1}; /* plus-times, min-plus */
    for (int s = 0; s < 3; s++)
        for (int r = 0; r < 2; r++) {
            const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2], bf16 = shapes[s][3];
            if (bf16 && rings[r])
                continue; /* 08 has no min-plus */
            const cl_product product = {m, n, k, 71, bf16};
            /* the test's own A and B, element by element (B's stream is the seed's next) */
            float *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)k * n * sizeof *b);
            float *c = malloc((size_t)m * n * sizeof *c);
            for (size_t i = 0; i < (size_t)m * k; i++)
                a[i] = cl_matrix_element(71, i, bf16);
            for (size_t i = 0; i < (size_t)k * n; i++)
                b[i] = cl_matrix_element(72, i, bf16);
            /* cl_make_product makes the same A and B (as BF16 bit patterns where bf16) */
            if (r == 0) {
                const size_t item = bf16 ? sizeof(unsigned short) : sizeof(float);
                unsigned char *made_a = malloc((size_t)m * k * item);
                unsigned char *made_b = malloc((size_t)k * n * item);
                cl_make_product(made_a, made_b, CL_ON_HOST, product);
                int same = 1;
                for (int of_b = 0; of_b < 2; of_b++) {
                    const float *want = of_b ? b : a;
                    const unsigned char *made = of_b ? made_b : made_a;
                    for (size_t i = 0; i < (of_b ? (size_t)k * n : (size_t)m * k); i++) {
                        uint32_t word;
                        memcpy(&word, &want[i], sizeof word);
                        if (bf16) {
                            unsigned short bits;
                            memcpy(&bits, made + i * item, sizeof bits);
                            same &= bits == (unsigned short)(word >> 16);
                        } else {
                            same &= memcmp(made + i * item, &word, sizeof word) == 0;
                        }
                    }
                }
                EXPECT(same);
                free(made_a);
                free(made_b);
            }
            exact_product(a, b, c, m, n, k, rings[r]);
            cl_product_check *check = cl_product_check_open(product, rings[r], 73, "test");
            cl_worst worst = cl_product_check_run(check, c, CL_ON_HOST);
            EXPECT(worst.error <= (rings[r] ? 0.0 : cl_float_gamma(k)));
            /* one wrong element in the last row, then one in the first column */
            const size_t wrong[2][2] = {{(size_t)m - 1, (size_t)n / 2}, {(size_t)m / 3, 0}};
            for (int w = 0; w < 2; w++) {
                float *at = &c[wrong[w][0] * n + wrong[w][1]];
                const float kept = *at;
                *at += 0.25f;
                cl_set_threads(1);
                cl_product_check *check1 = cl_product_check_open(product, rings[r], 73, "test");
                const cl_worst worst1 = cl_product_check_run(check1, c, CL_ON_HOST);
                cl_product_check_close(check1);
                cl_set_threads(5);
                cl_product_check *check5 = cl_product_check_open(product, rings[r], 73, "test");
                worst = cl_product_check_run(check5, c, CL_ON_HOST);
                cl_product_check_close(check5);
                EXPECT(memcmp(&worst, &worst1, sizeof worst) == 0);
                EXPECT(worst.row == wrong[w][0] && worst.col == wrong[w][1] && worst.got == *at);
                EXPECT(worst.error > 1e-3);
                /* the reference made before the element went wrong finds it too */
                const cl_worst again = cl_product_check_run(check, c, CL_ON_HOST);
                EXPECT(memcmp(&worst, &again, sizeof worst) == 0);
                *at = kept;
            }
            /* a NaN where the check looks fails: C[0][0]'s */
            c[0] = NAN;
            worst = cl_product_check_run(check, c, CL_ON_HOST);
            EXPECT(isnan(worst.got) && worst.row == 0 && worst.col == 0 && worst.error >= 1.0);
            cl_product_check_close(check);
            free(a);
            free(b);
            free(c);
        }
    cl_set_threads(0);

    /* --m and --k: 1 to CL_GEMM_MAX_DIM, and the line that says so */
    int dim = 0;
    char accepted[96];
    EXPECT(cl_parse_matrix_dim("65536", &dim, accepted, sizeof accepted) == 0 && dim == 65536);
    EXPECT(cl_parse_matrix_dim("2^10", &dim, accepted, sizeof accepted) == 0 && dim == 1024);
    EXPECT(cl_parse_matrix_dim("0", &dim, accepted, sizeof accepted) == -1);
    EXPECT(cl_parse_matrix_dim("65537", &dim, accepted, sizeof accepted) == -1 &&
           strcmp(accepted, "a matrix dimension from 1 to 65536") == 0);

    /* the verdict: plus-times against its bound, min-plus exact, the worst element named */
    cl_worst worst = {0};
    cl_worst_note(&worst, 1e-7, 3, 5, 1.5f, 1.5000001);
    EXPECT(cl_product_verdict(worst, 0, 1e-6).pass);
    EXPECT(!cl_product_verdict(worst, 0, 1e-8).pass);
    EXPECT(strstr(cl_product_verdict(worst, 0, 1e-8).where, "C[3][5] = 1.5") != NULL);
    cl_worst exact = {0};
    cl_worst_note(&exact, 0.0, 0, 0, 2.0f, 2.0);
    EXPECT(cl_product_verdict(exact, 1, 0.5).pass);
    EXPECT(!cl_product_verdict(worst, 1, 0.5).pass);

    /* the roofline's lower arm: 2 GFLOP over 1 GB at 1000 GB/s is 2 TFLOP/s, below a 10 TFLOP/s
       rate, so it binds; above the rate it does not */
    cl_report report = {0};
    report.work = 2e9, report.unit_per_second = 1e12, report.ceiling = 10.0;
    report.ceiling_name = "FP32 rate";
    cl_product_read_bound(&report, 1e9, 1000.0);
    EXPECT(fabs(report.ceiling - 2.0) < 1e-12 &&
           strcmp(report.ceiling_name, "read bandwidth") == 0);
    report.ceiling = 1.0, report.ceiling_name = "FP32 rate";
    cl_product_read_bound(&report, 1e9, 1000.0);
    EXPECT(report.ceiling == 1.0 && strcmp(report.ceiling_name, "FP32 rate") == 0);
    return cl_unit_report("the matrix product's check");
}
