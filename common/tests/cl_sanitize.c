/**
 * @file cl_sanitize.c
 * @brief Test helper: runs a program under compute-sanitizer with one tool, failing on any report.
 *
 * usage: cl_sanitize SANITIZER TOOL PROGRAM [ARGS...]
 * SANITIZER is the path CMake found; where it is missing (a build configured on a machine without
 * the tool and run on one that has it), compute-sanitizer is looked for under CUDA_HOME, in
 * /usr/local/cuda and on PATH, so that a carried build sanitizes instead of skipping.
 * Exits 77 (CTest: skipped) when there is no CUDA device or no compute-sanitizer, otherwise with
 * compute-sanitizer's exit code: 0 clean, 99 when the tool reported an error, else the program's.
 */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: cl_sanitize SANITIZER TOOL PROGRAM [ARGS...]\n");
        return 2;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("no CUDA device found: nothing to sanitize, skipping\n");
        return 77;
    }
    char home_path[4096] = "";
    const char *home = getenv("CUDA_HOME");
    if (home != NULL)
        snprintf(home_path, sizeof home_path, "%s/bin/compute-sanitizer", home);
    const char *const places[] = {argv[1], home_path, "/usr/local/cuda/bin/compute-sanitizer",
                                  "/usr/local/cuda/compute-sanitizer/compute-sanitizer"};
    const char *sanitizer = "compute-sanitizer"; /* none of those: execvp looks on PATH */
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++)
        if (places[i][0] != '\0' && access(places[i], X_OK) == 0) {
            sanitizer = places[i];
            break;
        }
    if (sanitizer != argv[1])
        printf("cl_sanitize: %s is missing; trying %s\n", argv[1], sanitizer);
    char *args[256];
    int n = 0;
    args[n++] = (char *)sanitizer;
    args[n++] = (char *)"--tool";
    args[n++] = argv[2];
    args[n++] = (char *)"--error-exitcode";
    args[n++] = (char *)"99";
    if (strcmp(argv[2], "memcheck") == 0) {
        args[n++] = (char *)"--leak-check";
        args[n++] = (char *)"full";
    }
    for (int i = 3; i < argc && n < 255; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    fflush(stdout);
    execvp(sanitizer, args);
    if (errno == ENOENT) {
        printf("no compute-sanitizer where CMake found one, under CUDA_HOME, in /usr/local/cuda "
               "or on PATH: skipping\n");
        return 77;
    }
    perror("cl_sanitize: exec");
    return 1;
}
