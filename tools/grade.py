#!/usr/bin/env python3
"""A grade for one version of a lesson, a student's homework most of all, on this machine's GPU.

    python3 tools/grade.py LESSON VERSION        e.g. python3 tools/grade.py 03-reduction v10_mine
      --build DIR     the build tree (default: build/ at the repository's top)
      --seed S        the seed of the random shapes (default: drawn, and printed, so that a run can
                      be repeated)
      --shapes K      how many random awkward shapes (default 4)
      --csv FILE      append the grade as one row to FILE (the header is written when it is new)
      --no-build      do not build first (the grade-<lesson>-<version> target has built it)
      --no-large      leave out the test cases past 2^31 elements (each takes tens of seconds)

It builds the version (its warnings counted), checks that its @brief names a parent that exists,
runs it at the lesson's test shapes and at a few awkward shapes drawn at random from the lesson's
ranges (a case past 2^31 runs where memory allows), runs memcheck, racecheck and synccheck at a
small size, and times it at the headline case and a few sweep cases in the same run as its parent
and the library. The report card says what passed, what failed and why, the time ratios and a
verdict. Exit codes: 0 every correctness item passed (speed never fails a grade); 1 one failed;
2 bad input; 77 no CUDA device here (the build and the @brief are still graded, and a failure
of either is still exit 1; the items that need a GPU are named). The CSV row's columns are CSV_COLUMNS below.
"""
import argparse
import csv
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import lessons  # noqa: E402

CSV_COLUMNS = [
    "lesson", "version", "parent", "seed", "date",
    "build", "warnings", "brief",
    "tests_passed", "tests_run", "shapes_passed", "shapes_run", "sanitize",
    "correct",  # every correctness item passed
    "headline_case", "vs_parent", "vs_library", "pct_of_ceiling",
    "sweep_vs_parent_min", "sweep_vs_parent_max", "verdict",
]
TIMEOUT = 600  # seconds for one run


class Item:
    """One line of the report card: what, whether it passed, and why."""

    def __init__(self, name):
        self.name, self.ok, self.detail = name, None, ""

    def set(self, ok, detail):
        self.ok, self.detail = ok, detail
        return ok

    def line(self):
        mark = {True: "pass", False: "FAIL", None: "----"}[self.ok]
        return f"  {mark:4}  {self.name:<10} {self.detail}"


def run(args, timeout=TIMEOUT, env=None):
    """Runs a command; returns (exit code, output)."""
    try:
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or "") if isinstance(e.stdout, str) else ""
    except OSError as e:
        return 127, f"{args[0]}: {e.strerror}"


def first_line(output, pattern):
    for line in output.split("\n"):
        if re.search(pattern, line):
            return line.strip()
    return ""


def size(text):
    """An integer written as the programs take it: 1000, 2^24, 2^24+1."""
    m = re.match(r"^2\^([0-9]+)(\+([0-9]+))?$", text)
    return (1 << int(m.group(1))) + int(m.group(3) or 0) if m else int(text)


def draw(template, rng):
    """A shape from a template: {a..b} an integer from a to b, {a..b:odd} an odd one, {x|y} a
    word."""
    def one(m):
        inner = m.group(1)
        r = re.match(r"^([0-9^+]+)\.\.([0-9^+]+)(:odd)?$", inner)
        if r:
            lo, hi = size(r.group(1)), size(r.group(2))
            value = rng.randint(lo, hi)
            if r.group(3) and value % 2 == 0:
                value = value + 1 if value < hi else value - 1
            return str(value)
        return rng.choice(inner.split("|"))
    return re.sub(r"\{([^}]*)\}", one, template)


def read_grade_args(build, lesson):
    path = os.path.join(build, "measure", f"{lesson}-grade.args")
    if not os.path.exists(path):
        sys.exit(f"grade.py: {path} is missing: configure the build first "
                 f"(cmake --preset default), or give --build")
    kinds = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind in ("test", "large", "sanitize"):
                name, _, args = rest.partition(" ")
                kinds.setdefault(kind, []).append((name, args))
            elif kind:
                kinds.setdefault(kind, []).append(rest)
    return kinds


def source_of(lesson, version):
    for path in (f"{version}.cu", f"exercises/{version[len('exercise_'):]}.cu",
                 f"tests/homework/{version[len('homework_'):]}.cu"):
        full = os.path.join(ROOT, lesson, path)
        if os.path.exists(full):
            return full
    return None


