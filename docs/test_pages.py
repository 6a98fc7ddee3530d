#!/usr/bin/env python3
"""Unit tests of the pages engine (docs/pages.py) and the lessons' descriptions (tools/lessons.py),
on small made-up inputs: the markers, the tables, the course map's trees, the README's tables and
the description's checks. A cpu test (docs/pages-engine-units)."""
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import lessons  # noqa: E402
import pages  # noqa: E402

SCHEMA, _ = lessons.read_schema(os.path.join(HERE, ".."))


def row(version, case, ms, rate, pct, check="PASS", speedup="1.00x", vs="1.000x",
        ceiling="read bandwidth"):
    cells = {"lesson": "09-test", "version": version, "case": case, "n": "1", "device": "GPU",
             "cc": "9.0", "driver": "13.0", "cuda": "13.0", "date": "2026-11-28",
             "median_ms": ms, "min_ms": ms, "throughput": rate, "unit": "GB/s",
             "ceiling": "100.00", "ceiling_name": ceiling, "pct_of_ceiling": pct, "check": check,
             "error": "1e-08", "tolerance": "1e-06", "speedup_vs_v1": speedup, "vs_baseline": vs}
    return ",".join(cells[name] for name in SCHEMA)


class Course(unittest.TestCase):
    """A made-up course of one lesson in a temporary folder."""

    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        os.makedirs(os.path.join(self.root, "docs", "results"))
        os.makedirs(os.path.join(self.root, "common"))
        shutil.copy(os.path.join(HERE, "..", "common", "results_columns.txt"),
                    os.path.join(self.root, "common"))
        self.write("docs/results/09-test.csv", "\n".join([
            ",".join(SCHEMA),
            row("v1_a", "n=1", "2.0", "50.00", "50.0", vs="0.500x"),
            row("v2_b", "n=1", "1.0", "100.00", "99.0", speedup="2.00x", vs="1.000x"),
            row("baseline_lib", "n=1", "1.0", "100.00", "99.0", vs="1.000x"),
            row("v1_a", "n=2", "2.0", "50.00", "50.0", vs="0.800x"),
            row("v2_b", "n=2", "2.0", "60.00", "60.0", check="FAIL", vs="0.800x"),
            row("baseline_lib", "n=2", "1.6", "62.50", "62.5", vs="1.000x")]) + "\n")

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def results(self):
        return pages.Results(os.path.join(self.root, "docs/results/09-test.csv"), SCHEMA)


class WhereItWins(Course):
    def test_a_step_that_pays_here_or_elsewhere_or_nowhere(self):
        r = self.results()
        self.assertEqual(pages.where_it_wins([r], "v2_b", "v1_a", "n=1"), "here")
        # v2 fails its check at n=2: that case cannot show a win
        self.assertEqual(pages.where_it_wins([r], "v1_a", "v2_b", "n=1"), "nowhere measured")
        self.assertEqual(pages.where_it_wins([r], "baseline_lib", "v1_a", "n=2"), "here")
        self.assertEqual(pages.where_it_wins([r], "v1_a", "baseline_lib", "n=2"), "nowhere measured")
        self.assertEqual(pages.where_it_wins([r], "v2_b", "baseline_lib", "n=1"), "nowhere measured")

    def test_the_best_case_elsewhere_is_named(self):
        r = self.results()
        self.assertEqual(pages.where_it_wins([r], "baseline_lib", "v1_a", "n=9"),
                         "`n=1` (2.00×)")


