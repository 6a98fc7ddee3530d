/**
 * @file cl_report.h
 * @brief The report of one run: a block for people, or one CSV row with the same figures.
 */
#ifndef CL_REPORT_H
#define CL_REPORT_H

#include "cl_check.h"
#include "cl_device.h"
#include "cl_options.h"
#include "cl_timing.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The columns of a results row (CL_COL_*, CL_CSV_HEADER, CL_RUNNER_CSV_HEADER) are named once, in
   common/results_columns.txt; the build makes cl_columns.h from it. */
#include "cl_columns.h"

/** Everything a report states. */
typedef struct {
    const char *lesson;       /**< "03-reduction" */
    const char *version;      /**< "v3_sequential" */
    char case_text[160];      /**< what was run besides the version, e.g. "n=2^24 dist=real" */
    unsigned long long n;     /**< the problem size */
    int warmup;               /**< untimed runs before the timed ones */
    cl_timing timing;         /**< repeats == 0: not timed */
    double work;              /**< units of work in one run: bytes, flops, pairs, elements */
    double unit_per_second;   /**< work / seconds / this = throughput in @c unit (1e9 for GB/s) */
    const char *unit;         /**< "GB/s", "GFLOP/s", "Gpairs/s", "Gelem/s" */
    double ceiling;           /**< the binding ceiling, in @c unit, measured on this device */
    const char *ceiling_name; /**< "read bandwidth", "FP32 rate" */
    int checked;              /**< 0 under --no-check */
    int last_run_checked;     /**< the last timed run's output was checked too */
    cl_check_result check;    /**< the verdict on every checked run (cl_check_last_run()) */
    char notes[512];          /**< a lesson's own lines after the block (cl_report_note()) */
} cl_report;

/**
 * Starts a report: lesson, version (the program's file name, from @p argv0), n, warm-up, whether
 * it is checked, and the case text "n=<size>" that cl_report_append_case() extends.
 */
void cl_report_begin(cl_report *r, const char *lesson, const char *argv0, const cl_options *opt);

/** Appends " <text>" (printf-style) to the case text, e.g. cl_report_append_case(r, "dist=%s", d).
 */
void cl_report_append_case(cl_report *r, const char *format, ...);

/**
 * Adds one line (printf-style, no newline) that the block for people prints after its own, e.g.
 * what the input was; the CSV row leaves notes out.
 */
void cl_report_note(cl_report *r, const char *format, ...);

/** Throughput in the report's unit from its work and median time; 0 when not timed. */
double cl_report_throughput(const cl_report *r);

/** Prints the human-readable block (csv == 0) or the CSV row (csv != 0) to stdout. */
void cl_print_report(const cl_report *r, const cl_device_info *dev, int csv);

/** Writes the CSV row without newline into @p out (used by cl_print_report and its tests). */
void cl_format_csv_row(const cl_report *r, const cl_device_info *dev, const char *date, char *out,
                       size_t out_len);

/** Writes "2^24", "2^24+1" or "1000003" for a size (a power of two when n is one or just past one),
 * the way the runner's table shows it. */
void cl_format_size(unsigned long long n, char *out, size_t out_len);

#ifdef __cplusplus
}
#endif

#endif