def check_brief(item, lesson, version, source, programs):
    """The @brief names its step: "vN: vK with ..." (vK a version that exists) or "vN: a new
    path"."""
    brief = lessons.brief_of(source)
    m = re.match(r"^v([0-9]+): (v([0-9]+)|a new path)", brief)
    number = re.match(r"^v([0-9]+)_", os.path.basename(source))
    if not m:
        item.set(False, f"@brief should start 'vN: vK with …'; it reads '{brief[:50]}'")
        return None
    if number and m.group(1) != number.group(1):
        item.set(False, f"@brief says v{m.group(1)}, the file is v{number.group(1)}")
        return None
    if m.group(2) == "a new path":
        item.set(True, "a new path")
        return None
    parent = next((p for p in programs if re.match(rf"^v{m.group(3)}_", p)), None)
    if parent is None or parent == version:
        item.set(False, f"@brief names v{m.group(3)}, which is not a version of {lesson}")
        return None
    item.set(True, f"names its parent, {parent}")
    return parent


def grade(args):
    lesson, version = args.lesson, args.version
    if not re.match(r"^[0-9][0-9]-[a-z-]+$", lesson) or not os.path.isdir(os.path.join(ROOT, lesson)):
        print(f"grade.py: {lesson}: no such lesson", file=sys.stderr)
        return 2
    source = source_of(lesson, version)
    if source is None:
        print(f"grade.py: {lesson}/{version}.cu: no such version", file=sys.stderr)
        return 2
    build = os.path.abspath(args.build or os.path.join(ROOT, "build"))
    bin_dir = os.path.join(build, "bin", lesson)
    program = os.path.join(bin_dir, version)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10 ** 6)
    rng = random.Random(seed)
    items = {name: Item(name) for name in ("build", "brief", "tests", "shapes", "sanitize",
                                           "speed")}
    row = dict.fromkeys(CSV_COLUMNS, "")
    row.update(lesson=lesson, version=version, seed=seed, date=time.strftime("%Y-%m-%d"))
    print(f"grading {lesson}/{version} (seed {seed}: python3 tools/grade.py --seed {seed} "
          f"{lesson} {version} repeats it)")

    # the @brief first (it reads the sources): it names the parent, built and timed beside it
    lesson_dir = os.path.join(ROOT, lesson)
    sources = sorted(f[:-3] for f in os.listdir(lesson_dir) if re.match(r"^v[0-9]+_.*\.cu$", f))
    parent = check_brief(items["brief"], lesson, version, source, sources)
    row["brief"] = "pass" if items["brief"].ok else "FAIL"
    row["parent"] = parent or ""

    # build, with its warnings
    if args.no_build:
        ok = os.path.exists(program)
        items["build"].set(ok, "built (its warnings, if any, are in the build output above)"
                           if ok else f"{program} is missing")
    else:
        # a copy made since the last build is not yet a target: building any target makes the
        # build system read the lesson's files again first
        run(["cmake", "--build", build, "--target", "cl_runner"])
        targets = [f"{lesson}_{version}", "cl_runner", "cl_sanitize"] + (
            [f"{lesson}_{parent}"] if parent else [])
        code, out = run(["cmake", "--build", build, "--target"] + targets)
        warnings = len(re.findall(r"warning", out, flags=re.I))
        row["warnings"] = warnings
        if code != 0:
            items["build"].set(False, first_line(out, r"error") or f"the build failed ({code})")
        else:
            items["build"].set(True, f"built, {warnings} warning(s)" + (
                ":\n" + "\n".join("          " + w for w in out.split("\n")
                                  if re.search("warning", w, re.I))[:2000] if warnings else ""))
    row["build"] = "pass" if items["build"].ok else "FAIL"
    programs = sorted(f for f in os.listdir(bin_dir)) if os.path.isdir(bin_dir) else []
    if not items["build"].ok:
        return report(items, row, args, 1)

    grade_args = read_grade_args(build, lesson)
    done = {}  # each shape's (exit code, output), so that no shape runs twice

    def run_shape(case):
        if case not in done:
            done[case] = run([program] + case.split() + ["--repeat", "1", "--warmup", "0"])
        return done[case]

    # is there a device? The program's own answer at the first test shape (exit 77 where none)
    code, out = run_shape(grade_args["test"][0][1])
    if code == 77:
        for name in ("tests", "shapes", "sanitize", "speed"):
            items[name].set(None, "needs a CUDA GPU: " + out.strip().split("\n")[0])
        return report(items, row, args, 1 if items["brief"].ok is False else 77)

    # the lesson's test shapes, then random awkward ones: exit 0 passes, 1 fails (the check's
    # line says where), 2 is a refusal (another input type; a size this machine cannot hold)
    def shapes(cases, item, passed_key, run_key):
        passed = run_count = 0
        failures, skipped = [], []
        for name, case in cases:
            code, out = run_shape(case)
            if code == 0:
                passed += 1
                run_count += 1
            elif code == 2 or code == 77:
                skipped.append(f"{name} ({first_line(out, '.') or 'refused'})")
            else:
                run_count += 1
                reason = (first_line(out, r"check +FAIL|FAIL|rror") or
                          f"exit {code}" + (" (timed out)" if code == 124 else ""))
                where = first_line(out, r"^ *where ")  # the output that is wrong, and its value
                if where:
                    reason += "\n            " + where
                failures.append(f"{name} `{case}`: {reason}")
        row[passed_key], row[run_key] = passed, run_count
        detail = f"{passed} of {run_count} passed"
        if skipped:
            detail += f"; {len(skipped)} not run here: " + "; ".join(skipped[:3])
        if failures:
            detail += "\n" + "\n".join("          " + f for f in failures[:5])
        return item.set(not failures and run_count > 0, detail)

    shapes(grade_args.get("test", []) + ([] if args.no_large else grade_args.get("large", [])),
           items["tests"], "tests_passed", "tests_run")
    if args.no_large and grade_args.get("large"):
        items["tests"].detail += (f"; the {len(grade_args['large'])} case(s) past 2^31 left out "
                                  f"(--no-large)")
    description = lessons.read_description(ROOT, lesson)
    drawn = [(f"random{i + 1}", draw(rng.choice(description.shapes), rng))
             for i in range(args.shapes)] if description.shapes else []
    shapes(drawn, items["shapes"], "shapes_passed", "shapes_run")
    if drawn:
        items["shapes"].detail += "\n" + "\n".join(f"          {n}: {c}" for n, c in drawn)

    # three sanitizers at a small size
    sanitize = os.path.join(build, "common", "cl_sanitize")
    reports, skipped, failed_checks = [], [], []
    for name, case in grade_args.get("sanitize", []):
        for tool in ("memcheck", "racecheck", "synccheck"):
            code, out = run([sanitize, "", tool, program] + case.split() + ["--repeat", "0"])
            if code in (77, 127):
                skipped.append(tool)
            elif code == 99:  # the tool's own report (cl_sanitize: --error-exitcode 99)
                reports.append(f"{tool} at `{case}`: " + (
                    first_line(out, r"^========= (?!COMPUTE-SANITIZER|ERROR SUMMARY)") or
                    f"exit {code}"))
            elif code != 0:  # no report, but the program's own check failed (the tests say why)
                failed_checks.append(tool)
    if reports:
        items["sanitize"].set(False, reports[0] + (f" (and {len(reports) - 1} more)"
                                                   if len(reports) > 1 else ""))
    elif skipped:
        items["sanitize"].set(None, "not run here (no device for it, or no compute-sanitizer)")
    elif failed_checks:
        items["sanitize"].set(True, "no report from memcheck, racecheck or synccheck (the "
                                    "program's own check failed under them: see tests)")
    else:
        items["sanitize"].set(True, "memcheck, racecheck and synccheck clean")
    row["sanitize"] = {True: "pass", False: "FAIL", None: "not run"}[items["sanitize"].ok]
    correct = all(items[n].ok is not False for n in ("build", "brief", "tests", "shapes",
                                                      "sanitize"))
    row["correct"] = "yes" if correct else "no"

    # speed: the headline case and a few sweep cases, beside its parent and the library
    if not correct:
        items["speed"].set(None, "not timed: fix what failed first")
    else:
        timed(items["speed"], row, grade_args, build, bin_dir, version, parent, programs)
    return report(items, row, args, 0 if correct else 1)