class Markers(Course):
    def test_m_marker_takes_the_field(self):
        text, _ = pages.fill_markers(self.root, "t", '<!--m v2_b "n=1" pct-->?<!--/m-->',
                                     self.results())
        self.assertEqual(text, '<!--m v2_b "n=1" pct-->99.0%<!--/m-->')

    def test_best_is_the_fastest_passing_version(self):
        r = self.results()
        self.assertEqual(r.best["n=1"], "v2_b")
        self.assertEqual(r.best["n=2"], "v1_a")  # v2_b failed its check there

    def test_goal_counts_and_says_its_verdict(self):
        text = ('<!--goal best "n=1" vs >= 1.0-->?<!--/goal--> '
                '<!--goal best "n=2" pct >= 90-->?<!--/goal--> <!--status-->?<!--/status-->')
        text, goals = pages.fill_markers(self.root, "t", text, self.results())
        self.assertIn("**met**: 1.000× (v2_b)", text)
        self.assertIn("**not met**: 50.0% (v1_a)", text)
        self.assertIn("<!--status-->1 of 2 goals met<!--/status-->", text)
        self.assertEqual((goals.goals, goals.met), (1 + 1, 1))

    def test_geomean_over_matching_cases(self):
        text, _ = pages.fill_markers(self.root, "t", '<!--m best "n=(1\\|2)" geomean-->?<!--/m-->',
                                     self.results())
        self.assertIn("0.894× over 2 cases", text)  # sqrt(1.0 * 0.8)

    def test_scoped_markers_wait_for_their_results(self):
        text, _ = pages.fill_markers(self.root, "t", '<!--m v2_b "sweep: n=1" pct-->?<!--/m-->',
                                     self.results())
        self.assertIn("-->?<!--", text)  # a sweep marker is left for the sweep's results

    def test_q_and_qv_quote_an_evidence_line(self):
        self.write("docs/results/e.txt", "alpha 1\nbeta  2,3\nbeta 4\n")
        text, _ = pages.fill_markers(
            self.root, "t", '<!--q e.txt "^beta" 2-->?<!--/q--> <!--qv e.txt "^beta" f2-->?<!--/qv-->',
            None)
        self.assertEqual(text, '<!--q e.txt "^beta" 2-->`beta 4`<!--/q--> '
                               '<!--qv e.txt "^beta" f2-->3<!--/qv-->')

    def test_a_missing_row_is_an_error(self):
        with self.assertRaises(pages.PagesError):
            pages.fill_markers(self.root, "t", '<!--m v9_x "n=1" pct-->?<!--/m-->', self.results())

    def test_splice_replaces_between_its_markers(self):
        self.assertEqual(pages.splice("a<!-- x:begin -->old<!-- x:end -->b", "x", "new\n"),
                         "a<!-- x:begin -->\nnew\n<!-- x:end -->b")


class Tables(Course):
    def test_runner_table_cuts_at_five_cases(self):
        r = self.results()
        r.cases = [f"n={i}" for i in range(1, 8)]
        block = pages.results_block(r, "09-test", "09-test", "results", None, None)
        self.assertIn("| version | 1 | 2 | 3 | 4 | 5 |\n", block)
        self.assertIn("| version | 6 | 7 |\n", block)
        self.assertIn("| v2_b | 99.0% (1.000×) | FAIL |", block)

    def test_sweep_table_names_the_best(self):
        block = pages.results_block(self.results(), "09-test", "09-test-sweep", "sweep", None, None)
        self.assertIn("| # | case | v1_a | v2_b | baseline_lib | best |\n", block)
        self.assertIn("| 2 | `n=2` | 50.0% (0.800×) | FAIL | 62.5% (1.000×) | v1 |", block)


