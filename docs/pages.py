#!/usr/bin/env python3
"""The pages engine: every number the lesson pages, the course map and the top README show comes
from the committed results (docs/results/) and the lessons' descriptions (NN-topic/description.txt),
never typed by hand.

    python3 docs/pages.py update [--root ROOT]      rewrite the generated parts of the pages and the
                                                    plots in docs/results/
    python3 docs/pages.py check  [--root ROOT]      fail if a page differs from what the results and
                                                    descriptions give (a cpu test)
    python3 docs/pages.py build  [--root ROOT] --out DIR
                                                    write the Doxygen copies of the pages, the plots
                                                    and the lessons index into DIR

What a page may ask for is written down once, with an example of each, in docs/MARKERS.md.
Standard library only (plots are drawn by gnuplot, as the figures are by tools/svgfig.py).
"""
import argparse
import csv
import glob
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import lessons  # noqa: E402  (tools/lessons.py: the lessons' descriptions and the results schema)


class PagesError(Exception):
    """A page, a results file or a description that the engine cannot use; the message says why."""


def fail(message):
    raise PagesError("pages.py: " + message)


# ---- Splicing ---------------------------------------------------------------------------------

def splice(content, name, block):
    """Replaces the text between <!-- NAME:begin --> and <!-- NAME:end --> with BLOCK."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    b, e = content.find(begin), content.find(end)
    if b == -1 or e == -1 or e < b:
        fail(f"no {begin} ... {end} block")
    return content[:b + len(begin)] + "\n" + block + content[e:]


def splice_includes(root, content):
    """<!-- include FILE:begin --> ... <!-- include FILE:end -->: a small committed file verbatim."""
    for marker in re.findall(r"<!-- include [^ :]+:begin -->", content):
        included = re.sub(r"<!-- include ([^ :]+):begin -->", r"\1", marker)
        with open(os.path.join(root, included), encoding="utf-8") as f:
            text = f.read()
        content = splice(content, f"include {included}", f"```\n{text}```\n")
    return content


# ---- Results ----------------------------------------------------------------------------------

class Results:
    """One results file (a lesson's runner, its sweep or its exercises' measurements): its rows by
    version and case, the cases and versions in order, the fastest passing version of each case,
    and the run's device, date and unit."""

    def __init__(self, path, schema):
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        if not rows or rows[0] != schema:
            fail(f"{path}: its columns are not common/results_columns.txt's "
                 f"({','.join(rows[0]) if rows else 'empty file'})")
        col = {name: i for i, name in enumerate(schema)}
        self.rows = {}
        self.cases, self.versions, self.ceilings = [], [], []
        self.best = {}
        best_rate = {}
        self.base = ""
        for f in rows[1:]:
            if len(f) < len(schema):
                fail(f"{path}: a row with {len(f)} columns: {','.join(f)}")
            v, c = f[col["version"]], f[col["case"]]
            row = {
                "ms": f[col["median_ms"]], "rate": f[col["throughput"]], "pct": f[col["pct_of_ceiling"]],
                "ceiling": f[col["ceiling"]],
                "check": f[col["check"]], "error": f[col["error"]],
                "speedup": f[col["speedup_vs_v1"]], "vs": f[col["vs_baseline"]], "version": v,
            }
            self.rows[(v, c)] = row
            if c not in self.cases:
                self.cases.append(c)
            if v not in self.versions:
                self.versions.append(v)
            self.unit = f[col["unit"]]
            self.device, self.cc = f[col["device"]], f[col["cc"]]
            self.driver, self.cuda, self.date = f[col["driver"]], f[col["cuda"]], f[col["date"]]
            if f[col["ceiling_name"]] not in self.ceilings:
                self.ceilings.append(f[col["ceiling_name"]])
            if v.startswith("baseline_"):
                self.base = v[len("baseline_"):]
            elif row["check"] == "PASS":
                if c not in best_rate or float(row["rate"]) > float(best_rate[c]):
                    best_rate[c] = row["rate"]
                    self.best[c] = v
        # the library last, also where a sweep in parts ran it before a part's versions
        baselines = [v for v in self.versions if v.startswith("baseline_")]
        self.versions = [v for v in self.versions if not v.startswith("baseline_")] + baselines
        # two library formulations: the runner's ratio is to the faster of them in each case
        if len(baselines) > 1:
            self.base = "the faster of " + " and ".join(b[len("baseline_"):] for b in baselines)
        # cases of different kinds (FP32 and BF16) have different ceilings: name them all
        self.ceiling_name = " or ".join(self.ceilings)


def number_of(text):
    """The leading number of a field, as a goal compares it ("1.004x" -> "1.004")."""
    return re.sub(r"[^0-9.].*$", "", text, flags=re.S)


def field_text(results, where, version, case, field):
    """The text of one field of a row, as a page shows it, and the number and version behind it.
    FIELD geomean: the geometric mean of the best version's ratio to the library over every case
    that matches CASE, a regular expression."""
    if results is None:
        fail(f"{where}: no results loaded for '{version}' '{case}'")
    if field == "geomean":
        ratios = []
        for c in results.cases:
            if not re.search(case, c) or c not in results.best:
                continue
            ratios.append(float(results.rows[(results.best[c], c)]["vs"].rstrip("x")))
        if not ratios:
            fail(f"{where}: no case matches '{case}'")
        mean = "%.3f" % math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        return f"{mean}× over {len(ratios)} cases", mean, "the best version of each"
    if version == "best":
        if case not in results.best:
            fail(f"{where}: no passing version in case '{case}'")
        version = results.best[case]
    row = results.rows.get((version, case))
    if row is None:
        fail(f"{where}: no row '{version}' '{case}' in its results")
    if field == "pct":
        text = row["pct"] + "%"
    elif field == "rate":
        text = f"{row['rate']} {results.unit}"
    elif field == "ms":
        text = row["ms"] + " ms"
    elif field in ("vs", "speedup"):
        text = row[field].replace("x", "×")
    elif field == "version":
        text = version
    elif field == "error":
        text = row["error"]
    elif field == "ceiling":
        text = row["ceiling"]
    else:
        fail(f"{where}: unknown field '{field}'")
    return text, number_of(row[field]), version


def in_scope(case, scope):
    """Whether a marker with CASE belongs to SCOPE ("sweep" for "sweep: CASE", "exercises" for
    "exercises: CASE", "" for the runner's), and the case without its prefix."""
    m = re.match(r"^(sweep|exercises): (.*)$", case, flags=re.S)
    mark_scope, case = (m.group(1), m.group(2)) if m else ("", case)
    return mark_scope == scope, case


