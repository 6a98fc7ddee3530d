#!/usr/bin/env python3
"""Unit tests of the figure kit's overflow check (tools/svgfig.py): text measured with the house
font's own advance widths must stay inside the figure and inside the boxes it sits in. A cpu test
(docs/figures-kit)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgfig  # noqa: E402


class Overflow(unittest.TestCase):
    def test_widths_are_the_fonts(self):
        # DejaVu Sans: 'M' is 1767 of 2048 units wide, 'i' 569; bold 'M' 2038; mono 1233
        self.assertAlmostEqual(svgfig.text_width("M", 100), 86.28, places=1)
        self.assertAlmostEqual(svgfig.text_width("i", 100), 27.78, places=1)
        self.assertAlmostEqual(svgfig.text_width("M", 100, bold=True), 99.51, places=1)
        self.assertAlmostEqual(svgfig.text_width("Mi", 100, mono=True), 120.42, places=1)

    def test_text_past_the_edge_is_caught(self):
        fig = svgfig.Figure(200, 50, "t")
        fig.text(10, 30, "a line far too long for a figure this narrow", size=14)
        self.assertEqual(len(svgfig.overflows(fig)), 1)
        fig = svgfig.Figure(200, 50, "t")
        fig.text(190, 30, "end", size=14, anchor="end")
        self.assertEqual(svgfig.overflows(fig), [])

    def test_text_out_of_its_box_is_caught(self):
        fig = svgfig.Figure(400, 100, "t")
        fig.rect(10, 10, 40, 30)
        fig.text(30, 30, "a label wider than its cell", size=13, anchor="middle")
        self.assertEqual(len(svgfig.overflows(fig)), 1)

    def test_text_over_a_row_of_cells_or_free_text_passes(self):
        fig = svgfig.Figure(400, 100, "t")
        for k in range(8):
            fig.rect(10 + 20 * k, 10, 20, 30)
        fig.text(90, 30, "over eight cells", size=13, anchor="middle")
        fig.text(10, 80, "free text below them", size=13)
        self.assertEqual(svgfig.overflows(fig), [])

    def test_a_gap_in_the_row_is_caught(self):
        fig = svgfig.Figure(400, 100, "t")
        fig.rect(10, 10, 40, 30)
        fig.rect(90, 10, 40, 30)
        fig.text(12, 30, "across the gap to the next", size=13)
        self.assertEqual(len(svgfig.overflows(fig)), 1)


if __name__ == "__main__":
    unittest.main(verbosity=1)
