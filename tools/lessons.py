#!/usr/bin/env python3
"""The lessons' declared facts, read the one way every tool reads them: each lesson's description
(NN-topic/description.txt: every version's parent, part, kind, GPU need and input type, its
exercises, the paths that start afresh, the version homework starts from) and the results schema
(common/results_columns.txt: the columns of a results row).

    python3 tools/lessons.py check ROOT     a cpu test: every description against the files, each
                                            version's @brief, its pages' versions tables and what
                                            its source asks of the GPU

The description's format is written down in docs/DESCRIPTION.md. Standard library only.
"""
import os
import re
import sys

KINDS = ("core", "optional", "loss", "superseded")
# what a version needs of the GPU, as the course map says it
GPU_NEEDS = {
    "any": "any",
    "cc8.0": "cc ≥ 8.0",
    "sm_90a": "sm_90a only, cc 9.0",
    "clusters": "clusters on cc ≥ 9.0, v1's kernel below",
    "dependent-launch": "dependent launch on cc ≥ 9.0, a plain launch below",
}


class DescriptionError(Exception):
    pass


class Version:
    def __init__(self, stem, fields):
        self.stem = stem
        self.number = int(re.match(r"^v([0-9]+)_", stem).group(1))
        self.parent = fields.get("parent", "-")
        self.part = int(fields.get("part", "1"))
        self.kind = fields.get("kind", "core")
        self.gpu = fields.get("gpu", "any")

    @property
    def new_path(self):
        """A path that starts afresh (parent "new" or "new:vK")."""
        return self.parent == "new" or self.parent.startswith("new:")

    @property
    def parent_number(self):
        """The number of the version this one starts from (None for v1 and a fresh start)."""
        m = re.match(r"^(?:new:)?v([0-9]+)$", self.parent)
        return int(m.group(1)) if m else None


class Description:
    """One lesson's description.txt."""

    def __init__(self, lesson, path):
        self.lesson = lesson
        self.path = path
        self.versions = {}  # stem -> Version, in the file's order
        self.exercises = {}  # name -> {"gpu": ...}
        self.paths = {}  # stem of a path's first version -> what the path is
        self.homework = None
        self.shapes = []  # the grader's random awkward shapes: argument templates
        self.default = {"gpu": "any"}
        self.weeks = {}  # weeks -> {"parts": [P, ...], "exercises": ["P.K", ...] or ["all"]}
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                where = f"{os.path.relpath(path)}:{number}"
                words = line.split()
                record, rest = words[0], words[1:]
                if record in ("version", "exercise", "default"):
                    name = rest[0] if record != "default" else ""
                    pairs = rest[1:] if record != "default" else rest
                    fields = {}
                    for pair in pairs:
                        if "=" not in pair:
                            raise DescriptionError(f"{where}: '{pair}' is not key=value")
                        key, value = pair.split("=", 1)
                        fields[key] = value
                    self._add(record, name, fields, where)
                elif record == "path" and len(rest) >= 2:
                    self.paths[rest[0]] = line.split(None, 2)[2]
                elif record == "homework" and len(rest) == 1:
                    self.homework = rest[0]
                elif record == "week" and rest and re.match(r"^[1-9]$", rest[0]):
                    fields = dict(pair.split("=", 1) for pair in rest[1:] if "=" in pair)
                    if set(fields) != {"parts", "exercises"} or len(fields) != len(rest) - 1:
                        raise DescriptionError(f"{where}: expected 'week N parts=P,... "
                                               f"exercises=P.K,...|all'")
                    parts = fields["parts"].split(",")
                    exercises = fields["exercises"].split(",")
                    if not all(re.match(r"^[1-9][0-9]*$", x) for x in parts) or not (
                            exercises == ["all"] or
                            all(re.match(r"^[1-9][0-9]*\.[1-9][0-9]*$", x) for x in exercises)):
                        raise DescriptionError(f"{where}: parts are numbers, exercises P.K "
                                               f"(the K-th exercise of part P's page) or all")
                    self.weeks[int(rest[0])] = {"parts": [int(x) for x in parts],
                                                "exercises": exercises}
                elif record == "shape" and rest:
                    self.shapes.append(line.split(None, 1)[1])
                else:
                    raise DescriptionError(f"{where}: not a record: {line}")

    def _add(self, record, name, fields, where):
        allowed = {"version": {"parent", "part", "kind", "gpu"},
                   "exercise": {"gpu"}, "default": {"gpu"}}[record]
        unknown = set(fields) - allowed
        if unknown:
            raise DescriptionError(f"{where}: {record} takes {', '.join(sorted(allowed))}, "
                                   f"not {', '.join(sorted(unknown))}")
        if fields.get("gpu", "any") not in GPU_NEEDS:
            raise DescriptionError(f"{where}: gpu={fields['gpu']}: expected one of "
                                   f"{', '.join(GPU_NEEDS)}")
        if record == "version":
            if not re.match(r"^v[0-9]+_[a-z0-9_]+$", name):
                raise DescriptionError(f"{where}: '{name}' is no version name (vN_what)")
            if fields.get("kind", "core") not in KINDS:
                raise DescriptionError(f"{where}: kind={fields['kind']}: expected one of "
                                       f"{', '.join(KINDS)}")
            if not re.match(r"^(-|new|(new:)?v[0-9]+)$", fields.get("parent", "-")):
                raise DescriptionError(f"{where}: parent={fields['parent']}: expected -, vK, "
                                       f"new or new:vK")
            if not re.match(r"^[1-9][0-9]*$", fields.get("part", "1")):
                raise DescriptionError(f"{where}: part={fields['part']}: expected a number")
            self.versions[name] = Version(name, fields)
        elif record == "exercise":
            self.exercises[name] = {"gpu": fields.get("gpu", "any")}
        else:
            self.default.update(fields)

    def by_number(self):
        return sorted(self.versions.values(), key=lambda v: v.number)

    def part_versions(self, part):
        return [v for v in self.by_number() if v.part == part]

    def parts(self):
        return sorted({v.part for v in self.versions.values()})


