/**
 * @file main.c
 * @brief The fake lesson's harness: prints the results row a version prints under --csv (the
 * runner's input), its time from fake_speed(), with no GPU.
 */
#include "fake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    const char *name = slash != NULL ? slash + 1 : argv[0];
    if (getenv("FAKE_NO_DEVICE") != NULL) {
        fprintf(stderr, "no CUDA device found: fake\n");
        return 77;
    }
    /* the grader's test homework that is wrong (tests/homework/wrong.cu): its check fails */
    if (strcmp(name, "homework_wrong") == 0) {
        printf("  check  FAIL (first run): error 1 (|sum - ref|), tolerance 0\n");
        printf("  where  the sum is 999; the reference is 1000\n");
        return 1;
    }
    const char *n = "1000";
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--n") == 0)
            n = argv[i + 1];
    const double ms = 1.0 / fake_speed();
    printf("01-fake,%s,n=%s,%s,Fake GPU,9.0,13.0,13.0,2026-11-28,%.5f,%.5f,%.2f,GB/s,3000.00,"
           "read bandwidth,%.1f,PASS,0,0\n",
           name, n, n, ms, ms, 1000.0 * fake_speed(), 100.0 * 1000.0 * fake_speed() / 3000.0);
    return 0;
}