class Goals:
    def __init__(self):
        self.goals = 0
        self.met = 0

    def status(self):
        return "no goal set" if self.goals == 0 else f"{self.met} of {self.goals} goals met"


def fill_markers(root, where, content, results, scope="", goals=None):
    """Fills the m, goal, q, qv and status markers of CONTENT in SCOPE from RESULTS (the lesson's
    runner, sweep or exercises). GOALS counts the goals met across the scopes of one page."""
    goals = goals if goals is not None else Goals()
    for m in list(re.finditer(r'<!--m [^ ]+ "[^"]*" [a-z]+-->[^<]*<!--/m-->', content)):
        mark = m.group(0)
        head = re.match(r'^<!--m ([^ ]+) "([^"]*)" ([a-z]+)-->', mark)
        version, case, field = head.group(1), head.group(2).replace("\\|", "|"), head.group(3)
        ok, case = in_scope(case, scope)
        if not ok:
            continue
        text, _, _ = field_text(results, where, version, case, field)
        content = content.replace(mark, f"{head.group(0)}{text}<!--/m-->")
    for m in list(re.finditer(r'<!--goal [^ ]+ "[^"]*" [a-z]+ [<>]= [0-9.]+-->[^<]*<!--/goal-->',
                              content)):
        mark = m.group(0)
        head = re.match(r'^<!--goal ([^ ]+) "([^"]*)" ([a-z]+) ([<>]=) ([0-9.]+)-->', mark)
        version, case, field = head.group(1), head.group(2).replace("\\|", "|"), head.group(3)
        op, limit = head.group(4), float(head.group(5))
        ok, case = in_scope(case, scope)
        if not ok:
            continue
        text, number, text_version = field_text(results, where, version, case, field)
        goals.goals += 1
        value = float(number) if number not in ("", ".") else None
        met = value is not None and ((op == ">=" and not value < limit) or
                                     (op == "<=" and not value > limit))
        goals.met += met
        verdict = "met" if met else "not met"
        content = content.replace(
            mark, f"{head.group(0)}**{verdict}**: {text} ({text_version})<!--/goal-->")
    for m in list(re.finditer(r'<!--qv? [^ ]+ "[^"]*"( [0-9]+)?( [fc][0-9]+)?-->[^\n]*?<!--/qv?-->',
                              content)):
        mark = m.group(0)
        head = re.match(r'^<!--(qv?) ([^ ]+) "([^"]*)"( [0-9]+)?( [fc][0-9]+)?-->', mark)
        kind, evidence, regex = head.group(1), head.group(2), head.group(3)
        nth = int(head.group(4)) if head.group(4) else 1
        field_kind = head.group(5)[1] if head.group(5) else ""
        field_index = int(head.group(5)[2:]) if head.group(5) else None
        path = os.path.join(root, "docs", "results", evidence)
        if not os.path.exists(path):
            fail(f"{where}: no evidence file {path}")
        with open(path, encoding="utf-8") as f:
            lines = [line for line in f.read().split("\n") if re.search(regex, line)]
        if not lines:
            fail(f"{where}: no line of {path} matches '{regex}'")
        if len(lines) < nth:
            fail(f"{where}: {path} has {len(lines)} lines matching '{regex}'")
        line = re.sub(r"  +", " ", lines[nth - 1].strip())
        if kind == "qv" and field_kind == "c":
            # cell C of a markdown table row (counted from 1)
            cells = re.sub(r"^\|(.*)\|$", r"\1", line).split("|")
            line = cells[field_index - 1].strip()
        elif kind == "qv" and field_index is not None:
            # the line's F-th field (split at spaces and commas): one value of a CSV-like row
            line = re.split(r"[ ,\t]+", line)[field_index]
        elif kind == "qv":
            # the line's last field alone: a counter's value, quoted in a sentence
            line = re.sub(r"^.*[ \t]", "", line)
        elif "`" in line:
            line = f"`` {line} ``"  # a code span that may hold backticks
        else:
            line = f"`{line}`"
        content = content.replace(mark, f"{head.group(0)}{line}<!--/{kind}-->")
    content = re.sub(r"<!--status-->[^<]*<!--/status-->",
                     f"<!--status-->{goals.status()}<!--/status-->", content)
    return content, goals


# ---- Plots --------------------------------------------------------------------------------------

class Plotter:
    """Draws with gnuplot. Without it: an error when building the site, a warning on update (the
    committed drawing stays)."""

    def __init__(self, mode):
        self.mode = mode
        self.gnuplot = None
        for d in os.environ.get("PATH", "").split(os.pathsep):
            if os.access(os.path.join(d, "gnuplot"), os.X_OK):
                self.gnuplot = os.path.join(d, "gnuplot")
                break

    def draw(self, folder, name, script):
        if self.gnuplot is None:
            if self.mode == "build":
                fail(f"gnuplot is needed to draw {name}")
            print(f"pages.py: warning: no gnuplot here, {name} not redrawn", file=sys.stderr)
            return
        gp = os.path.join(folder, name + ".gp")
        with open(gp, "w", encoding="utf-8") as f:
            f.write(f"out = '{folder}/{name}'\n{script}\n")
        rc = subprocess.run([self.gnuplot, gp]).returncode
        os.remove(gp)
        if rc != 0:
            fail(f"gnuplot failed to draw {name}")


def render_pictures(root, lesson, folder, plotter):
    """Pictures a lesson's extras committed as 8-bit PGM (docs/results/<lesson>-*.pgm), as PNG."""
    for pgm in sorted(glob.glob(os.path.join(root, "docs", "results", f"{lesson}-*.pgm"))):
        name = os.path.splitext(os.path.basename(pgm))[0]
        with open(pgm, "rb") as f:
            header = f.read(32)
        m = re.match(rb"^P5\n([0-9]+) ([0-9]+)\n255\n", header)
        if not m:
            fail(f"{pgm} is not an 8-bit PGM with a plain header")
        w, h = int(m.group(1)), int(m.group(2))
        skip = len(f"P5\n{w} {h}\n255\n")
        plotter.draw(folder, f"{name}.png",
                     f"set terminal png size {w},{h}; set output out; unset border; unset tics; "
                     f"unset key; unset colorbox; set margins 0,0,0,0; set palette gray; "
                     f"set xrange [0:{w - 1}]; set yrange [0:{h - 1}]; plot '{pgm}' binary "
                     f"array=({w},{h}) skip={skip} format='%uchar' flipy with image")


