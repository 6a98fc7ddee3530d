/**
 * @file cl_report.c
 * @brief Reporting: names the device, size, version, times, throughput and % of the ceiling.
 */
#include "cl_report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cl_report_begin(cl_report *r, const char *lesson, const char *argv0, const cl_options *opt)
{
    char size_text[32];
    const char *slash = strrchr(argv0, '/');
    memset(r, 0, sizeof *r);
    r->lesson = lesson;
    r->version = slash ? slash + 1 : argv0;
    r->n = opt->n;
    r->warmup = opt->warmup;
    r->checked = opt->check;
    cl_format_size(opt->n, size_text, sizeof size_text);
    snprintf(r->case_text, sizeof r->case_text, "n=%s", size_text);
}

void cl_report_append_case(cl_report *r, const char *format, ...)
{
    const size_t used = strlen(r->case_text);
    va_list args;
    if (used + 1 >= sizeof r->case_text)
        return;
    r->case_text[used] = ' ';
    va_start(args, format);
    vsnprintf(r->case_text + used + 1, sizeof r->case_text - used - 1, format, args);
    va_end(args);
}

void cl_report_note(cl_report *r, const char *format, ...)
{
    const size_t used = strlen(r->notes);
    va_list args;
    if (used + 1 >= sizeof r->notes)
        return;
    va_start(args, format);
    const int written = vsnprintf(r->notes + used, sizeof r->notes - used, format, args);
    va_end(args);
    if (written >= 0 && used + (size_t)written + 1 < sizeof r->notes)
        strcat(r->notes, "\n");
}

double cl_report_throughput(const cl_report *r)
{
    if (r->timing.repeats <= 0 || r->timing.median_ms <= 0.0)
        return 0.0;
    return r->work / (r->timing.median_ms * 1e-3) / r->unit_per_second;
}

void cl_format_size(unsigned long long n, char *out, size_t out_len)
{
    /* The nearest power of two at or below n, and what is left over when that is small; else the
       plain number (5000, not 2^12+904). */
    int p = 0;
    while (p < 63 && (1ull << (p + 1)) <= n)
        p++;
    const unsigned long long rest = n - (1ull << p);
    if (p >= 10 && rest == 0)
        snprintf(out, out_len, "2^%d", p);
    else if (p >= 10 && rest < 64) /* 2^24+1, 2^31+17: a power of two just past it */
        snprintf(out, out_len, "2^%d+%llu", p, rest);
    else
        snprintf(out, out_len, "%llu", n);
}

static const char *verdict(const cl_report *r)
{
    return !r->checked ? "unchecked" : r->check.pass ? "PASS" : "FAIL";
}

void cl_format_csv_row(const cl_report *r, const cl_device_info *dev, const char *date, char *out,
                       size_t out_len)
{
    const double rate = cl_report_throughput(r);
    const double pct = r->ceiling > 0.0 ? 100.0 * rate / r->ceiling : 0.0;
    /* each cell where its column says, so that the row follows common/results_columns.txt */
    char cells[CL_PROGRAM_COLUMNS][256];
    memset(cells, 0, sizeof cells);
#define CELL(column, ...) snprintf(cells[column], sizeof cells[column], __VA_ARGS__)
    CELL(CL_COL_LESSON, "%s", r->lesson);
    CELL(CL_COL_VERSION, "%s", r->version);
    CELL(CL_COL_CASE, "%s", r->case_text);
    CELL(CL_COL_N, "%llu", r->n);
    CELL(CL_COL_DEVICE, "%s", dev->name);
    CELL(CL_COL_CC, "%d.%d", dev->cc_major, dev->cc_minor);
    CELL(CL_COL_DRIVER, "%s", dev->driver_text);
    CELL(CL_COL_CUDA, "%s", dev->runtime_text);
    CELL(CL_COL_DATE, "%s", date);
    CELL(CL_COL_MEDIAN_MS, "%.5f", r->timing.median_ms);
    CELL(CL_COL_MIN_MS, "%.5f", r->timing.min_ms);
    CELL(CL_COL_THROUGHPUT, "%.2f", rate);
    CELL(CL_COL_UNIT, "%s", r->unit);
    CELL(CL_COL_CEILING, "%.2f", r->ceiling);
    CELL(CL_COL_CEILING_NAME, "%s", r->ceiling_name);
    CELL(CL_COL_PCT_OF_CEILING, "%.1f", pct);
    CELL(CL_COL_CHECK, "%s", verdict(r));
    CELL(CL_COL_ERROR, "%.3g", r->checked ? r->check.error : 0.0);
    CELL(CL_COL_TOLERANCE, "%.3g", r->checked ? r->check.tolerance : 0.0);
#undef CELL
    size_t used = 0;
    out[0] = '\0';
    for (int c = 0; c < CL_PROGRAM_COLUMNS && used < out_len; c++) {
        const int written = snprintf(out + used, out_len - used, "%s%s", c ? "," : "", cells[c]);
        used += written > 0 ? (size_t)written : 0;
    }
}

void cl_print_report(const cl_report *r, const cl_device_info *dev, int csv)
{
    char date[16];
    cl_today(date, sizeof date);
    if (csv) {
        char row[1024];
        cl_format_csv_row(r, dev, date, row, sizeof row);
        printf("%s\n", row);
        return;
    }
    printf("%s %s on %s (cc %d.%d, %d SMs, driver %s, CUDA %s)\n", r->lesson, r->version, dev->name,
           dev->cc_major, dev->cc_minor, dev->sm_count, dev->driver_text, dev->runtime_text);
    printf("  case   %s\n", r->case_text);
    if (r->checked)
        printf("  check  %s (%s): error %.3g (%s), tolerance %.3g\n", verdict(r),
               r->last_run_checked ? "first run and last timed run" : "first run", r->check.error,
               r->check.metric, r->check.tolerance);
    if (r->checked && !r->check.pass && r->check.where[0])
        printf("  where  %s\n", r->check.where);
    if (!r->checked)
        printf("  check  skipped (--no-check)\n");
    if (r->timing.repeats > 0) {
        const double rate = cl_report_throughput(r);
        printf("  time   median %.4f ms, min %.4f ms over %d runs (%d warm-up, L2 flushed before "
               "each)\n",
               r->timing.median_ms, r->timing.min_ms, r->timing.repeats, r->warmup);
        const double pct = r->ceiling > 0 ? 100.0 * rate / r->ceiling : 0.0;
        printf("  rate   %.1f %s = %.1f%% of the %s ceiling, %.1f %s measured on this device\n",
               rate, r->unit, pct, r->ceiling_name, r->ceiling, r->unit);
        if (pct > 100.0)
            printf(
                "  note   over 100%% of the ceiling: a measurement error (no program may pass its "
                "ceiling; the probe, or this program's count of its work, is wrong)\n");
    } else {
        printf("  time   not timed (--repeat 0)\n");
    }
    fputs(r->notes, stdout);
}
