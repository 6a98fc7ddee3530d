/**
 * @file cl_check.c
 * @brief Comparisons that NaN never passes (every test is written as !(error <= tolerance)).
 */
#include "cl_check.h"

#include "cl_cuda_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

double cl_float_gamma(double h)
{
    const double hu = h * CL_FLOAT_UNIT_ROUNDOFF;
    return hu < 1.0 ? hu / (1.0 - hu) : INFINITY;
}

cl_check_result cl_check_scaled(double got, double ref, double scale, double tolerance,
                                const char *metric)
{
    cl_check_result r = {0};
    const double diff = fabs(got - ref);
    r.error = scale > 0.0 ? diff / scale : diff;
    r.tolerance = tolerance;
    r.pass = r.error <= tolerance; /* false when error is NaN */
    r.metric = metric;
    return r;
}

double cl_scaled_error(float got, double ref, double magnitude)
{
    if (isnan(got) || isinf(got))
        return INFINITY;
    const double diff = fabs((double)got - ref);
    return diff == 0.0 ? 0.0 : magnitude > 0.0 ? diff / magnitude : INFINITY;
}

cl_check_result cl_check_array_f32(const float *got, const double *ref, size_t n, double tolerance)
{
    cl_check_result r = {0};
    double worst = 0.0, largest = 0.0;
    int finite = n > 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(got[i]))
            finite = 0;
        const double d = fabs((double)got[i] - ref[i]);
        if (d > worst)
            worst = d;
        if (fabs(ref[i]) > largest)
            largest = fabs(ref[i]);
    }
    r.error = largest > 0.0 ? worst / largest : worst;
    if (!finite)
        r.error = NAN;
    r.tolerance = tolerance;
    r.pass = r.error <= tolerance;
    r.metric = "max|out - ref| / max|ref|";
    return r;
}

void cl_check_where(cl_check_result *r, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(r->where, sizeof r->where, format, args);
    va_end(args);
}

void cl_poison(void *device_ptr, size_t bytes, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(device_ptr, 0xFF, bytes, stream));
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
}

cl_check_result cl_check_last_run(cl_check_result first, cl_check_result last)
{
    if (first.pass && !last.pass)
        fprintf(stderr,
                "the last timed run fails the check the first run passed (error %.3g, tolerance "
                "%.3g): the version leaves state behind between runs\n",
                last.error, last.tolerance);
    if (!first.pass)
        return first;
    if (!last.pass || last.error > first.error)
        return last;
    return first;
}
