/**
 * @file cl_runner.c
 * @brief The lesson runner: runs every version and baseline of a lesson at each case, prints one
 * table (time, throughput, % of ceiling, speedup over v1, ratio to the library) and can write CSV.
 * Where a lesson has two library formulations (two baseline_* programs), the ratio is to the
 * faster of them in each case.
 *
 * usage: cl_runner [--csv FILE] [--skip-ok] [[--only PROGRAM]... [--case "ARGS"]... BIN_DIR]...
 * Several lessons in one call (each BIN_DIR with the cases given before it) say "no device" once.
 * A program that exits 2 with its one line refuses the case (the library cannot do it, or a
 * version takes another input type): its row reads "n/a"; a case that every program refuses is a
 * failure. --only runs the named programs alone at the BIN_DIR that follows (a sweep: the best
 * versions and the library over many cases); one BIN_DIR given twice, each time with its own
 * programs and cases, is a sweep in parts (one channel and layers, say). A lesson's exercise
 * solutions (exercise_*) sit beside its versions and run only where --only names them.
 */
#include "cl_report.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROGRAMS 64
#define MAX_CASES    64
#define MAX_ARGS     64
#define PATH_BYTES   4352 /* the longest BIN_DIR/program path */

typedef struct {
    char name[256];
    int version; /* the number after 'v', or 1000 for baselines so they sort last */
} program;

typedef struct {
    char line[1024];
    char *field[CL_PROGRAM_COLUMNS];
    int ok; /* a row was parsed */
    char status[48];
    char reason[256]; /* a refusing program's one line (exit 2), kept out of the table */
} row;

static int compare_programs(const void *a, const void *b)
{
    const program *x = (const program *)a, *y = (const program *)b;
    if (x->version != y->version)
        return x->version - y->version;
    return strcmp(x->name, y->name);
}

/* The programs --only named for the next BIN_DIR (none: every program). */
static const char *only[MAX_PROGRAMS];
static int n_only = 0;

static int wanted(const char *name)
{
    if (n_only == 0)
        return 1;
    for (int i = 0; i < n_only; i++)
        if (strcmp(only[i], name) == 0)
            return 1;
    return 0;
}

static int list_programs(const char *dir, program *out)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "cl_runner: %s: %s (build the lesson first)\n", dir, strerror(errno));
        exit(2);
    }
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < MAX_PROGRAMS) {
        char path[8704];
        struct stat st;
        int number = 0;
        const int is_version = e->d_name[0] == 'v' && sscanf(e->d_name + 1, "%d", &number) == 1;
        const int is_baseline = strncmp(e->d_name, "baseline_", 9) == 0;
        /* an exercise's solution (exercise_*) and a grader's test homework (homework_*) run
           only where --only names them */
        const int is_exercise =
            (strncmp(e->d_name, "exercise_", 9) == 0 || strncmp(e->d_name, "homework_", 9) == 0) &&
            n_only > 0;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if ((!is_version && !is_baseline && !is_exercise) || !wanted(e->d_name) ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0)
            continue;
        snprintf(out[count].name, sizeof out[count].name, "%s", e->d_name);
        out[count].version = is_version ? number : is_exercise ? 999 : 1000;
        count++;
    }
    closedir(d);
    qsort(out, (size_t)count, sizeof *out, compare_programs);
    /* a name --only gave that is not here: a typo where none matched (bad input), else a program
       this build left out (a library not found), said once */
    for (int i = 0; i < n_only; i++) {
        int found = 0;
        for (int k = 0; k < count && !found; k++)
            found = strcmp(out[k].name, only[i]) == 0;
        if (!found && count == 0) {
            fprintf(stderr, "cl_runner: --only %s: no such program in %s\n", only[i], dir);
            exit(2);
        }
        if (!found)
            fprintf(stderr, "cl_runner: --only %s: not built in %s, left out\n", only[i], dir);
    }
    return count;
}

