#!/usr/bin/env python3
"""Unit tests of tools/lessons.py's page checks on made-up lessons (no GPU, no build): that a
step's code on a page must quote its sources, and that the check fails where it should."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lessons  # noqa: E402

V1 = """/* @brief v1: the first. */
static __device__ float twice(float x) { return 2.0f * x; }
__global__ void kernel(float *y, const float *x, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = twice(x[i]);
}
"""
V2 = """/* @brief v2: v1 with a grid-stride loop. */
static __device__ float twice(float x) { return 2.0f * x; }
__global__ void kernel(float *y, const float *x, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) /* a loop the formatter wrapped */
        y[i] = twice(x[i]);
}
"""


def problems_for(step_code):
    with tempfile.TemporaryDirectory() as root:
        folder = os.path.join(root, "01-fake")
        os.makedirs(folder)
        for name, text in (("v1_first.cu", V1), ("v2_loop.cu", V2)):
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)
        page = os.path.join(folder, "README.md")
        with open(page, "w", encoding="utf-8") as f:
            f.write("# fake\n\n### v1 → v2: a loop\n\n" + step_code + "\n## Measured\n")
        return lessons.check_excerpts(root, "01-fake", [page])


def test():
    failures = []

    def expect(what, code, count):
        found = problems_for(code)
        if len(found) != count:
            failures.append(f"{what}: expected {count} problem(s), found {found}")

    expect("a faithful excerpt, a wrapped line joined, a comment of the page's own",
           "```c\n    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * "
           "blockDim.x) /* the page's note */\n        y[i] = twice(x[i]);\n```\n", 0)
    expect("a line the source does not hold", "```c\n        y[i] = 3.0f * x[i];\n```\n", 1)
    expect("an elided line is not checked", "```c\n    ... as v1 ...\n```\n", 0)
    expect("a note over several comment lines",
           "```c\n    /* the loop: each thread takes\n       every stride-th value */\n```\n", 0)
    expect("a diff: '-' from the parent, '+' from the step",
           "```diff\n-    if (i < n)\n+    for (int i = blockIdx.x * blockDim.x + threadIdx.x; "
           "i < n;\n```\n", 0)
    expect("a diff whose '-' line is the step's, not the parent's",
           "```diff\n-         i += gridDim.x * blockDim.x)\n```\n", 1)
    expect("a diff whose '+' line is only the parent's", "```diff\n+    if (i < n)\n```\n", 1)
    for f in failures:
        print(f, file=sys.stderr)
    print(f"test_lessons: {7 - len(failures)} of 7 cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(test())