def timed(item, row, grade_args, build, bin_dir, version, parent, programs):
    headline = grade_args["headline"][0]
    extra = grade_args.get("sweep") or grade_args.get("run") or []
    picks = [extra[i] for i in sorted({0, len(extra) // 2, len(extra) - 1})] if extra else []
    cases = [headline] + [c for c in picks if c != headline]
    names = [version] + ([parent] if parent else []) + [p for p in programs
                                                         if p.startswith("baseline_")]
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "rows.csv")
        command = [os.path.join(build, "bin", "cl_runner"), "--csv", table]
        for name in names:
            command += ["--only", name]
        for case in cases:
            command += ["--case", case]
        code, out = run(command + [bin_dir], timeout=3 * TIMEOUT)
        path = table if os.path.exists(table) else table + ".new"
        rows = list(csv.DictReader(open(path, encoding="utf-8"))) if os.path.exists(path) else []
    by = {(r["version"], r["case"]): r for r in rows}
    case_names = []
    for r in rows:
        if r["case"] not in case_names:
            case_names.append(r["case"])
    lines, ratios = [], []
    for i, c in enumerate(case_names):
        mine = by.get((version, c))
        if mine is None:
            continue
        ms = float(mine["median_ms"])
        vs_parent = ""
        if parent and (parent, c) in by:
            vs_parent = float(by[(parent, c)]["median_ms"]) / ms
            ratios.append((c, vs_parent))
        vs_library = mine["vs_baseline"]
        lines.append(f"{c}: {ms:.4f} ms, {mine['pct_of_ceiling']}% of the {mine['ceiling_name']}"
                     + (f", {vs_parent:.2f}× its parent's speed" if vs_parent != "" else "")
                     + (f", {vs_library.replace('x', '×')} the library's" if vs_library else ""))
        if i == 0:
            row.update(headline_case=c, pct_of_ceiling=mine["pct_of_ceiling"],
                       vs_library=vs_library.rstrip("x"),
                       vs_parent=f"{vs_parent:.3f}" if vs_parent != "" else "")
    if not lines:
        item.set(None, "not timed: " + (first_line(out, r".") or "the runner gave no row"))
        return
    sweep = [r for c, r in ratios if c != row["headline_case"]]
    if sweep:
        row["sweep_vs_parent_min"] = f"{min(sweep):.3f}"
        row["sweep_vs_parent_max"] = f"{max(sweep):.3f}"
    item.set(True, "\n".join(("" if i == 0 else "          ") + line
                             for i, line in enumerate(lines)))


def report(items, row, args, code):
    print("\nreport card")
    for name in ("build", "brief", "tests", "shapes", "sanitize", "speed"):
        print(items[name].line())
    if code == 77:
        verdict = "not graded here: the correctness and speed items need a CUDA GPU"
    elif code != 0:
        failed = [n for n in ("build", "brief", "tests", "shapes", "sanitize")
                  if items[n].ok is False]
        verdict = f"not correct: {', '.join(failed)} failed"
    else:
        verdict = "correct everywhere it ran" + (", and clean" if items["sanitize"].ok else
                                                 ", sanitizers not run")
        if row["vs_parent"]:
            verdict += f"; {float(row['vs_parent']):.2f}× its parent's speed at the headline case"
        if row["sweep_vs_parent_min"]:
            verdict += (f" ({row['sweep_vs_parent_min']}× to {row['sweep_vs_parent_max']}× at the "
                        f"other cases)")
    row["verdict"] = verdict
    print(f"verdict: {verdict}")
    if args.csv:
        new = not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0
        with open(args.csv, "a", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
            if new:
                writer.writeheader()
            writer.writerow(row)
    return code


def main(argv):
    parser = argparse.ArgumentParser(
        prog="grade.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.strip().split("\n\n")[0].split("\n")[0],
        epilog=__doc__.strip().split("\n\n", 2)[2].replace(
            "The CSV row's columns are CSV_COLUMNS below.",
            "The CSV row's columns: " + ", ".join(CSV_COLUMNS) + "."))
    parser.add_argument("lesson", help="the lesson's folder, e.g. 03-reduction")
    parser.add_argument("version", help="the version's name without .cu, e.g. v10_mine")
    parser.add_argument("--build", help="the build tree (default: build/ at the repository's top)")
    parser.add_argument("--seed", type=int, help="the seed of the random shapes (default: drawn, "
                        "and printed, so that a run can be repeated)")
    parser.add_argument("--shapes", type=int, default=4,
                        help="how many random awkward shapes (default 4)")
    parser.add_argument("--csv", help="append the grade as one row to this file (the header is "
                        "written when it is new)")
    parser.add_argument("--no-build", action="store_true", help="do not build first (the "
                        "grade-<lesson>-<version> target has built it)")
    parser.add_argument("--no-large", action="store_true", help="leave out the test cases past "
                        "2^31 elements (tens of seconds each)")
    args = parser.parse_args(argv[1:])
    return grade(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