def render_lesson_plots(root, lesson, folder, plotter):
    """A lesson's own plots: <lesson>/experiments/<name>.gp drawn from
    docs/results/<lesson>-<name>.txt into FOLDER/<lesson>-<name>.svg."""
    for script in sorted(glob.glob(os.path.join(root, lesson, "experiments", "*.gp"))):
        name = os.path.splitext(os.path.basename(script))[0]
        data = os.path.join(root, "docs", "results", f"{lesson}-{name}.txt")
        if os.path.exists(data):
            plotter.draw(folder, f"{lesson}-{name}.svg", f"data = '{data}'\nload '{script}'")


# ---- The measured block -------------------------------------------------------------------------

def tables_of(columns_per_table, items):
    """ITEMS cut into runs of at most COLUMNS_PER_TABLE, in order."""
    return [items[i:i + columns_per_table] for i in range(0, len(items), columns_per_table)]


# A step within this share of its parent is a tie; past it, a win or a loss.
TIE = 0.03


def short_case(r, case):
    """CASE without the words every case of the runner shares (`n=2^26 mask=127 channels=1` where
    every case has batch=1)."""
    shared = set.intersection(*(set(c.split()) for c in r.cases)) if r.cases else set()
    return " ".join(w for w in case.split() if w not in shared) or case


def where_it_wins(measured, stem, parent_stem, case):
    """Where a step pays: "here" when it beats its parent by more than TIE at CASE of the runner
    (MEASURED's first results); else the case of the runner or the sweep where it beats its parent
    most, and by how much, or "nowhere measured" when it wins at none."""
    def ratio(r, c):
        mine, theirs = r.rows.get((stem, c)), r.rows.get((parent_stem, c))
        if not mine or not theirs or mine["check"] != "PASS" or theirs["check"] != "PASS":
            return None
        return float(theirs["ms"]) / float(mine["ms"])
    here = ratio(measured[0], case)
    if here is not None and here > 1 + TIE:
        return "here"
    steps = [(ratio(r, c), short_case(r, c)) for r in measured for c in r.cases]
    steps = [(x, c) for x, c in steps if x is not None]
    if not steps:
        return "—"
    best, best_case = max(steps)
    if best <= 1 + TIE:
        return "nowhere measured"
    return f"`{best_case}` ({best:.2f}×)"


def versions_block(r, d, part, case, where, with_results_page, elsewhere=()):
    """A teaching page's versions table (Harris's columns): one row per version of the part and the
    library at one case: its time, % of the ceiling, the speedup of its step over its parent and
    since v1, its ratio to the library, its kind (core, optional, a loss kept for its lesson) and,
    for a step that does not pay at this case, the runner's case where it pays most."""
    if case not in r.cases:
        fail(f"{where}: versions case '{case}' is not in the runner's results ({', '.join(r.cases)})")
    by_number = {v.number: v for v in d.by_number()}

    def ms(stem):
        row = r.rows.get((stem, case))
        return float(row["ms"]) if row and row["check"] == "PASS" else None
    first = by_number.get(1)
    v1_ms = ms(first.stem) if first else None
    every = (" Every case, with the plots, is on [the results page](results.md)."
             if with_results_page else "")
    block = (f"At `{case}` on {r.device}, {r.date}: median times, % of the "
             f"{r.ceiling_name if len(r.ceilings) == 1 else 'case' + chr(39) + 's ceiling'}"
             + (f", × {r.base} (> 1: faster)" if r.base else "") + f".{every}\n\n"
             "| version | kind | time (ms) | % of ceiling | this step | since v1 |"
             + (" × library |" if r.base else "") + " where it beats its parent |\n|---|---|--:|--:|--:|--:|"
             + ("--:|" if r.base else "") + "---|\n")
    rows = [(v.stem, v) for v in d.part_versions(part)]
    rows += [(b, None) for b in r.versions if b.startswith("baseline_")]
    for stem, v in rows:
        row = r.rows.get((stem, case))
        if row is None:
            continue
        if row["check"] != "PASS":
            block += f"| `{stem}` | {v.kind if v else 'library'} | {row['check']} | | | | |"
            block += " |\n" if r.base else "\n"
            continue
        t = float(row["ms"])
        step, wins = "—", ""
        if v is not None and v.parent == "new":
            step = "new path"
        elif v is not None and v.parent_number is not None:
            parent = by_number.get(v.parent_number)
            p_ms = ms(parent.stem) if parent else None
            step = f"{p_ms / t:.2f}×" if p_ms else "—"
            if parent is not None:
                wins = where_it_wins([r] + list(elsewhere), stem, parent.stem, case)
        since = f"{v1_ms / t:.2f}×" if v1_ms else "—"
        vs = row["vs"].replace("x", "×") if row["vs"] else "—"
        block += (f"| `{stem}` | {v.kind if v else 'library'} | {t:.4g} | {row['pct']}% | {step} | "
                  f"{since} |" + (f" {vs} |" if r.base else "") + f" {wins} |\n")
    return block


def splice_versions(page, r, d, part, where, with_results_page, elsewhere=()):
    """<!-- versions "CASE":begin --> ... <!-- versions "CASE":end -->: the part's versions table."""
    for case in re.findall(r'<!-- versions "([^"]+)":begin -->', page):
        if r is None:
            fail(f"{where}: a versions table needs the runner's results")
        page = splice(page, f'versions "{case}"',
                      versions_block(r, d, part, case, where, with_results_page, elsewhere))
    return page