/* Splits @p text on spaces into argv slots; returns the count. */
static int split_args(char *text, char **argv, int max)
{
    int count = 0;
    for (char *tok = strtok(text, " "); tok != NULL && count < max; tok = strtok(NULL, " "))
        argv[count++] = tok;
    return count;
}

/* Runs one program with --csv and keeps the last line it printed; returns its exit status. Its
   stderr is held back: a refusal's one line (exit 2) is kept in r->reason, not printed among the
   tables; anything else it said is passed on once it has finished. */
static int run_program(char **argv, row *r)
{
    int fds[2];
    FILE *errors = tmpfile();
    if (pipe(fds) != 0 || errors == NULL) {
        perror("cl_runner: pipe");
        exit(1);
    }
    const pid_t pid = fork();
    if (pid < 0) {
        perror("cl_runner: fork");
        exit(1);
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fileno(errors), STDERR_FILENO);
        close(fds[1]);
        execv(argv[0], argv);
        fprintf(stderr, "cl_runner: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    char line[1024];
    r->line[0] = '\0';
    while (fgets(line, sizeof line, f) != NULL)
        if (line[0] != '\n')
            snprintf(r->line, sizeof r->line, "%s", line);
    fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    rewind(errors);
    r->reason[0] = '\0';
    while (fgets(line, sizeof line, errors) != NULL) {
        if (code != 2)
            fputs(line, stderr);
        else if (r->reason[0] == '\0')
            snprintf(r->reason, sizeof r->reason, "%.200s", line);
    }
    r->reason[strcspn(r->reason, "\r\n")] = '\0';
    fclose(errors);
    return code;
}

static int parse_row(row *r)
{
    r->line[strcspn(r->line, "\r\n")] = '\0';
    int count = 0;
    char *p = r->line;
    while (count < CL_PROGRAM_COLUMNS) {
        r->field[count++] = p;
        p = strchr(p, ',');
        if (p == NULL)
            break;
        *p++ = '\0';
    }
    return count == CL_PROGRAM_COLUMNS && p == NULL;
}

/* Prints one case's table (and its CSV rows); returns 1 if a program gave a row, 0 if every
   program refused the case. Adds the rows over 100% of their ceiling to @p over_count. */
static int print_table(row *rows, const program *programs, int n_programs, FILE *csv,
                       int *over_count)
{
    int over_ceiling = 0;
    const row *first = NULL, *v1 = NULL, *base = NULL;
    const char *base_name = NULL;
    int n_bases = 0;
    for (int i = 0; i < n_programs; i++) {
        if (!rows[i].ok)
            continue;
        if (first == NULL)
            first = &rows[i];
        if (v1 == NULL && programs[i].version == 1)
            v1 = &rows[i];
        /* the library: its fastest baseline in this case, where a lesson has two formulations */
        if (programs[i].version == 1000) {
            n_bases++;
            if (base == NULL ||
                atof(rows[i].field[CL_COL_MEDIAN_MS]) < atof(base->field[CL_COL_MEDIAN_MS])) {
                base = &rows[i];
                base_name = programs[i].name + 9;
            }
        }
    }
    if (first == NULL)
        return 0; /* every program refused: the caller says why, in one line */
    printf("\n%s  %s  on %s (cc %s, driver %s, CUDA %s), %s\n", first->field[CL_COL_LESSON],
           first->field[CL_COL_CASE], first->field[CL_COL_DEVICE], first->field[CL_COL_CC],
           first->field[CL_COL_DRIVER], first->field[CL_COL_CUDA], first->field[CL_COL_DATE]);
    char vs_base[32];
    snprintf(vs_base, sizeof vs_base, "vs %s", base_name && n_bases == 1 ? base_name : "library");
    printf("%-22s %11s %11s %12s %8s %8s %10s  %s\n", "version", "median ms", "min ms",
           first->field[CL_COL_UNIT], "% ceil", "vs v1", vs_base, "check");
    int refusing = 0;
    for (int i = 0; i < n_programs; i++) {
        const row *r = &rows[i];
        if (!r->ok && strcmp(r->status, "n/a (refuses this case)") == 0) {
            refusing++; /* a version of another input type, say: a row of dashes says nothing */
            continue;
        }
        if (!r->ok) {
            printf("%-22s %11s %11s %12s %8s %8s %10s  %s\n", programs[i].name, "-", "-", "-", "-",
                   "-", "-", r->status);
            continue;
        }
        const double t = atof(r->field[CL_COL_MEDIAN_MS]);
        char speedup[32] = "-", ratio[32] = "-";
        if (v1 != NULL && t > 0)
            snprintf(speedup, sizeof speedup, "%.2fx", atof(v1->field[CL_COL_MEDIAN_MS]) / t);
        if (base != NULL && t > 0)
            snprintf(ratio, sizeof ratio, "%.3fx", atof(base->field[CL_COL_MEDIAN_MS]) / t);
        /* a ceiling that a program passes is no ceiling: the probe, or the program's count of
           its bytes or flops, is wrong, and no % in the table can be trusted */
        const int over = atof(r->field[CL_COL_PCT_OF_CEILING]) > 100.0;
        over_ceiling += over;
        printf("%-22s %11s %11s %12s %8s %8s %10s  %s%s\n", r->field[CL_COL_VERSION],
               r->field[CL_COL_MEDIAN_MS], r->field[CL_COL_MIN_MS], r->field[CL_COL_THROUGHPUT],
               r->field[CL_COL_PCT_OF_CEILING], speedup, ratio, r->field[CL_COL_CHECK],
               over ? ", OVER THE CEILING" : "");
        if (csv != NULL) {
            /* the program's row, then the runner's columns where common/results_columns.txt says */
            const char *cells[CL_RUNNER_COLUMNS];
            for (int f = 0; f < CL_PROGRAM_COLUMNS; f++)
                cells[f] = r->field[f];
            cells[CL_COL_SPEEDUP_VS_V1] = speedup[0] == '-' ? "" : speedup;
            cells[CL_COL_VS_BASELINE] = ratio[0] == '-' ? "" : ratio;
            for (int f = 0; f < CL_RUNNER_COLUMNS; f++)
                fprintf(csv, "%s%s", f ? "," : "", cells[f]);
            fprintf(csv, "\n");
        }
    }
    if (refusing > 0)
        printf("(%d version(s) refuse this case: not listed)\n", refusing);
    printf("ceiling: %s, %s %s, measured by each program on this device (first row's shown); "
           "vs v1 and %s are time ratios (>1 = faster)\n",
           first->field[CL_COL_CEILING_NAME], first->field[CL_COL_CEILING],
           first->field[CL_COL_UNIT], vs_base);
    if (n_bases > 1)
        printf("vs library: the time ratio to the fastest baseline in this case, %s\n", base_name);
    if (over_ceiling > 0)
        printf("%d row(s) over 100%% of the ceiling: a measurement error (no program may pass its "
               "ceiling; the probe, or the row's count of bytes or flops, is wrong)\n",
               over_ceiling);
    *over_count += over_ceiling;
    return 1;
}

/* Where several lessons run in one call (the `run` target): which one this is, said once its first
   program has run (so that a machine without a device hears only the one line of why). */
static int lesson_number = 0, lesson_total = 0;

/* Cases that every program refused (a typo in --case, say): bad input, exit 2. */
static int refused_cases = 0;

/* The runner's options, for getopt_long and for count_lessons. */
static const struct option longopts[] = {
    {"case", required_argument, NULL, 'c'}, {"csv", required_argument, NULL, 'o'},
    {"skip-ok", no_argument, NULL, 's'},    {"only", required_argument, NULL, 'p'},
    {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0}};

/* The number of different BIN_DIRs in ARGV (one given twice in a row, a sweep in parts, counts
   once): the non-option arguments, the value of each option that takes one skipped. */
static int count_lessons(int argc, char **argv)
{
    int count = 0;
    const char *last = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-') {
            for (const struct option *o = longopts; o->name != NULL; o++)
                if (strncmp(a, "--", 2) == 0 && strcmp(a + 2, o->name) == 0 &&
                    o->has_arg == required_argument)
                    i++; /* "--case ARGS": ARGS is no BIN_DIR ("--case=ARGS" is one word) */
            continue;
        }
        if (last == NULL || strcmp(last, a) != 0)
            count++;
        last = a;
    }
    return count;
}

