/**
 * @file cl_options.h
 * @brief The options every program shares, parsed once with getopt_long, and the size syntax.
 */
#ifndef CL_OPTIONS_H
#define CL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The options of the lesson contract. */
typedef struct {
    uint64_t n;      /**< problem size (--n) */
    char n_text[64]; /**< --n as the user wrote it, for messages */
    int repeat;      /**< timed repeats (--repeat); 0 checks without timing */
    int warmup;      /**< untimed runs before the timed ones (--warmup) */
    uint64_t seed;   /**< input seed (--seed) */
    int device;      /**< CUDA device index (--device) */
    int csv;         /**< print one CSV row instead of the report (--csv) */
    int check;       /**< compare with the CPU reference (cleared by --no-check) */
} cl_options;

/**
 * A lesson's own option. @c parse turns the text into @c *target and returns 0, or writes what is
 * accepted into @p accepted and returns -1.
 */
typedef struct {
    const char *name;        /**< long name without dashes, e.g. "dist" */
    const char *value_name;  /**< shown in --help, e.g. "D" */
    const char *help;        /**< one line of help, with the accepted values */
    const char *default_txt; /**< the default, as text */
    int (*parse)(const char *text, void *target, char *accepted, size_t accepted_len);
    void *target;
} cl_extra_option;

/** A lesson option that takes one of a few names (--dist real|int): the target of cl_parse_choice.
 */
typedef struct {
    const char *const *names; /**< the accepted names, in the order of the lesson's enum */
    int count;                /**< how many names */
    int value;                /**< the index of the chosen name (the default until parsed) */
} cl_choice;

/** A cl_extra_option parser for a cl_choice target: sets value, or lists the names accepted. */
int cl_parse_choice(const char *text, void *target, char *accepted, size_t accepted_len);

/** The chosen name of a cl_choice. */
const char *cl_choice_name(const cl_choice *choice);

/** What cl_parse_options_r() found. */
enum { CL_PARSE_OK = 0, CL_PARSE_HELP = 1, CL_PARSE_ERROR = 2 };

/**
 * Parses a size: a decimal count with an optional binary suffix (k/K/Ki, M/Mi, G/Gi, T/Ti are
 * powers of 1024), or a power written a^b, and sums or differences of those ("2^31+17").
 * Returns 0 and sets @p out, or -1 for text that is not a size or does not fit in 64 bits.
 */
int cl_parse_size(const char *text, uint64_t *out);

/** Parses a non-negative decimal integer no greater than @p max; returns 0 or -1. */
int cl_parse_count(const char *text, uint64_t max, uint64_t *out);

/** Sets the contract's defaults: n = @p default_n, 20 repeats, 3 warm-ups, seed 42, device 0,
 * check. */
void cl_options_defaults(cl_options *opt, uint64_t default_n);

/**
 * Parses argv without exiting (for tests): on CL_PARSE_ERROR @p message holds one line naming the
 * option, the value and what is accepted; on CL_PARSE_HELP it is empty.
 */
int cl_parse_options_r(int argc, char **argv, cl_options *opt, const cl_extra_option *extra,
                       int n_extra, char *message, size_t message_len);

/** Prints --help: every option with its default, the lesson's own ones included. */
void cl_print_help(const char *program, const char *summary, const cl_options *defaults,
                   const cl_extra_option *extra, int n_extra);

/**
 * Parses argv as a program does: prints help and exits 0 on --help, prints one line and exits 2
 * on bad input, and returns otherwise. No GPU work happens before this returns.
 */
void cl_parse_options(int argc, char **argv, const char *summary, cl_options *opt,
                      const cl_extra_option *extra, int n_extra);

/** The program's file name, as every message of bad input starts ("program" before parsing). */
const char *cl_program_name(void);

/** Exits 2 with "program: --name VALUE: why" — for checks a lesson makes after parsing. */
void cl_bad_input(const char *option, const char *value, const char *why);

#ifdef __cplusplus
}
#endif

#endif