def results_block(r, lesson, name, kind, plot_folder, plotter):
    """The measured block of a lesson: the runner's table (a row per version, a column per case,
    in tables of at most five cases) or the sweep's (a row per case, the programs in tables of at
    most three), and two plots."""
    with_base = (f", then in brackets the time ratio to {r.base} (> 1: faster)" if r.base
                 else ", then in brackets the speedup over v1")
    by = (f"the lesson's sweep (`sweep-{lesson}`: its best versions and the library, each case in "
          f"one run)" if kind == "sweep" else "the lesson's runner")
    ceiling_text = (f"its case's ceiling ({r.ceiling_name})" if len(r.ceilings) > 1
                    else f"the {r.ceiling_name}")
    block = (f"Measured on {r.device} (compute capability {r.cc}), driver {r.driver}, CUDA {r.cuda}, "
             f"{r.date}, by {by}; every row, with its median and minimum time, throughput and "
             f"check, is in [`docs/results/{name}.csv`](../docs/results/{name}.csv). Each cell: % "
             f"of {ceiling_text} that the program measured on the device{with_base}.")
    if kind == "sweep":
        block += " The last column names the case's fastest version that passed its check."
    block += "\n\n"
    if kind != "sweep":
        for i, c in enumerate(r.cases, 1):
            block += f"{i}. `{c}`\n"

    if kind == "sweep":
        # programs measured on the same cases share tables; the first of each group names the
        # case's best version; a table lists only the cases its programs ran on
        groups = []
        for v in r.versions:
            signature = tuple(i for i, c in enumerate(r.cases, 1) if (v, c) in r.rows)
            for g in groups:
                if g[0] == signature:
                    g[1].append(v)
                    break
            else:
                groups.append((signature, [v]))
        tables = 0
        for _, members in groups:
            for first, columns in enumerate(tables_of(3, members)):
                with_best = first == 0 and any(not v.startswith("baseline_") for v in members)
                if tables > 0:
                    block += "\n"
                tables += 1
                block += "| # | case |" + "".join(f" {v} |" for v in columns)
                rule = "|--:|---|" + "--:|" * len(columns)
                if with_best:
                    block += " best |"
                    rule += "---|"
                block += f"\n{rule}\n"
                for i, c in enumerate(r.cases, 1):
                    row, any_cell = f"| {i} | `{c}` |", False
                    for v in columns:
                        cell = r.rows.get((v, c))
                        if cell is None:
                            row += " |"
                        elif cell["check"] != "PASS":
                            row += f" {cell['check']} |"
                            any_cell = True
                        else:
                            row += f" {cell['pct']}% ({cell['vs'].replace('x', '×')}) |"
                            any_cell = True
                    if not any_cell:
                        continue
                    if with_best:
                        row += f" {re.sub(r'_.*$', '', r.best.get(c, ''), flags=re.S)} |"
                    block += row + "\n"
    else:
        cells = {}
        for v in r.versions:
            for c in r.cases:
                row = r.rows.get((v, c))
                if row is None:
                    cells[(v, c)] = ""
                    continue
                ratio = (row["vs"] if r.base else row["speedup"]).replace("x", "×")
                ratio = "" if ratio in ("", "-") else f" ({ratio})"
                cells[(v, c)] = f"{row['pct']}%{ratio}" if row["check"] == "PASS" else row["check"]
        for first in range(0, len(r.cases), 5):
            numbers = list(range(first + 1, min(first + 5, len(r.cases)) + 1))
            block += ("\n| version |" + "".join(f" {i} |" for i in numbers) + "\n|---|" +
                      "--:|" * len(numbers) + "\n")
            for v in r.versions:
                block += f"| {v} |" + "".join(f" {cells[(v, r.cases[i - 1])]} |"
                                               for i in numbers) + "\n"
    if kind == "sweep":
        block += (f"\n![The time ratio to {r.base} per case (> 1: faster), linear scale]"
                  f"(../docs/results/{name}.svg) ![% of the ceiling per case, linear scale]"
                  f"(../docs/results/{name}-ceiling.svg)\n\n")
    else:
        block += (f"\n![{r.unit} of every version, one bar per case, log scale]"
                  f"(../docs/results/{name}.svg)\n")
        block += ("\n![% of the ceiling, one bar per case, linear scale]"
                  f"(../docs/results/{name}-ceiling.svg)\n\n")
    if plot_folder is not None:
        draw_results(r, lesson, name, kind, plot_folder, plotter)
    return block


def draw_results(r, lesson, name, kind, folder, plotter):
    n_cases = len(r.cases)
    if kind == "sweep":
        # two line plots, a line per program across the cases: the time ratio to the library
        # (the versions) and % of the ceiling (every program, the library too)
        ratio_dat = "case" + "".join(f" {v}" for v in r.versions
                                     if not v.startswith("baseline_")) + "\n"
        pct_dat = "case" + "".join(f" {v}" for v in r.versions) + "\n"
        for i, c in enumerate(r.cases, 1):
            ratio_dat += str(i)
            pct_dat += str(i)
            for v in r.versions:
                row = r.rows.get((v, c))
                ratio = pct = "NaN"
                if row is not None and row["check"] == "PASS":
                    pct = row["pct"]
                    ratio = re.sub(r"x$", "", row["vs"]) or "NaN"
                if not v.startswith("baseline_"):
                    ratio_dat += f" {ratio}"
                pct_dat += f" {pct}"
            ratio_dat += "\n"
            pct_dat += "\n"
        label_pct = (f"% of the ceiling of its case ({r.ceiling_name})" if len(r.ceilings) > 1
                     else f"% of the {r.ceiling_name}")
        plots = [(name, ratio_dat, f"time ratio to {r.base}",
                  f"time ratio to {r.base} per case (> 1: faster)",
                  "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#404040'"),
                 (f"{name}-ceiling", pct_dat, label_pct, f"{label_pct} per case", "")]
        for plot_name, data, label, title, extra in plots:
            dat = os.path.join(folder, f"{plot_name}.dat")
            with open(dat, "w", encoding="utf-8") as f:
                f.write(data)
            plotter.draw(folder, f"{plot_name}.svg", f"""set terminal svg size 960,480 font 'sans,12' background '#ffffff'
set output out
set title '{lesson}: {title}, {r.device}, {r.date}' noenhanced
set xlabel 'case (the row of the table above)'
set ylabel '{label}'
set yrange [0:*]
set xtics 1
set grid ytics
set key below horizontal noenhanced
set linetype 9 lc rgb '#808080'
set linetype 10 lc rgb '#a0522d'
{extra}
plot for [col=2:*] '{folder}/{plot_name}.dat' using 1:col with linespoints lw 2 pt 7 title columnheader""")
            os.remove(dat)
        return
    head = "version" + "".join(f' "{c}"' for c in r.cases) + "\n"
    rate_dat, pct_dat = head, head
    for v in r.versions:
        rate_dat += v
        pct_dat += v
        for c in r.cases:
            row = r.rows.get((v, c))
            rate_dat += f" {row['rate']}" if row else " NaN"
            pct_dat += f" {row['pct']}" if row else " NaN"
        rate_dat += "\n"
        pct_dat += "\n"
    height = 400 + 12 * n_cases  # the key sits below the bars, two per line
    for plot_name, data, axis in [
            (name, rate_dat, f"set ylabel '{r.unit}'\nset logscale y 10"),
            (f"{name}-ceiling", pct_dat, f"set ylabel '% of {r.ceiling_name}'\nset yrange [0:*]")]:
        dat = os.path.join(folder, f"{plot_name}.dat")
        with open(dat, "w", encoding="utf-8") as f:
            f.write(data)
        # rmargin: the last tic label, rotated, runs past the last bar
        plotter.draw(folder, f"{plot_name}.svg", f"""set terminal svg size 960,{height} font 'sans,12' background '#ffffff'
set output out
set title '{lesson} on {r.device}, {r.date}' noenhanced
{axis}
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set rmargin 12
set key below horizontal maxcols 2 noenhanced
set linetype 9 lc rgb '#808080'
set grid ytics
set ytics format '%g'
plot for [col=2:{n_cases + 1}] '{folder}/{plot_name}.dat' using col:xtic(1) title columnheader""")
        os.remove(dat)