/* Runs every program of one lesson at each case; returns the failures, or -1 without a device. */
static int run_lesson(const char *dir, char **cases, int n_cases, FILE *csv)
{
    static const char *last_dir = NULL;
    int announce = 0;
    if (last_dir == NULL || strcmp(last_dir, dir) != 0) {
        lesson_number++;
        announce = lesson_total > 1;
    }
    last_dir = dir;
    static program programs[MAX_PROGRAMS];
    static row rows[MAX_PROGRAMS];
    const int n_programs = list_programs(dir, programs);
    if (n_programs == 0) {
        fprintf(stderr, "cl_runner: no v<N>_* or baseline_* programs in %s\n", dir);
        exit(2);
    }
    int failures = 0;
    for (int k = 0; k < n_cases; k++) {
        for (int i = 0; i < n_programs; i++) {
            char path[PATH_BYTES], case_copy[512];
            char *args[MAX_ARGS + 3]; /* the path, the case, --csv, NULL */
            int n_args = 0;
            if (snprintf(path, sizeof path, "%s/%s", dir, programs[i].name) >= (int)sizeof path ||
                snprintf(case_copy, sizeof case_copy, "%s", cases[k]) >= (int)sizeof case_copy) {
                fprintf(stderr, "cl_runner: %s: path or case too long\n", dir);
                exit(2);
            }
            args[n_args++] = path;
            n_args += split_args(case_copy, args + n_args, MAX_ARGS);
            args[n_args++] = (char *)"--csv";
            args[n_args] = NULL;
            if (isatty(STDERR_FILENO))
                fprintf(stderr, "running %s %s\n", programs[i].name, cases[k]);
            const int status = run_program(args, &rows[i]);
            if (status == 77)
                return -1;
            if (announce) {
                const char *name = strrchr(dir, '/');
                printf("\n== lesson %d of %d: %s ==\n", lesson_number, lesson_total,
                       name != NULL && name[1] != '\0' ? name + 1 : dir);
                fflush(stdout);
                announce = 0;
            }
            /* A failed check still prints its row, then exits 1: keep the row, count the failure.
             */
            rows[i].ok = rows[i].line[0] != '\0' && parse_row(&rows[i]);
            if (rows[i].ok && status == 0)
                continue;
            if (!rows[i].ok && status == 2) {
                /* the program refuses this case (its one line went to stderr): not a failure */
                snprintf(rows[i].status, sizeof rows[i].status, "%s",
                         programs[i].version == 1000 ? "n/a (the library refuses)"
                                                     : "n/a (refuses this case)");
                continue;
            }
            if (!rows[i].ok)
                snprintf(rows[i].status, sizeof rows[i].status, "ERROR (exit %d)", status);
            failures++;
        }
        int over = 0;
        if (!print_table(rows, programs, n_programs, csv, &over)) {
            /* every program refused: the case itself is wrong, bad input (exit 2), said once */
            const char *reason = "";
            for (int i = 0; i < n_programs && reason[0] == '\0'; i++)
                reason = rows[i].reason;
            fflush(stdout);
            fprintf(stderr, "cl_runner: --case \"%s\": every program refuses it: %s\n", cases[k],
                    reason[0] != '\0' ? reason : "(no reason given)");
            refused_cases++;
        }
        failures += over;
    }
    return failures;
}

