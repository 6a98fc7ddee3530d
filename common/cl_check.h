/**
 * @file cl_check.h
 * @brief Comparing with a CPU reference: errors, tolerances, and outputs poisoned before the run.
 */
#ifndef CL_CHECK_H
#define CL_CHECK_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The verdict of one comparison, as the report prints it. */
typedef struct {
    double error;       /**< the metric below; NaN or infinity when the output was */
    double tolerance;   /**< the largest error that passes */
    int pass;           /**< error <= tolerance; never true for NaN */
    const char *metric; /**< how the error is measured, in words */
    char where[160];    /**< when it fails: which output, what it holds, what was expected */
} cl_check_result;

/**
 * The worst output a check has seen and where it is, so that a failed check can name it. The
 * first in index order among the worst (NaN the worst of all), so that checking in chunks on any
 * number of threads, merged in order (cl_worst_merge()), finds the same output.
 */
typedef struct {
    double error;     /**< its error; 0 before any output is seen */
    size_t row, col;  /**< where it is */
    double got, want; /**< what it holds, what the reference says */
} cl_worst;

/** Notes one output's @p error: it becomes @p w's output if it is worse (NaN is worse). */
static inline void cl_worst_note(cl_worst *w, double error, size_t row, size_t col, double got,
                                 double want)
{
    if (error > w->error || (error != error && w->error == w->error)) {
        w->error = error;
        w->row = row;
        w->col = col;
        w->got = got;
        w->want = want;
    }
}

/** Merges the worst of a later chunk of outputs, @p later, into @p w. */
static inline void cl_worst_merge(cl_worst *w, const cl_worst *later)
{
    cl_worst_note(w, later->error, later->row, later->col, later->got, later->want);
}

/** Writes @p r's where line (printf-style); the report prints it when the check fails. */
void cl_check_where(cl_check_result *r, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Unit roundoff of float: 2^-24. */
#define CL_FLOAT_UNIT_ROUNDOFF 5.9604644775390625e-08

/**
 * Higham's gamma_h = h u / (1 - h u) for float: the relative bound on a sum whose longest chain of
 * dependent additions is @p h. Returns infinity when h u >= 1 (no bound).
 */
double cl_float_gamma(double h);

/**
 * |got - ref| / scale against @p tolerance. With scale = sum |x_i| this is the error measure that
 * the summation bounds speak of. NaN in @p got fails.
 */
cl_check_result cl_check_scaled(double got, double ref, double scale, double tolerance,
                                const char *metric);

/**
 * max_i |got_i - ref_i| / max_i |ref_i| (the infinity-norm relative error) against @p tolerance.
 * Any NaN or infinity in @p got fails, and so does n == 0.
 */
cl_check_result cl_check_array_f32(const float *got, const double *ref, size_t n, double tolerance);

/**
 * The error of one output against its reference, scaled by the sum of the magnitudes of its terms
 * (the scale of its rounding error): |got - ref| / magnitude. 0 when equal; infinity when @p got is
 * NaN or infinite, or differs from a reference whose terms are all 0.
 */
double cl_scaled_error(float got, double ref, double magnitude);

/**
 * The verdict on two checked runs of the same work: the first run and the last timed run. Returns
 * the failing one, else the one with the larger error. When only the last fails, says on stderr
 * that the version leaves state behind between runs (a workspace it needs zeroed, an output it
 * only partly rewrites), which a check of the first run alone cannot see.
 */
cl_check_result cl_check_last_run(cl_check_result first, cl_check_result last);

/** Fills @p bytes of device memory with 0xFF: as floats that is NaN, as integers 0xFFFFFFFF. */
void cl_poison(void *device_ptr, size_t bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
