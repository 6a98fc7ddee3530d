/**
 * @file reference.c
 * @brief Lesson 02's CPU side: the inputs, and single elements of the product for the check.
 */
#include "gemm.h"

#include "cl_random.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

void fill_matrix(float *x, size_t count, unsigned long long seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < count; i++) /* 24 random bits: exactly representable */
        x[i] = (float)((double)(cl_next_random(&state) >> 40) * (2.0 / 16777216.0) - 1.0);
}

void round_to_bf16(float *x, unsigned short *bits, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        uint32_t word;
        memcpy(&word, &x[i], sizeof word);
        /* keep the top 16 bits, rounding the 16 dropped ones to nearest, ties to the even result
           (the inputs are finite: no NaN or overflow to care for) */
        word += 0x7FFFu + ((word >> 16) & 1u);
        word &= 0xFFFF0000u;
        bits[i] = (unsigned short)(word >> 16);
        memcpy(&x[i], &word, sizeof word);
    }
}

double reference_element(const float *a, const float *b, int n, int k, int i, int j, semiring ring,
                         double *magnitude)
{
    const float *row = a + (size_t)i * (size_t)k;
    if (ring == SEMIRING_MIN_PLUS) {
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