int main(int argc, char **argv)
{
    char *cases[MAX_CASES];
    int n_cases = 0, skip_ok = 0, lessons = 0, failures = 0;
    const char *csv_path = NULL;
    char csv_new[4096] = "";
    FILE *csv = NULL;
    opterr = 0;
    lesson_total = count_lessons(argc, argv);
    while (optind < argc) {
        const int c = getopt_long(argc, argv, "+:h", longopts, NULL);
        if (c == -1) {
            /* a BIN_DIR: run it with the cases given since the last one */
            const char *dir = argv[optind++];
            if (n_cases == 0)
                cases[n_cases++] = (char *)"";
            if (csv_path != NULL && csv == NULL) {
                /* the rows go to FILE.new, which replaces FILE only once every run has checked:
                   a machine without a GPU, or a failed run, leaves the committed results alone */
                snprintf(csv_new, sizeof csv_new, "%s.new", csv_path);
                csv = fopen(csv_new, "w");
                if (csv == NULL) {
                    fprintf(stderr, "cl_runner: --csv %s: %s\n", csv_path, strerror(errno));
                    return 2;
                }
                fprintf(csv, "%s\n", CL_RUNNER_CSV_HEADER);
            }
            const int result = run_lesson(dir, cases, n_cases, csv);
            if (result < 0) {
                /* the program has said why on stderr, in one line */
                printf("Everything is built, but no lesson can run on this machine (the line "
                       "above says why).\n");
                if (csv != NULL) {
                    fclose(csv);
                    remove(csv_new);
                }
                return skip_ok ? 0 : 77;
            }
            failures += result;
            n_cases = 0, n_only = 0;
            lessons++;
            continue;
        }
        switch (c) {
        case 'c':
            if (n_cases == MAX_CASES) {
                fprintf(stderr, "cl_runner: more than %d --case options\n", MAX_CASES);
                return 2;
            }
            cases[n_cases++] = optarg;
            break;
        case 'o': csv_path = optarg; break;
        case 's': skip_ok = 1; break;
        case 'p':
            if (n_only == MAX_PROGRAMS) {
                fprintf(stderr, "cl_runner: more than %d --only options\n", MAX_PROGRAMS);
                return 2;
            }
            only[n_only++] = optarg;
            break;
        case 'h':
            printf("usage: cl_runner [--csv FILE] [--skip-ok] [[--only PROGRAM]... [--case "
                   "\"ARGS\"]... BIN_DIR]...\n"
                   "Runs every v<N>_* and baseline_* program in each BIN_DIR once per case given "
                   "before it,\nwith --csv; prints one table per case and, with --csv, writes all "
                   "rows to FILE\n(through FILE.new, which replaces FILE only if every run "
                   "checked).\n"
                   "A program that exits 2 refuses the case: a baseline's row shows n/a, a "
                   "version's is left out.\n"
                   "--skip-ok: exit 0 (not 77) when there is no CUDA device.\n"
                   "--only PROGRAM: run only the programs named (repeatable) at the next BIN_DIR, "
                   "e.g. a sweep's.\n"
                   "A row over 100%% of its ceiling is marked a measurement error and counts as a "
                   "failed run.\n"
                   "Exit codes: 0 every run checked; 1 a run failed its check, crashed or passed "
                   "its ceiling;\n2 bad input (an unknown option, a BIN_DIR or --only program "
                   "not found, a case that every\nprogram refuses); 77 no CUDA device (0 with "
                   "--skip-ok).\n");
            return 0;
        default:
            fprintf(stderr, "cl_runner: %s: unknown option or missing value (see --help)\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (lessons == 0) {
        fprintf(stderr, "cl_runner: missing BIN_DIR (see --help)\n");
        return 2;
    }
    if (failures)
        printf("%d run(s) failed, did not check or passed their ceiling\n", failures);
    if (csv != NULL) {
        fclose(csv);
        if (failures || refused_cases) {
            printf("%s is left as it was; this run's rows are in %s\n", csv_path, csv_new);
        } else if (rename(csv_new, csv_path) != 0) {
            fprintf(stderr, "cl_runner: --csv %s: %s\n", csv_path, strerror(errno));
            return 1;
        }
    }
    return refused_cases ? 2 : failures ? 1 : 0;
}
