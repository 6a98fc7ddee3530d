/**
 * @file cl_expect.c
 * @brief Test helper: runs a command and checks its exit code, that its output matches a regular
 * expression, and (for error exits) that it printed exactly one line.
 *
 * usage: cl_expect CODE REGEX -- COMMAND [ARGS...]
 * Exits 0 when all hold, 1 when one does not, 77 when the command exited 77 and CODE is not 77
 * (no device: CTest reports the test skipped).
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: cl_expect CODE REGEX -- COMMAND [ARGS...]\n");
        return 2;
    }
    const int expected = atoi(argv[1]);
    regex_t re;
    if (regcomp(&re, argv[2], REG_EXTENDED | REG_NOSUB) != 0) {
        fprintf(stderr, "cl_expect: bad regular expression: %s\n", argv[2]);
        return 2;
    }
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[1]);
        execv(argv[4], argv + 4);
        perror("cl_expect: exec");
        _exit(127);
    }
    close(fds[1]);
    static char output[1 << 16];
    size_t used = 0;
    ssize_t got;
    while ((got = read(fds[0], output + used, sizeof output - 1 - used)) > 0)
        used += (size_t)got;
    output[used] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    int lines = 0;
    for (const char *p = output; *p; p++)
        if (*p == '\n' && (p == output || p[-1] != '\n'))
            lines++;
    printf("exit code %d (expected %d), output:\n%s", code, expected, output);
    if (code == 77 && expected != 77) {
        printf("cl_expect: no usable CUDA device, skipping\n");
        return 77;
    }
    if (code != expected) {
        printf("cl_expect: FAIL: exit code %d, expected %d\n", code, expected);
        return 1;
    }
    if (regexec(&re, output, 0, NULL, 0) != 0) {
        printf("cl_expect: FAIL: output does not match /%s/\n", argv[2]);
        return 1;
    }
    if ((expected == 2 || expected == 77) && lines != 1) {
        printf("cl_expect: FAIL: an error must be one line, got %d\n", lines);
        return 1;
    }
    printf("cl_expect: ok\n");
    return 0;
}
