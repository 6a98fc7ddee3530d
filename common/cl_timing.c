/**
 * @file cl_timing.c
 * @brief The statistics of a timing: median and minimum of the repeats.
 */
#include "cl_timing.h"

#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cl_median(double *values, int count)
{
    if (count <= 0)
        return 0.0;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

double cl_minimum(const double *values, int count)
{
    double best = count > 0 ? values[0] : 0.0;
    for (int i = 1; i < count; i++)
        if (values[i] < best)
            best = values[i];
    return best;
}
