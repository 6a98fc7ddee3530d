/**
 * @file cl_sanitize.c
 * @brief Test helper: runs a program under compute-sanitizer with one tool, failing on any report.
 *
 * usage: cl_sanitize SANITIZER TOOL PROGRAM [ARGS...]
 * SANITIZER is the path CMake found; where it is missing (a build configured on a machine without
 * the tool and run on one that has it), compute-sanitizer is looked up on PATH and in the CUDA
 * toolkit's usual places, so that a carried build sanitizes instead of skipping.
 * Exits 77 (CTest: skipped) when there is no CUDA device or no compute-sanitizer, otherwise with
 * compute-sanitizer's exit code: 0 clean, 99 when the tool reported an error, else the program's.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The configured path if it is there, else the first compute-sanitizer on PATH, under CUDA_HOME,
   or in /usr/local/cuda; NULL if none. `found` holds a path built from PATH or CUDA_HOME. */
static const char *find_sanitizer(const char *configured, char *found, size_t size)
{
    if (access(configured, X_OK) == 0)
        return configured;
    const char *path = getenv("PATH");
    for (const char *dir = path; dir != NULL && *dir != '\0';) {
        const char *end = strchr(dir, ':');
        const size_t length = end != NULL ? (size_t)(end - dir) : strlen(dir);
        if (length > 0 &&
            snprintf(found, size, "%.*s/compute-sanitizer", (int)length, dir) < (int)size &&
            access(found, X_OK) == 0)
            return found;
        dir = end != NULL ? end + 1 : NULL;
    }
    const char *home = getenv("CUDA_HOME");
    if (home != NULL && snprintf(found, size, "%s/bin/compute-sanitizer", home) < (int)size &&
        access(found, X_OK) == 0)
        return found;
    static const char *const usual[] = {"/usr/local/cuda/bin/compute-sanitizer",
                                        "/usr/local/cuda/compute-sanitizer/compute-sanitizer"};
    for (size_t i = 0; i < sizeof usual / sizeof usual[0]; i++)
        if (access(usual[i], X_OK) == 0)
            return usual[i];
    return NULL;
}

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
    char found[4096];
    const char *sanitizer = find_sanitizer(argv[1], found, sizeof found);
    if (sanitizer == NULL) {
        printf("no compute-sanitizer where CMake found one, on PATH, under CUDA_HOME or in "
               "/usr/local/cuda: skipping\n");
        return 77;
    }
    if (sanitizer != argv[1])
        printf("cl_sanitize: %s is missing; using %s\n", argv[1], sanitizer);
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
    execv(sanitizer, args);
    perror("cl_sanitize: exec");
    return 1;
}
