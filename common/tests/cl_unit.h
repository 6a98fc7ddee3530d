/**
 * @file cl_unit.h
 * @brief The smallest unit-test helper: EXPECT(cond) counts and reports failures, never aborts
 * (and, unlike assert, does not vanish under NDEBUG).
 */
#ifndef CL_UNIT_H
#define CL_UNIT_H

#include <stdio.h>

static int cl_unit_checks = 0, cl_unit_failures = 0;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        cl_unit_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            cl_unit_failures++;                                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                    \
        }                                                                                          \
    } while (0)

/** Prints the tally; the exit code for main(). */
static inline int cl_unit_report(const char *what)
{
    printf("%s: %d checks, %d failed\n", what, cl_unit_checks, cl_unit_failures);
    return cl_unit_failures ? 1 : 0;
}

#endif