class Descriptions(Course):
    DESCRIPTION = ("version v1_a parent=- part=1 kind=core gpu=any\n"
                   "version v2_b parent=v1 part=1 kind=loss gpu=any\n"
                   "version v3_c parent=v2 part=1 kind=core gpu=any\n"
                   "version v4_d parent=new:v1 part=2 kind=core gpu=sm_90a\n"
                   "version v5_e parent=v3 part=2 kind=optional gpu=sm_90a\n"
                   "path v4_d another way\nhomework v3_c\n")

    def lesson(self, description=None):
        self.write("09-test/description.txt", description or self.DESCRIPTION)
        self.write("09-test/README.md", "# 09-test: a\n\n| version | step |\n|---|---|\n"
                   "| `v1_a.cu` | core |\n| `v2_b.cu` | loss |\n| `v3_c.cu` | core |\n")
        self.write("09-test/part2-b.md", "# 09-test, part 2: b\n\n| `v4_d.cu` | core |\n"
                   "| `v5_e.cu` | optional |\n")
        briefs = {"v1_a": "v1: first.", "v2_b": "v2: v1 with b.", "v3_c": "v3: v2 with c.",
                  "v4_d": "v4: a new path from v1.", "v5_e": "v5: v3 with e."}
        for stem, brief in briefs.items():
            check = ("cl_require_compute_capability(9, 0, 1, \"x\");" if stem in ("v4_d", "v5_e")
                     else "")
            self.write(f"09-test/{stem}.cu", f"/**\n * @brief {brief}\n */\n{check}\n")
        return lessons.read_description(self.root, "09-test")

    def test_a_consistent_lesson_passes(self):
        self.lesson()
        self.assertEqual(lessons.check_lesson(self.root, "09-test"), [])

    def test_the_tree_shows_branches_and_kinds(self):
        d = self.lesson()
        self.assertEqual(pages.path_tree(d.part_versions(1)), "v1 → v2 (loss) → v3")
        self.assertEqual(pages.path_tree(d.part_versions(2)),
                         "(new, from v1) v4; (from v3) v5 (optional)")
        # a part whose every version needs more than any GPU does not start with "any"
        self.assertEqual(pages.gpu_column(d.part_versions(2)), "v4–v5: sm_90a only, cc 9.0")
        self.assertEqual(pages.gpu_column(d.part_versions(1)), "any")

    def test_readme_tables_follow_the_description(self):
        d = self.lesson()
        self.write("09-test/v6_mine.cu", "/** @brief v6: v3 with mine. */\n")  # a student's copy
        homework, paths = pages.lesson_tables(d)
        self.assertEqual(homework, "| 09-test | `v3_c.cu` | `v6_mine.cu` |\n")
        self.assertEqual(paths, "| 09-test | v4–v5 | another way |\n")
        self.assertEqual(lessons.check_lesson(self.root, "09-test"), [])

    def test_a_wrong_parent_is_caught(self):
        self.lesson(self.DESCRIPTION.replace("v3_c parent=v2", "v3_c parent=v1"))
        self.assertTrue(any("should start 'v3: v1 with" in p
                            for p in lessons.check_lesson(self.root, "09-test")))

    def test_a_wrong_kind_or_gpu_is_caught(self):
        self.lesson(self.DESCRIPTION.replace("kind=loss", "kind=core").replace(
            "v5_e parent=v3 part=2 kind=optional gpu=sm_90a", "v5_e parent=v3 part=2 kind=optional gpu=any"))
        problems = lessons.check_lesson(self.root, "09-test")
        self.assertTrue(any("versions table lists" in p for p in problems))
        self.assertTrue(any("v5_e gpu=any, but its source asks for sm_90a" in p for p in problems))

    def test_an_undescribed_version_says_what_to_add(self):
        self.lesson()
        self.write("09-test/v6_f.cu", "/** @brief v6: v5 with f. */\n")
        self.assertTrue(any("add a line 'version v6_f" in p
                            for p in lessons.check_lesson(self.root, "09-test")))

    def test_a_bad_record_is_refused(self):
        with self.assertRaises(lessons.DescriptionError):
            self.lesson(self.DESCRIPTION + "version v7_g parent=v6 kind=sometimes\n")

    def test_assignments_name_parts_versions_and_exercises(self):
        d = self.lesson(self.DESCRIPTION + "week 1 parts=1 exercises=1.2\n"
                        "week 2 parts=1,2 exercises=all\n")
        text = pages.assignments(d, {1: "a", 2: "b"}, {1: ["Alpha", "Beta"], 2: ["Gamma"]}, "t")
        self.assertIn("One week: part 1, a: v1, v3 to do; v2 (a kept loss) to read; "
                      "the exercise “Beta”.", text)
        self.assertIn("Two weeks: add part 2, b: v4 to do; v5 (optional) to read; "
                      "the exercises “Alpha” and “Gamma”.", text)

    def test_an_assignment_of_a_missing_exercise_is_refused(self):
        d = self.lesson(self.DESCRIPTION + "week 1 parts=1 exercises=1.3\n")
        with self.assertRaises(pages.PagesError):
            pages.assignments(d, {1: "a"}, {1: ["Alpha", "Beta"]}, "t")

    def test_a_bad_week_is_refused(self):
        with self.assertRaises(lessons.DescriptionError):
            self.lesson(self.DESCRIPTION + "week 1 parts=1 exercises=first\n")

    def test_more_than_eight_core_versions_in_a_part_are_caught(self):
        extra = "".join(f"version v{k}_x parent=v{k - 1} part=2 kind=core gpu=sm_90a\n"
                        for k in range(6, 14))
        self.lesson(self.DESCRIPTION + extra)
        self.assertTrue(any("part 2 has 9 core versions" in p
                            for p in lessons.check_lesson(self.root, "09-test")))

    def test_exercise_names_come_from_the_exercises_section(self):
        page = ("# t\n\n1. **Not this** one.\n\n## Exercises\n\n1. **The first** (*no GPU*). x\n"
                "2. **The second** (*any CUDA GPU*). y\n\n## After\n\n3. **Nor this**.\n")
        self.assertEqual(pages.exercise_names(page), ["The first", "The second"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