def lesson_dirs(root):
    return sorted(d for d in os.listdir(root)
                  if re.match(r"^[0-9][0-9]-[a-z-]+$", d) and
                  os.path.exists(os.path.join(root, d, "README.md")))


def read_description(root, lesson):
    path = os.path.join(root, lesson, "description.txt")
    if not os.path.exists(path):
        raise DescriptionError(f"{lesson}: no description.txt (docs/DESCRIPTION.md says what it "
                               f"holds)")
    return Description(lesson, path)


def read_schema(root):
    """The columns of a results row: (names, the number a program prints; the runner adds the
    rest)."""
    names, program = [], 0
    with open(os.path.join(root, "common", "results_columns.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            names.append(line[0])
            if len(line) == 1:
                program = len(names)
    return names, program


# ---- The check ----------------------------------------------------------------------------------

def brief_of(path):
    """The @brief of a version file, with its continuation lines joined."""
    with open(path, encoding="utf-8") as f:
        head = f.read(4000)
    m = re.search(r"@brief ([^\n]*(\n \* [^\n@]+)*)", head)
    return re.sub(r"\n \* ", " ", m.group(1)) if m else ""


def gpu_asked_by(path):
    """What a source's own device check asks of the GPU (the check, not the description, is what
    runs): the same words the description uses."""
    with open(path, encoding="utf-8") as f:
        code = f.read()
    m = re.search(r"(cl_require_compute_capability|gemm_require_device)\(([0-9]+), ([0-9]+), ([01])",
                  code)
    if m:
        return "sm_90a" if m.group(4) == "1" else f"cc{m.group(2)}.{m.group(3)}"
    if "#if __CUDA_ARCH__ >= 900" in code and "__cluster" in code:
        return "clusters"
    if "#if __CUDA_ARCH__ >= 900" in code and "griddepcontrol" in code:
        return "dependent-launch"
    return "any"


def part_pages(root, lesson):
    """Part number -> the page that teaches it: README.md is part 1, partN-<name>.md part N."""
    pages = {1: os.path.join(root, lesson, "README.md")}
    for name in sorted(os.listdir(os.path.join(root, lesson))):
        m = re.match(r"^part([0-9]+)-[a-z0-9-]+\.md$", name)
        if m:
            pages[int(m.group(1))] = os.path.join(root, lesson, name)
    return pages


def table_versions(text):
    """The rows of a page's versions table in order: (stem, the step cell's first word)."""
    rows = []
    generated = False  # the measured versions table the pages engine writes is not this one
    for line in text.split("\n"):
        if re.match(r'^<!-- versions "[^"]*":(begin|end) -->', line):
            generated = line.endswith(":begin -->")
            continue
        m = re.match(r"^\| `(v[0-9]+_[a-z0-9_]+)(\.cu)?` \|([^|]*)\|", line)
        if m and not generated:
            rows.append((m.group(1), m.group(3).strip().split(",")[0].split(" ")[0]))
    return rows


def check_lesson(root, lesson):
    problems = []
    try:
        d = read_description(root, lesson)
    except DescriptionError as e:
        return [str(e)]
    folder = os.path.join(root, lesson)
    rel = f"{lesson}/description.txt"
    files = sorted(f[:-3] for f in os.listdir(folder) if re.match(r"^v[0-9]+_[a-z0-9_]+\.cu$", f))
    for stem in files:
        if stem not in d.versions and not stem.endswith("_mine"):
            problems.append(f"{rel}: {stem}.cu is not described: add a line "
                            f"'version {stem} parent=vK part=P kind=core gpu=any' (with its parent, "
                            f"part, kind and GPU need)")
    for stem in d.versions:
        if stem not in files:
            problems.append(f"{rel}: {stem}.cu, described, does not exist")
    numbers = [v.number for v in d.by_number()]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"{rel}: the versions are not numbered 1 to {len(numbers)} without gaps")
    exercises_dir = os.path.join(folder, "exercises")
    solutions = sorted(f[:-3] for f in os.listdir(exercises_dir)
                       if f.endswith(".cu")) if os.path.isdir(exercises_dir) else []
    for name in solutions:
        if name not in d.exercises:
            problems.append(f"{rel}: exercises/{name}.cu is not described: add a line "
                            f"'exercise {name} gpu=any'")
    for name in d.exercises:
        if name not in solutions:
            problems.append(f"{rel}: exercises/{name}.cu, described, does not exist")
    if d.homework is None or d.homework not in d.versions:
        problems.append(f"{rel}: 'homework vK_name' must name a described version")
    pages = part_pages(root, lesson)
    for v in d.by_number():
        path = os.path.join(folder, v.stem + ".cu")
        if not os.path.exists(path):
            continue
        brief = brief_of(path)
        k = v.number
        if v.new_path:
            if not brief.startswith(f"v{k}: a new path"):
                problems.append(f"{lesson}/{v.stem}.cu: its @brief should start 'v{k}: a new "
                                f"path' (description: parent={v.parent})")
            elif v.parent.startswith("new:") and v.parent[4:] not in brief:
                problems.append(f"{lesson}/{v.stem}.cu: its @brief should name {v.parent[4:]}, "
                                f"where the description says the path starts")
            if v.stem not in d.paths:
                problems.append(f"{rel}: {v.stem} starts a path: add 'path {v.stem} <what it is>'")
        elif v.parent == "-":
            if k != 1 or not brief.startswith(f"v{k}: "):
                problems.append(f"{lesson}/{v.stem}.cu: only v1 has no parent "
                                f"(description: parent=-)")
        elif not re.match(rf"^v{k}: {v.parent}[ ,:]", brief):
            problems.append(f"{lesson}/{v.stem}.cu: its @brief should start 'v{k}: {v.parent} "
                            f"with …' (description: parent={v.parent}); it reads '{brief[:60]}'")
        if v.parent_number is not None and v.parent_number >= k:
            problems.append(f"{rel}: {v.stem}'s parent {v.parent} comes after it")
        asked = gpu_asked_by(path)
        if asked != v.gpu:
            problems.append(f"{rel}: {v.stem} gpu={v.gpu}, but its source asks for {asked}")
        if v.part not in pages:
            problems.append(f"{rel}: {v.stem} is in part {v.part}, which has no page")
    for name, e in d.exercises.items():
        path = os.path.join(exercises_dir, name + ".cu")
        if os.path.exists(path) and gpu_asked_by(path) != e["gpu"]:
            problems.append(f"{rel}: exercise {name} gpu={e['gpu']}, but its source asks for "
                            f"{gpu_asked_by(path)}")
    for part, page in sorted(pages.items()):
        with open(page, encoding="utf-8") as f:
            rows = table_versions(f.read())
        want = [(v.stem, v.kind) for v in d.part_versions(part)]
        # a part is what an instructor assigns in a sitting or two: its core path is short
        core = [s for s, k in want if k == "core"]
        if len(core) > MAX_CORE:
            problems.append(f"{rel}: part {part} has {len(core)} core versions, more than "
                            f"{MAX_CORE}: mark the steps a student may skip optional")
        if len(want) > MAX_PART_VERSIONS:
            problems.append(f"{rel}: part {part} has {len(want)} versions, more than "
                            f"{MAX_PART_VERSIONS}: split the part")
        if rows != want:
            problems.append(f"{os.path.relpath(page, root)}: its versions table lists "
                            f"{' '.join(f'{s}({k})' for s, k in rows) or 'nothing'}; the "
                            f"description's part {part} is "
                            f"{' '.join(f'{s}({k})' for s, k in want) or 'empty'}")
    problems += check_excerpts(root, lesson, [page for _, page in sorted(pages.items())])
    return problems


def code_text(path_list):
    """The code of the files, comments taken out and all white space made one space: the text a
    page's excerpt is looked up in (so that a line the formatter wrapped still matches)."""
    text = ""
    for path in path_list:
        with open(path, encoding="utf-8") as f:
            text += f.read() + "\n"
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return " " + re.sub(r"\s+", " ", text) + " "


def excerpt_line(line):
    """A line of a page's code block as code: its comment taken out, white space made one space;
    empty when nothing is left or the line elides code ("..." or "…" anywhere)."""
    if "..." in line or "\u2026" in line:
        return ""
    line = re.sub(r"/\*.*?(\*/|$)", " ", line)
    line = re.sub(r"//.*$", " ", line)
    return re.sub(r"\s+", " ", line).strip()


def check_excerpts(root, lesson, pages):
    """Every step's code on a lesson's pages quotes the code (the contract: a page shows the changed
    lines of every step): under '### vA → vB', each line of a ```c or ```cuda block, comments aside,
    is code of vB; in a ```diff block a '-' line is vA's, a '+' line vB's, a ' ' line either's.
    The lesson's other sources (headers, ptx.h, the harness) count as both, since a step may show
    the helper it calls. Lines that elide ("...") are not checked."""
    problems = []
    folder = os.path.join(root, lesson)
    shared = [os.path.join(folder, f) for f in sorted(os.listdir(folder))
              if re.match(r"^[a-z_]+\.(h|cuh|cu)$", f)]
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        steps = re.finditer(r"^### (?:.* )?(v[0-9]+) → (v[0-9]+)[^\n]*\n(.*?)(?=^#{2,3} |\Z)",
                            text, flags=re.S | re.M)
        for step in steps:
            source = {}
            for k in (step.group(1), step.group(2)):
                found = [f for f in os.listdir(folder) if re.match(rf"^{k}_[a-z0-9_]+\.cu$", f)]
                source[k] = code_text([os.path.join(folder, f) for f in found] + shared)
            parent, child = source[step.group(1)], source[step.group(2)]
            for block in re.finditer(r"^```(c|cuda|diff)\n(.*?)^```", step.group(3),
                                     flags=re.S | re.M):
                in_comment = False  # inside a /* ... */ that an earlier line opened
                for line in block.group(2).split("\n"):
                    if block.group(1) == "diff":
                        mark, line = line[:1], line[1:]
                        pools = {"-": [parent], "+": [child]}.get(mark, [parent, child])
                    else:
                        pools = [child]
                    code_part = line
                    if in_comment:
                        code_part = line.split("*/", 1)[1] if "*/" in line else ""
                    in_comment = (in_comment and "*/" not in line) or \
                        code_part.rfind("/*") > code_part.rfind("*/")
                    code = excerpt_line(code_part)
                    if code and not any(f" {code} " in pool for pool in pools):
                        problems.append(f"{os.path.relpath(page, root)}: "
                                        f"{step.group(1)} → {step.group(2)} quotes a line its "
                                        f"source does not hold: {line.strip()}")
    return problems


MAX_CORE = 8  # core versions in a part
MAX_PART_VERSIONS = 10  # versions in a part


def check(root):
    problems = []
    for lesson in lesson_dirs(root):
        problems += check_lesson(root, lesson)
    try:
        names, program = read_schema(root)
        if len(set(names)) != len(names) or not 0 < program <= len(names):
            problems.append("common/results_columns.txt: names repeat, or no program column")
    except OSError as e:
        problems.append(f"common/results_columns.txt: {e}")
    return problems


def main(argv):
    if len(argv) != 3 or argv[1] != "check":
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    problems = check(argv[2])
    for p in problems:
        print(p)
    print(f"lessons.py check: {len(lesson_dirs(argv[2]))} lessons, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
