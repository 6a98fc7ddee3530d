/**
 * @file cl_options.c
 * @brief Option and size parsing shared by every program (getopt_long, no hand-rolled scanner).
 */
#include "cl_options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_MAX_EXTRA 16

static const char *program_name = "program";

/* Reads one unsigned decimal run at *p; -1 when there is none or it overflows 64 bits. */
static int read_decimal(const char **p, uint64_t *out)
{
    const char *s = *p;
    uint64_t value = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    while (isdigit((unsigned char)*s)) {
        if (__builtin_mul_overflow(value, 10u, &value) ||
            __builtin_add_overflow(value, (uint64_t)(*s - '0'), &value))
            return -1;
        s++;
    }
    *p = s;
    *out = value;
    return 0;
}

/* A term: 123, 16M, 1Gi, 2^24. */
static int read_term(const char **p, uint64_t *out)
{
    uint64_t value, exponent, power = 1;
    if (read_decimal(p, &value) != 0)
        return -1;
    if (**p == '^') {
        (*p)++;
        if (read_decimal(p, &exponent) != 0)
            return -1;
        for (uint64_t e = 0; e < exponent; e++)
            if (__builtin_mul_overflow(power, value, &power))
                return -1;
        *out = power;
        return 0;
    }
    int shift = 0;
    switch (**p) {
    case 'k':
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        (*p)++;
        if (**p == 'i')
            (*p)++;
        if (value > (UINT64_MAX >> shift))
            return -1;
        value <<= shift;
    }
    *out = value;
    return 0;
}

int cl_parse_size(const char *text, uint64_t *out)
{
    const char *p = text;
    uint64_t total, term;
    if (text == NULL || read_term(&p, &total) != 0)
        return -1;
    while (*p == '+' || *p == '-') {
        const char op = *p++;
        if (read_term(&p, &term) != 0)
            return -1;
        if (op == '+' ? __builtin_add_overflow(total, term, &total)
                      : __builtin_sub_overflow(total, term, &total))
            return -1;
    }
    if (*p != '\0')
        return -1;
    *out = total;
    return 0;
}

int cl_parse_count(const char *text, uint64_t max, uint64_t *out)
{
    const char *p = text;
    uint64_t value;
    if (text == NULL || read_decimal(&p, &value) != 0 || *p != '\0' || value > max)
        return -1;
    *out = value;
    return 0;
}

int cl_parse_choice(const char *text, void *target, char *accepted, size_t accepted_len)
{
    cl_choice *choice = (cl_choice *)target;
    size_t used = 0;
    for (int i = 0; i < choice->count; i++) {
        if (strcmp(text, choice->names[i]) == 0) {
            choice->value = i;
            return 0;
        }
    }
    accepted[0] = '\0';
    for (int i = 0; i < choice->count && used < accepted_len; i++)
        used += (size_t)snprintf(accepted + used, accepted_len - used, "%s%s",
                                 i == 0                   ? ""
                                 : i == choice->count - 1 ? " or "
                                                          : ", ",
                                 choice->names[i]);
    return -1;
}

const char *cl_choice_name(const cl_choice *choice)
{
    return choice->names[choice->value];
}

void cl_options_defaults(cl_options *opt, uint64_t default_n)
{
    opt->n = default_n;
    snprintf(opt->n_text, sizeof opt->n_text, "%" PRIu64, default_n);
    opt->repeat = 20;
    opt->warmup = 3;
    opt->seed = 42;
    opt->device = 0;
    opt->csv = 0;
    opt->check = 1;
}

enum {
    OPT_N = 256,
    OPT_REPEAT,
    OPT_WARMUP,
    OPT_SEED,
    OPT_DEVICE,
    OPT_CSV,
    OPT_NO_CHECK,
    OPT_HELP,
    OPT_EXTRA
};

