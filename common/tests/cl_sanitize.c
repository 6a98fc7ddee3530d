/**
 * @file cl_sanitize.c
 * @brief Test helper: runs a program under compute-sanitizer with one tool, failing on any report.
 *
 * usage: cl_sanitize SANITIZER TOOL PROGRAM [ARGS...]
 * Exits 77 (CTest: skipped) when there is no CUDA device or no compute-sanitizer, otherwise with
 * compute-sanitizer's exit code: 0 clean, 99 when the tool reported an error, else the program's.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
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
    if (access(argv[1], X_OK) != 0) {
        printf("compute-sanitizer was not found when CMake configured: skipping\n");
        return 77;
    }
    char *args[256];
    int n = 0;
    args[n++] = argv[1];
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
    execv(argv[1], args);
    perror("cl_sanitize: exec");
    return 1;
}