# ---- The course map and the README's tables -----------------------------------------------------

def page_words(text):
    """Rendered words of a page as a student reads it (code blocks and HTML comments left out)."""
    prose, in_code = "", False
    for line in text.split("\n"):
        if re.match(r"^[ ]*```", line):
            in_code = not in_code
            continue
        if not in_code:
            prose += " " + line
    prose = re.sub(r"<!--[^>]*-->", " ", prose)
    prose = re.sub(r"\]\([^)\s]*\)", "]", prose)  # a link's target is not read
    return len(re.findall(r"[A-Za-z0-9][A-Za-z0-9_.%/^-]*", prose))


def gpu_column(versions):
    """What the part's versions need of the GPU, as the course map says it: "any" if some version
    needs nothing more, then each need with the versions that have it (a run of versions with one
    need is one range)."""
    needs, last_need, start, prev = [], None, None, None
    some_any = any(lessons.GPU_NEEDS[v.gpu] == "any" for v in versions)
    for v in versions:
        need = lessons.GPU_NEEDS[v.gpu]
        if need != "any":
            if need == last_need and prev is not None:
                needs[-1] = f"v{start}–v{v.number}: {need}"
            else:
                start = v.number
                needs.append(f"v{v.number}: {need}")
            prev = v
        else:
            prev = None
        last_need = need
    if not needs:
        return "any"
    return ("any; " if some_any else "") + "; ".join(needs)


def path_tree(versions):
    """A part's versions as the tree they form: a chain "vA → vB → ..." for each run of versions
    that each start from the one before, a chain that starts elsewhere saying where ("(from vK)",
    "(new)", "(new, from vK)"), and a version that is not core marked with its kind."""
    chains, previous = [], None
    for v in versions:
        name = f"v{v.number}" + ("" if v.kind == "core" else f" ({v.kind})")
        if previous is not None and not v.new_path and v.parent_number == previous.number:
            chains[-1] += f" → {name}"
        elif v.parent == "-":
            chains.append(name)
        elif v.parent == "new":
            chains.append(f"(new) {name}")
        elif v.new_path:
            chains.append(f"(new, from {v.parent[4:]}) {name}")
        else:
            chains.append(f"(from {v.parent}) {name}")
        previous = v
    return "; ".join(chains)


READING_RATE = 120  # words a minute, tables counted


def part_title(page):
    """A part's short name: its <!-- part: NAME --> line, or the head of its title."""
    m = re.search(r"<!-- part: ([^\n]*) -->", page)
    title = m.group(1) if m else ""
    if not m:
        m = re.match(r"^# [^:\n]*: ([^\n]*)", page)
        title = m.group(1) if m else ""
    return re.sub(r"[,:] .*$", "", title)  # the title's head: a short part name


def map_row(root, lesson, page_path, page, d, part):
    rel = os.path.relpath(page_path, os.path.join(root, lesson))
    title = part_title(page)
    minutes = round(page_words(page) / READING_RATE)
    versions = d.part_versions(part)
    optional = ", ".join(f"v{v.number}" for v in versions if v.kind == "optional")
    optional = ", ".join(filter(None, [optional] + [f"v{v.number} (superseded)" for v in versions
                                                   if v.kind == "superseded"]))
    losses = ", ".join(f"v{v.number}" for v in versions if v.kind == "loss")
    return (f"| [{lesson}](../{lesson}/README.md) | [{title}](../{lesson}/{rel}) | "
            f"{path_tree(versions)} | {optional} | {losses} | {minutes} min | "
            f"{gpu_column(versions)} |\n")


def number_ranges(numbers):
    """[1, 3, 4, 5, 7] -> "v1, v3–v5, v7"."""
    spans = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"v{a}" if a == b else f"v{a}, v{b}" if b == a + 1 else f"v{a}–v{b}"
                     for a, b in spans)


def exercise_names(page):
    """The names of a page's exercises, in order: the bold words that open each numbered item
    of its Exercises section."""
    m = re.search(r"^## Exercises\n(.*?)(?=^## |\Z)", page, flags=re.M | re.S)
    return re.findall(r"^[0-9]+\. \*\*([^*]+)\*\*", m.group(1), flags=re.M) if m else []


