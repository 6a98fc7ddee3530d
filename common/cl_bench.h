/**
 * @file cl_bench.h
 * @brief The one object a lesson's harness makes in main(): the device, the stream every launch
 * runs on, the two timing events, the L2 flusher, the ceilings, and the report they fill. Every
 * harness walks the same path with it: open, check, time, finish.
 *
 * @code
 * cl_bench bench;
 * cl_bench_open(&bench, "03-reduction", argv[0], &opt);     // the device, or exit 77
 * ... allocate and fill the inputs, describe the case in bench.report ...
 * cl_bench_check(&bench, &run);                              // poison, launch, compare
 * const cl_ceilings *ceilings = cl_bench_time(&bench, &run); // NULL under --repeat 0
 * if (ceilings)
 *     bench.report.ceiling = ceilings->read_gbps;
 * return cl_bench_finish(&bench);                            // the report, and the exit code
 * @endcode
 */
#ifndef CL_BENCH_H
#define CL_BENCH_H

#include "cl_ceilings.h"
#include "cl_check.h"
#include "cl_device.h"
#include "cl_flush.h"
#include "cl_options.h"
#include "cl_report.h"
#include "cl_timing.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The check of a version's output: waits for @p stream, copies the output back, compares. */
typedef cl_check_result (*cl_check_fn)(void *context, cudaStream_t stream);

/**
 * How a harness runs a version, the same for every lesson: the launch, a poison for its output
 * (a value no version writes: cl_poison()), and the check against the reference. All three take
 * @c context, the harness's arguments and reference.
 */
typedef struct {
    cl_launch_fn launch;
    cl_launch_fn poison;
    cl_check_fn check;
    void *context;
} cl_run;

/** Made once in main(), torn down by cl_bench_finish(). */
struct cl_bench {
    const cl_options *opt; /**< the parsed options (NULL for an experiment's own main) */
    cl_device_info dev;    /**< the device in use */
    cudaStream_t stream;   /**< every launch, poison, check and flush of the program */
    cudaEvent_t start;     /**< recorded just before each timed launch */
    cudaEvent_t stop;      /**< ... and just after it */
    cl_l2_flusher flusher; /**< made at the first timing: 4 × the L2 size of device memory */
    int flusher_ready;
    cl_ceilings ceilings; /**< measured by the first cl_bench_time() */
    int ceilings_ready;
    cl_report report;     /**< what cl_bench_finish() prints */
    double opened_at;     /**< cl_seconds() when the bench was opened */
    double setup_seconds; /**< from then to the first launch: inputs, reference, uploads */
    double check_seconds; /**< the host's checks of the outputs */
};

/**
 * Opens device @p index (no device: one line, exit 77; no such index: exit 2) and makes the
 * stream and the events. For programs that are not a lesson's harness (the experiments).
 */
void cl_bench_open_device(cl_bench *b, int index);

/** The harness's start: cl_bench_open_device(opt->device), then cl_report_begin(). */
void cl_bench_open(cl_bench *b, const char *lesson, const char *argv0, const cl_options *opt);

/**
 * Runs @p launch @p warmup times, then @p repeat times between the bench's two events, with the
 * L2 cache emptied before every run, outside the events, and left holding only clean lines
 * (cl_l2_flush(): a write of twice its size, then a read of twice its size). @p before_last, when
 * not NULL, runs before the last timed run's flush, outside the events: the harnesses poison the
 * output there, so that the last timed run's output can be checked like the first run's.
 */
cl_timing cl_time_launches(cl_bench *b, cl_launch_fn launch, void *context, int warmup, int repeat,
                           cl_launch_fn before_last);

/** The checked run, unless --no-check: poison, launch, check into the report's verdict. */
void cl_bench_check(cl_bench *b, const cl_run *run);

/**
 * Unless --repeat 0: times the version with the options' warm-up and repeats, then measures the
 * ceilings (once per process; after the version, whose short runs would otherwise be timed in
 * the probes' wake). Unless --no-check, the last timed run's output is poisoned beforehand
 * (outside the events) and checked afterwards, and the report's verdict covers both checked runs
 * (cl_check_last_run()). Returns the ceilings, or NULL when nothing was timed.
 */
const cl_ceilings *cl_bench_time(cl_bench *b, const cl_run *run);

/**
 * Prints the report (the block for people, or the CSV row under --csv), frees what the bench
 * made, and returns the program's exit code: 1 when a check failed, else 0. A run that took more
 * than a few seconds ends its block with where the time went: setting up on the host, checking on
 * the host, running on the GPU.
 */
int cl_bench_finish(cl_bench *b);

#ifdef __cplusplus
}
#endif

#endif