int cl_parse_options_r(int argc, char **argv, cl_options *opt, const cl_extra_option *extra,
                       int n_extra, char *message, size_t message_len)
{
    struct option longopts[8 + CL_MAX_EXTRA + 1];
    const struct option shared[8] = {
        {"n", required_argument, NULL, OPT_N},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"seed", required_argument, NULL, OPT_SEED},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"csv", no_argument, NULL, OPT_CSV},
        {"no-check", no_argument, NULL, OPT_NO_CHECK},
        {"help", no_argument, NULL, OPT_HELP},
    };
    if (n_extra > CL_MAX_EXTRA)
        n_extra = CL_MAX_EXTRA;
    memcpy(longopts, shared, sizeof shared);
    for (int i = 0; i < n_extra; i++) {
        longopts[8 + i].name = extra[i].name;
        longopts[8 + i].has_arg = required_argument;
        longopts[8 + i].flag = NULL;
        longopts[8 + i].val = OPT_EXTRA + i;
    }
    memset(&longopts[8 + n_extra], 0, sizeof longopts[0]);
    message[0] = '\0';

    /* optind = 0 makes glibc re-initialise, so the parser can run more than once (tests). */
    optind = 0;
    opterr = 0;
    for (;;) {
        const int c = getopt_long(argc, argv, ":h", longopts, NULL); /* -h: --help */
        if (c == -1)
            break;
        uint64_t value;
        switch (c) {
        case OPT_N:
            if (cl_parse_size(optarg, &value) != 0) {
                snprintf(
                    message, message_len,
                    "--n %s: not a size (use a count like 16777216, 16M, 1Gi, 2^24 or 2^31+17, "
                    "at most 2^64-1)",
                    optarg);
                return CL_PARSE_ERROR;
            }
            if (value == 0) {
                snprintf(message, message_len, "--n %s: the size must be at least 1", optarg);
                return CL_PARSE_ERROR;
            }
            opt->n = value;
            snprintf(opt->n_text, sizeof opt->n_text, "%s", optarg);
            break;
        case OPT_REPEAT:
        case OPT_WARMUP:
            if (cl_parse_count(optarg, 1000000, &value) != 0) {
                snprintf(message, message_len, "--%s %s: expected a whole number from 0 to 1000000",
                         c == OPT_REPEAT ? "repeat" : "warmup", optarg);
                return CL_PARSE_ERROR;
            }
            *(c == OPT_REPEAT ? &opt->repeat : &opt->warmup) = (int)value;
            break;
        case OPT_SEED:
            if (cl_parse_count(optarg, UINT64_MAX, &value) != 0) {
                snprintf(message, message_len,
                         "--seed %s: expected a whole number from 0 to 2^64-1", optarg);
                return CL_PARSE_ERROR;
            }
            opt->seed = value;
            break;
        case OPT_DEVICE:
            if (cl_parse_count(optarg, 1023, &value) != 0) {
                snprintf(message, message_len,
                         "--device %s: expected a device index from 0 to 1023", optarg);
                return CL_PARSE_ERROR;
            }
            opt->device = (int)value;
            break;
        case OPT_CSV: opt->csv = 1; break;
        case OPT_NO_CHECK: opt->check = 0; break;
        case OPT_HELP:
        case 'h': return CL_PARSE_HELP;
        case '?':
        case ':': {
            const char *arg = argv[optind - 1 < argc ? optind - 1 : argc - 1];
            if (c == ':')
                snprintf(message, message_len, "%s: missing value (see --help)", arg);
            else
                snprintf(message, message_len, "%s: unknown or ambiguous option (see --help)", arg);
            return CL_PARSE_ERROR;
        }
        default: {
            const cl_extra_option *e = &extra[c - OPT_EXTRA];
            char accepted[160];
            accepted[0] = '\0';
            if (e->parse(optarg, e->target, accepted, sizeof accepted) != 0) {
                snprintf(message, message_len, "--%s %s: expected %s", e->name, optarg, accepted);
                return CL_PARSE_ERROR;
            }
            break;
        }
        }
    }
    if (optind < argc) {
        snprintf(message, message_len,
                 "%s: unexpected argument (options start with --; see --help)", argv[optind]);
        return CL_PARSE_ERROR;
    }
    return CL_PARSE_OK;
}

void cl_print_help(const char *program, const char *summary, const cl_options *d,
                   const cl_extra_option *extra, int n_extra)
{
    printf("usage: %s [options]\n%s\n\noptions (default in brackets):\n", program, summary);
    printf("  --n SIZE        problem size: 16777216, 16M, 1Gi, 2^24, 2^31+17 "
           "(K/M/G/T are powers of 1024) [%" PRIu64 "]\n",
           d->n);
    for (int i = 0; i < n_extra; i++) {
        char left[40];
        snprintf(left, sizeof left, "--%s %s", extra[i].name, extra[i].value_name);
        printf("  %-15s %s [%s]\n", left, extra[i].help, extra[i].default_txt);
    }
    printf("  --repeat R      timed runs; the report gives their median and minimum; 0 checks "
           "only [%d]\n",
           d->repeat);
    printf("  --warmup W      untimed runs before the timed ones [%d]\n", d->warmup);
    printf("  --seed S        seed of the random inputs [%" PRIu64 "]\n", d->seed);
    printf("  --device D      CUDA device index [%d]\n", d->device);
    printf("  --csv           print one machine-readable CSV row instead of the report [off]\n");
    printf("  --no-check      skip the comparison with the CPU reference [check on]\n");
    printf("  -h, --help      this text\n");
    printf(
        "exit codes: 0 ok, 1 check failed or CUDA error, 2 bad input, 77 no usable CUDA device\n");
}

const char *cl_program_name(void)
{
    return program_name;
}

void cl_bad_input(const char *option, const char *value, const char *why)
{
    fprintf(stderr, "%s: --%s %s: %s\n", program_name, option, value, why);
    exit(2);
}

void cl_parse_options(int argc, char **argv, const char *summary, cl_options *opt,
                      const cl_extra_option *extra, int n_extra)
{
    char message[512];
    const cl_options defaults = *opt;
    const char *slash = strrchr(argv[0], '/');
    program_name = slash ? slash + 1 : argv[0];
    switch (cl_parse_options_r(argc, argv, opt, extra, n_extra, message, sizeof message)) {
    case CL_PARSE_HELP: cl_print_help(program_name, summary, &defaults, extra, n_extra); exit(0);
    case CL_PARSE_ERROR: fprintf(stderr, "%s: %s\n", program_name, message); exit(2);
    default: break;
    }
}