def quoted(names):
    names = [f"“{n.rstrip('.')}”" for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


WEEKS = {1: "One week", 2: "Two weeks", 3: "Three weeks", 4: "Four weeks"}


def assignments(d, part_titles, part_exercises, where):
    """A lesson's assignments, from its description's week records: for each, the parts it adds
    (their core versions to do, their optional steps and kept losses to read) and the exercises
    it adds, by name."""
    if not d.weeks:
        fail(f"{where}: no 'week N parts=... exercises=...' record: the course map's assignments "
             f"are made from them")
    text, done_parts, done_exercises = "", set(), set()
    for weeks, w in sorted(d.weeks.items()):
        pieces = []
        for part in w["parts"]:
            if part in done_parts:
                continue
            if part not in part_titles:
                fail(f"{where}: week {weeks} names part {part}, which has no page")
            versions = d.part_versions(part)
            what = [number_ranges([v.number for v in versions if v.kind == "core"]) + " to do"]
            optional = [v.number for v in versions if v.kind == "optional"]
            losses = [v.number for v in versions if v.kind == "loss"]
            if optional:
                what.append(number_ranges(optional) + " (optional) to read")
            if losses:
                what.append(number_ranges(losses) + (" (kept losses)" if len(losses) > 1
                                                     else " (a kept loss)") + " to read")
            name = f"part {part}, {part_titles[part]}" if len(part_titles) > 1 else ""
            pieces.append((f"{name}: " if name else "") + "; ".join(what))
            done_parts.add(part)
        refs = ([f"{p}.{k + 1}" for p in w["parts"] for k in range(len(part_exercises.get(p, [])))]
                if w["exercises"] == ["all"] else w["exercises"])
        names = []
        for ref in refs:
            p, k = (int(x) for x in ref.split("."))
            if p not in part_exercises or k > len(part_exercises[p]):
                fail(f"{where}: week {weeks} names exercise {ref}, which part {p}'s page "
                     f"does not have")
            if ref not in done_exercises:
                names.append(part_exercises[p][k - 1])
                done_exercises.add(ref)
        if names:
            pieces.append(f"the exercise{'s' if len(names) > 1 else ''} {quoted(names)}")
        adds = "" if not text else "add "
        text += f" {WEEKS.get(weeks, f'{weeks} weeks')}: {adds}{'; '.join(pieces)}."
    return (f"- **[{d.lesson}](../{d.lesson}/README.md)** (answers: "
            f"[the key](../{d.lesson}/key.md)).{text}\n")


def map_solutions(d):
    text = ", ".join(f"`{name}.cu` ({'any CUDA GPU' if e['gpu'] == 'any' else lessons.GPU_NEEDS[e['gpu']]})"
                     for name, e in sorted(d.exercises.items()))
    return text or "none yet"


def lesson_tables(d):
    """The top README's rows for a lesson: where its homework starts (the description's homework
    version, and the number after its last version: a student's copy changes neither) and the
    paths that start afresh."""
    versions = d.by_number()
    last = versions[-1].number
    homework = f"| {d.lesson} | `{d.homework}.cu` | `v{last + 1}_mine.cu` |\n"
    starts = [v for v in versions if v.new_path]
    paths = ""
    for i, v in enumerate(starts):
        end = starts[i + 1].number - 1 if i + 1 < len(starts) else last
        span = f"v{v.number}" if end == v.number else f"v{v.number}–v{end}"
        paths += f"| {d.lesson} | {span} | {d.paths.get(v.stem, '')} |\n"
    return homework, paths


# ---- The site's copies --------------------------------------------------------------------------

# A lesson's results page (NN-topic/results.md): what an engineer wants, every runner case, the
# sweeps, the goals and what was tried; its key sorts after every part. The instructor's key
# (NN-topic/key.md: the exercises' expected results and solution notes) sorts after it.
RESULTS_PAGE = "results.md"
RESULTS_PART = 10 ** 6
KEY_PAGE = "key.md"
KEY_PART = RESULTS_PART + 1

MARKERS = r"<!--/?(m|goal|qv?|status)( ([^-]|-[^-])*)?-->"


def lesson_links(text):
    """Links from a page one folder below the top (a lesson's, or docs/) to lesson pages
    (../NN-topic/README.md, ../NN-topic/<page>.md), as the site's @refs. A link to a section goes
    to its page: the site's anchors differ."""
    text = re.sub(r"(\]\((?:\.\./[0-9][0-9]-[a-z-]+/)?[A-Za-z0-9-]+\.md)#[a-z0-9_-]+\)", r"\1)", text)
    text = re.sub(r"\]\(\.\./([0-9][0-9]-[a-z-]+)/README\.md\)", r"](@ref lesson_\1)", text)
    return re.sub(r"\]\(\.\./([0-9][0-9]-[a-z-]+)/([a-z0-9-]+)\.md\)", r"](@ref lesson_\1_\2)", text)


def glossary_anchor(heading):
    """The anchor GitHub makes for a heading: lower case, letters, digits, spaces, hyphens and
    underscores kept, spaces made hyphens."""
    kept = re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def glossary_links(text):
    """Links into the glossary, written for GitHub (docs/glossary.md#anchor), as the site's
    @refs: the page is `glossary` and each term's heading `glossary_<anchor>`."""
    def ref(m):
        anchor = m.group(1)
        return f"](@ref glossary_{anchor.replace('-', '_')})" if anchor else "](@ref glossary)"
    text = re.sub(r"\]\((?:\.\./)?docs/glossary\.md(?:#([a-z0-9_-]+))?\)", ref,
                  re.sub(r"\]\(\.\./docs/glossary\.md", "](docs/glossary.md", text))
    # Doxygen shows a code span inside an @ref link's text with its backticks: an HTML link instead
    return re.sub(r"\[`([^`\]\n]+)`\]\(@ref glossary_([a-z0-9_]+)\)",
                  r'<a href="glossary.html#glossary_\2"><code>\1</code></a>', text)


def glossary_site(root, out):
    """The site's copy of docs/glossary.md: a label on the page and on every term's heading."""
    with open(os.path.join(root, "docs", "glossary.md"), encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"^# ([^\n]*)\n", r"# \1 {#glossary}\n", text, count=1)
    def label(anchor):
        return "glossary_" + anchor.replace("-", "_")
    text = re.sub(r"^### ([^\n]*)$",
                  lambda m: f"### {m.group(1)} {{#{label(glossary_anchor(m.group(1)))}}}",
                  text, flags=re.M)
    text = re.sub(r"\]\(#([a-z0-9_-]+)\)", lambda m: f"](@ref {label(m.group(1))})", text)
    text = lesson_links(text)
    text = re.sub(r"\]\(course\.md\)", "](@ref course)", text)
    with open(os.path.join(out, "pages", "glossary.md"), "w", encoding="utf-8") as f:
        f.write(text)


def site_copy(page, lesson, stem, label, nav, parts_line):
    """The Doxygen copy of a page: a label, previous and next, a table of contents, and links that
    work on the site (evidence files beside the pages, lessons and parts as @ref, figures by
    name)."""
    page = re.sub(MARKERS, "", page)  # the markers are no use on the site
    page = re.sub(r"^# ([^\n]*)\n", lambda m: f"# {m.group(1)} {{#{label}}}\n\n{nav}\n\n"
                  f"{parts_line}[TOC]\n", page, count=1)
    page += f"\n---\n{nav}\n"
    page = re.sub(r"\]\(\.\./docs/results/([^)]+)\)", r"](\1)", page)
    page = re.sub(r"\]\(\.\./docs/course\.md\)", "](@ref course)", page)
    page = glossary_links(page)
    page = lesson_links(page)
    page = re.sub(r"\]\(README\.md\)", f"](@ref lesson_{lesson})", page)
    page = re.sub(r"\]\(([a-z0-9-]+)\.md\)", rf"](@ref lesson_{lesson}_\1)", page)
    page = re.sub(r"\]\(figures/([^)]+)\)", rf"]({lesson}-\1)", page)
    return page


def course_order(root, lesson_list):
    """The lessons in the course map's order (its table "| order | lesson | ..."), then any it does
    not name, in number order."""
    with open(os.path.join(root, "docs", "course.md"), encoding="utf-8") as f:
        text = f.read()
    order = re.findall(r"^\| *[0-9]+ *\| *\[([0-9][0-9]-[a-z-]+)\]", text, flags=re.M)
    return [x for x in order if x in lesson_list] + [x for x in lesson_list if x not in order]


# ---- The whole run ------------------------------------------------------------------------------

def write_or_check(root, mode, path, original, new, what, problems):
    if new == original:
        return
    shown = os.path.relpath(path, root)
    if mode == "update":
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
        print(f"pages.py: updated {shown}")
    elif mode == "check":
        old_lines, new_lines = original.split("\n"), new.split("\n")
        line = next((i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b),
                    min(len(old_lines), len(new_lines)))
        old_line = old_lines[line] if line < len(old_lines) else "(the end of the file)"
        new_line = new_lines[line] if line < len(new_lines) else "(the end of the file)"
        problems.append(f"pages.py: {shown} differs from what docs/results/ and the lessons' "
                        f"descriptions give ({what}); its line {line + 1} reads\n  {old_line}\n"
                        f"and should read\n  {new_line}")


def run(root, mode, out=None):
    root = os.path.abspath(root)
    schema, _ = lessons.read_schema(root)
    plotter = Plotter(mode)
    results_dir = os.path.join(root, "docs", "results")
    lesson_list = lessons.lesson_dirs(root)
    order = course_order(root, lesson_list)
    problems = []

    # the site's previous and next: every page in the course's order, a lesson's parts in turn
    chain = []
    for lesson in order:
        chain.append((f"lesson_{lesson}", lesson))
        for part, page in sorted(lessons.part_pages(root, lesson).items()):
            if part > 1:
                stem = os.path.splitext(os.path.basename(page))[0]
                chain.append((f"lesson_{lesson}_{stem}", f"{lesson}, part {part}"))
        if os.path.exists(os.path.join(root, lesson, RESULTS_PAGE)):
            chain.append((f"lesson_{lesson}_results", f"{lesson}, results"))
        if os.path.exists(os.path.join(root, lesson, KEY_PAGE)):
            chain.append((f"lesson_{lesson}_key", f"{lesson}, the instructor's key"))
    chain_labels = [c[0] for c in chain]

    lesson_rows = "| lesson | what it teaches | status |\n|---|---|---|\n"
    headline = ("| lesson | case | best version | throughput | % of ceiling | vs library | device |\n"
                "|---|---|---|--:|--:|--:|---|\n")
    index = {}
    course_map, solutions_text, assignments_of = "", "", {}
    homework_rows = "| lesson | copy | to |\n|---|---|---|\n"
    path_rows = "| lesson | versions | the path |\n|---|---|---|\n"
    loss_rows = ""
    plot_folder = out if mode == "build" else (results_dir if mode == "update" else None)

    for lesson in lesson_list:
        d = lessons.read_description(root, lesson)
        pages = lessons.part_pages(root, lesson)
        for name in sorted(os.listdir(os.path.join(root, lesson))):
            if name.endswith(".md") and name not in ("README.md", RESULTS_PAGE, KEY_PAGE) and \
                    not re.match(r"^part[0-9]+-[a-z0-9-]+\.md$", name):
                fail(f"{lesson}/{name}: a lesson's further pages are named partN-<name>.md "
                     f"(its measurements go on {RESULTS_PAGE}, its exercises' answers on "
                     f"{KEY_PAGE})")
        # the results page: every case, sweep and try, after the teaching pages; no part of its own
        if os.path.exists(os.path.join(root, lesson, RESULTS_PAGE)):
            pages[RESULTS_PART] = os.path.join(root, lesson, RESULTS_PAGE)
        # the instructor's key: the exercises' answers, after the results page
        if os.path.exists(os.path.join(root, lesson, KEY_PAGE)):
            pages[KEY_PART] = os.path.join(root, lesson, KEY_PAGE)
        goals_total, met_total = 0, 0
        filled, originals = {}, {}
        part_titles, part_exercises = {}, {}
        teaches = ""
        # the lesson's results files, read once for all its pages: the runner's (""), the sweep's,
        # the exercises' and a measurement of every version at the sweep's shapes, where they exist
        measured_of = {}
        for kind in ("", "sweep", "exercises", "every-version"):
            path = os.path.join(results_dir, f"{lesson}{'-' + kind if kind else ''}.csv")
            if os.path.exists(path):
                measured_of[kind] = Results(path, schema)
        for part, page_path in sorted(pages.items()):
            stem = os.path.splitext(os.path.basename(page_path))[0]
            where = f"{lesson}/{stem}.md"
            with open(page_path, encoding="utf-8") as f:
                page = f.read()
            originals[stem] = page
            runner = measured_of.get("")
            if runner is not None and "<!-- results:begin -->" in page:
                page = splice(page, "results", results_block(
                    runner, lesson, lesson, "results", plot_folder, plotter))
            # where a step that does not pay at the page's case pays: the sweep's cases too, and
            # those of a measurement of every version at the sweep's shapes
            elsewhere = [measured_of[k] for k in ("sweep", "every-version") if k in measured_of]
            page = splice_versions(page, runner, d, part, where, RESULTS_PART in pages, elsewhere)
            page, goals = fill_markers(root, where, page, runner)
            page = splice_includes(root, page)
            if stem == "README":
                m = re.match(r"^# ([^\n]*)", page)
                if not m:
                    fail(f"{lesson}/README.md does not start with a title")
                m = re.search(r"<!-- teaches: ([^\n]*) -->", page)
                if not m:
                    fail(f"{lesson}/README.md has no <!-- teaches: ... --> line")
                teaches = m.group(1)
                m = re.search(r"<!-- headline-case: ([^\n]*) -->", page)
                if runner is not None and m:
                    c = m.group(1)
                    if c not in runner.cases:
                        fail(f"{lesson}: headline case '{c}' is not in its results")
                    field = lambda f: field_text(runner, where, "best", c, f)[0]  # noqa: E731
                    vs = f"{field('vs')} {runner.base}" if runner.base else ""
                    headline += (f"| [{lesson}]({lesson}/README.md) | {c} | {field('version')} | "
                                 f"{field('rate')} | {field('pct')} | {vs} | {runner.device} |\n")
            elif not page.startswith("# "):
                fail(f"{where} does not start with a title")
            # the sweep and the exercises' measurements, where the lesson has them
            for extra in ("sweep", "exercises"):
                quotes = f'"{extra}: ' in page
                if quotes and extra not in measured_of:
                    fail(f"{where} quotes {extra} numbers, and docs/results/{lesson}-{extra}.csv "
                         f"is missing (run the {extra}-{lesson} target)")
                if extra in measured_of and (f"<!-- {extra}:begin -->" in page or quotes):
                    measured = measured_of[extra]
                    if f"<!-- {extra}:begin -->" in page:
                        page = splice(page, extra, results_block(
                            measured, lesson, f"{lesson}-{extra}", extra, plot_folder, plotter))
                    page, goals = fill_markers(root, where, page, measured, extra, goals)
            goals_total += goals.goals
            met_total += goals.met
            if part < RESULTS_PART:
                course_map += map_row(root, lesson, page_path, page, d, part)
                part_titles[part] = part_title(page)
                part_exercises[part] = exercise_names(page)
            filled[stem] = page

        status = "no goal set" if goals_total == 0 else f"{met_total} of {goals_total} goals met"
        filled["README"] = re.sub(r"<!--status-->[^<]*<!--/status-->",
                                  f"<!--status-->{status}<!--/status-->", filled["README"])
        lesson_rows += f"| [{lesson}]({lesson}/README.md) | {teaches} | {status} |\n"
        homework, paths = lesson_tables(d)
        homework_rows += homework
        path_rows += paths
        solutions_text += f"- [{lesson}](../{lesson}/README.md): {map_solutions(d)}\n"
        assignments_of[lesson] = assignments(d, part_titles, part_exercises,
                                             f"{lesson}/description.txt")
        losses = [f"v{v.number}" for v in d.by_number() if v.kind == "loss"]
        if losses:
            loss_rows += f"- {lesson}: {', '.join(losses)}\n"

        stems = [os.path.splitext(os.path.basename(p))[0] for _, p in sorted(pages.items())]
        for stem in stems:
            page_path = os.path.join(root, lesson, f"{stem}.md")
            if mode != "build":
                write_or_check(root, mode, page_path, originals[stem], filled[stem],
                               "the generated parts", problems)
                continue
            label = f"lesson_{lesson}" if stem == "README" else f"lesson_{lesson}_{stem}"
            at = chain_labels.index(label)
            nav = ""
            if at > 0:
                nav += f'← @ref {chain[at - 1][0]} "{chain[at - 1][1]}" · '
            nav += '@ref course "course map" · @ref lessons "all lessons"'
            if at + 1 < len(chain):
                nav += f' · @ref {chain[at + 1][0]} "{chain[at + 1][1]}" →'
            parts_line = ""
            if stem == "README" and len(stems) > 1:
                parts_line = "Parts of this lesson:\n" + "".join(
                    f"- @subpage lesson_{lesson}_{p}\n" for p in stems if p != "README") + "\n"
            with open(os.path.join(out, "pages", f"{lesson}-{stem}.md"), "w",
                      encoding="utf-8") as f:
                f.write(site_copy(filled[stem], lesson, stem, label, nav, parts_line))
        if mode == "build":
            render_pictures(root, lesson, out, plotter)
            render_lesson_plots(root, lesson, out, plotter)
            for figure in sorted(glob.glob(os.path.join(root, lesson, "figures", "*.svg"))):
                with open(figure, "rb") as src, \
                        open(os.path.join(out, f"{lesson}-{os.path.basename(figure)}"), "wb") as dst:
                    dst.write(src.read())
            index[lesson] = f"- @subpage lesson_{lesson} — {teaches}\n"
        elif mode == "update":
            render_pictures(root, lesson, results_dir, plotter)
            render_lesson_plots(root, lesson, results_dir, plotter)

    # the course map: its generated block (each part's tree of versions, reading time and GPU)
    map_path = os.path.join(root, "docs", "course.md")
    with open(map_path, encoding="utf-8") as f:
        course = original = f.read()
    course = splice(course, "assignments", "".join(assignments_of[x] for x in order))
    course = splice(course, "map", "| lesson | part | core path | optional | kept losses | reading "
                    "| GPU (cc ≥ 7.5 unless said) |\n|---|---|---|---|---|--:|---|\n" + course_map +
                    "\nExercises with checked solutions, built and tested like the versions "
                    "(`NN-topic/exercises/`):\n\n" + solutions_text)
    if mode != "build":
        write_or_check(root, mode, map_path, original, course, "the generated course map", problems)
    else:
        course = re.sub(r"^# ([^\n]*)\n", r"# \1 {#course}\n\n", course, count=1)
        course = re.sub(r"\]\(glossary\.md(#[a-z0-9_-]+)?\)", r"](../docs/glossary.md\1)", course)
        course = glossary_links(course)
        course = lesson_links(course)
        course = re.sub(r"\]\(\.\./README\.md\)", "](index.html)", course)
        glossary_site(root, out)
        with open(os.path.join(out, "pages", "course.md"), "w", encoding="utf-8") as f:
            f.write(course)

    # the top README: the lessons, the headline numbers, homework, new paths and kept losses
    readme_path = os.path.join(root, "README.md")
    with open(readme_path, encoding="utf-8") as f:
        readme = original = f.read()
    for name, block in (("lessons", lesson_rows), ("headline", headline),
                        ("homework", homework_rows), ("new-paths", path_rows),
                        ("losses", loss_rows)):
        readme = splice(readme, name, block)
    readme, _ = fill_markers(root, "README.md", readme, None)
    readme = splice_includes(root, readme)
    if mode != "build":
        write_or_check(root, mode, readme_path, original, readme, "its generated tables", problems)
    else:
        readme = re.sub(r"\]\(([0-9][0-9]-[a-z-]+)/README\.md\)", r"](@ref lesson_\1)", readme)
        readme = re.sub(r"\]\(docs/course\.md\)", "](@ref course)", readme)
        readme = glossary_links(readme)
        readme = re.sub(r"\]\(docs/results/([^)]+)\)", r"](\1)", readme)
        readme = re.sub(MARKERS, "", readme)
        # the main page's sections stay out of the sidebar (HTML headings are no Doxygen
        # sections), so that it shows the course map and the lessons first
        readme = re.sub(r"\n## ([^\n]*)", r"\n<h2>\1</h2>", readme)
        readme = re.sub(r"^# ([^\n]*)\n", lambda m: f"# {m.group(1)}\n\n@subpage course \"The "
                        f"course map\"\n\n@subpage lessons \"The lessons, in order\"\n\n@subpage glossary \"The "
                        f"glossary\"\n", readme,
                        count=1)
        with open(os.path.join(out, "pages", "mainpage.md"), "w", encoding="utf-8") as f:
            f.write(readme)
        with open(os.path.join(out, "pages", "lessons.md"), "w", encoding="utf-8") as f:
            f.write("# Lessons {#lessons}\n\nEach lesson is one problem, its versions one idea at a "
                    "time, measured beside the vendor library. They are listed in the order the "
                    "course map gives.\n\n" + "".join(index[lesson] for lesson in order))
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.strip().split("\n\n")[0])
    parser.add_argument("mode", choices=("update", "check", "build"))
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       ".."))
    parser.add_argument("--out", help="build: the folder for the site's pages and plots")
    args = parser.parse_args(argv[1:])
    if args.mode == "build":
        if not args.out:
            parser.error("build needs --out DIR")
        os.makedirs(os.path.join(args.out, "pages"), exist_ok=True)
    try:
        problems = run(args.root, args.mode, args.out)
    except (PagesError, lessons.DescriptionError) as e:
        print(e, file=sys.stderr)
        return 1
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print("To regenerate them, run from the repository's top: python3 docs/pages.py update",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
