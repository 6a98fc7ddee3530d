"""svgfig: the one way this repository draws the pictures of its ideas.

Every lesson's `figures/make.py` imports this module, draws each figure with the few shapes below
and writes `figures/<name>.svg`; the SVG is committed beside the script that makes it, and the cpu
test `docs/figures-current` fails if a script no longer makes what is committed. Plain Python 3,
no packages: a student can change a figure with a text editor and `python3 figures/make.py`.

House style, so that every figure reads alike at page width (GitHub's column is about 830 px,
the site's about 900): a figure is at most 820 units wide, text is 13-15 units in a sans-serif
font, the palette below names what a colour means, and each figure's caption lives on the page.
`save` refuses a figure whose text runs past its edge or out of the boxes it sits in, measured
with the house font's own advance widths (tools/svgfig_widths.py, read from DejaVu Sans).
"""
import os
import sys
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgfig_widths  # noqa: E402  the house fonts' advance widths, read from the fonts

# What a colour means, across all lessons.
INK = "#222222"  # text, outlines
GRID = "#bbbbbb"  # cell borders, light guides
IDLE = "#f2f2f2"  # an idle lane, an unused cell
ACTIVE = "#4c8bd6"  # a thread or lane at work
ACTIVE_LIGHT = "#c9dcf3"  # data one thread or block owns
HOT = "#e0793a"  # a conflict, a stall, a cost
HOT_LIGHT = "#f8d7c1"
GOOD = "#3f9e5a"  # the fix, a result that is done
GOOD_LIGHT = "#cfe8d6"
MUTED = "#666666"  # secondary text
SHADES = ["#c9dcf3", "#f8d7c1", "#cfe8d6", "#e6d3f0", "#f5ecb8", "#d9d9d9", "#bfe3e6", "#f3c9d8"]

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"


class Figure:
    """A list of SVG elements on a canvas of width x height units."""

    def __init__(self, width, height, title):
        self.width, self.height, self.title = width, height, title
        self.items = []
        self.boxes = []  # (x, y, w, h) of every rect: a text inside one must fit in it
        self.texts = []  # (left, right, x, y, size, text) of every text, as the font sets it

    def rect(self, x, y, w, h, fill="none", stroke=INK, width=1.0, dash=None, radius=0):
        self.boxes.append((x, y, w, h))
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        extra += f' rx="{radius}"' if radius else ""
        self.items.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width:g}"{extra}/>'
        )

    def text(self, x, y, s, size=14, anchor="start", color=INK, bold=False, italic=False, mono=False):
        style = ' font-weight="bold"' if bold else ""
        style += ' font-style="italic"' if italic else ""
        family = "DejaVu Sans Mono, Menlo, Consolas, monospace" if mono else FONT
        extent = text_width(str(s), size, bold, mono)
        left = x - {"start": 0, "middle": extent / 2, "end": extent}[anchor]
        self.texts.append((left, left + extent, x, y, size, str(s)))
        self.items.append(
            f'<text x="{x:g}" y="{y:g}" font-family="{family}" font-size="{size:g}" '
            f'text-anchor="{anchor}" fill="{color}"{style}>{escape(str(s))}</text>'
        )

    def line(self, x1, y1, x2, y2, color=INK, width=1.5, arrow=False, dash=None):
        extra = ' marker-end="url(#arrow)"' if arrow else ""
        extra += f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(
            f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{color}" '
            f'stroke-width="{width:g}"{extra}/>'
        )

    def arrow(self, x1, y1, x2, y2, color=INK, width=1.5, dash=None):
        self.line(x1, y1, x2, y2, color, width, arrow=True, dash=dash)

    def path(self, d, color=INK, width=1.5, fill="none", arrow=False):
        extra = ' marker-end="url(#arrow)"' if arrow else ""
        self.items.append(
            f'<path d="{d}" stroke="{color}" stroke-width="{width:g}" fill="{fill}"{extra}/>'
        )

    def circle(self, x, y, r, fill=ACTIVE, stroke=INK, width=1.0):
        self.items.append(
            f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="{width:g}"/>'
        )

    def cells(self, x, y, n, size, fills, labels=None, label_size=12, stroke=GRID):
        """A row of n square cells from (x, y); fills and labels are lists (or one value)."""
        for i in range(n):
            fill = fills[i] if isinstance(fills, (list, tuple)) else fills
            self.rect(x + i * size, y, size, size, fill=fill, stroke=stroke)
            if labels is not None:
                label = labels[i] if isinstance(labels, (list, tuple)) else labels
                if label != "":
                    self.text(x + i * size + size / 2, y + size / 2 + label_size * 0.36, label,
                              size=label_size, anchor="middle")

    def labeled_box(self, x, y, w, h, label, fill, size=12, color=INK, stroke=GRID):
        """A box from (x, y), w wide and h tall, with label centred in it: a span on a timeline,
        a stage of a pipeline."""
        self.rect(x, y, w, h, fill=fill, stroke=stroke)
        if label:
            self.text(x + w / 2, y + h / 2 + size * 0.36, label, size=size, anchor="middle",
                      color=color)

    def svg(self):
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:g}" '
            f'height="{self.height:g}" viewBox="0 0 {self.width:g} {self.height:g}" '
            f'role="img" aria-label="{escape(self.title)}">\n'
            f"<title>{escape(self.title)}</title>\n"
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
            f'fill="{INK}"/></marker></defs>\n'
            f'<rect width="100%" height="100%" fill="white"/>\n'
        )
        return head + "\n".join(self.items) + "\n</svg>\n"


def header(fig, title, subtitle):
    """A figure's bold title and its one-line subtitle, at the top left."""
    fig.text(16, 26, title, size=16, bold=True)
    fig.text(16, 47, subtitle, size=13, color=MUTED)


def notes(fig, x, y, lines, size=13, step=18, color=INK):
    """Lines of text from (x, y) down, step units apart."""
    for k, line in enumerate(lines):
        fig.text(x, y + k * step, line, size=size, color=color)


def text_width(s, size, bold=False, mono=False):
    """How wide S is set in the house font at SIZE units: the sum of its characters' advance
    widths (a character the table lacks counts a full em, so that it errs wide)."""
    if mono:
        return len(s) * svgfig_widths.MONO * size
    table = svgfig_widths.BOLD if bold else svgfig_widths.REGULAR
    return sum(table.get(ord(c), 1.0) for c in s) * size


# A text may touch its box's edge by this much (the glyphs' side bearings are inside the advance).
SLACK = 1.0


def overflows(fig):
    """Each text that runs past the figure's edge, or whose anchor sits in a box (a rect at least
    as tall as the text) and whose extent the boxes of its line (a row of cells, say) do not
    cover: one line each."""
    problems = []
    for left, right, x, y, size, s in fig.texts:
        if left < -SLACK or right > fig.width + SLACK:
            problems.append(f"'{s}' spans x = {left:.0f}..{right:.0f}, past the figure's "
                            f"0..{fig.width:g}")
            continue
        middle = y - size * 0.35  # the middle of a line of capitals, above the baseline
        line = sorted((bx, bx + w) for bx, by, w, h in fig.boxes
                      if by <= middle <= by + h and h >= size and w > 0)
        if not any(a <= x <= b for a, b in line):
            continue  # free text: the figure's edge is its box
        covered = left + SLACK  # how far from the left the boxes cover the text without a gap
        for a, b in line:
            if a - SLACK <= covered:
                covered = max(covered, b)
        if not any(a - SLACK <= left for a, _ in line) or covered + SLACK < right:
            problems.append(f"'{s}' spans x = {left:.0f}..{right:.0f}, past the boxes it sits in")
    return problems


def save(fig, name):
    """Writes figures/<name>.svg beside the calling make.py (or into $SVGFIG_OUT, for the test),
    and refuses a figure wider than the page's column or with text that runs out of its box."""
    if fig.width > 820:
        raise SystemExit(f"svgfig: {name} is {fig.width} units wide; the page column holds 820")
    problems = overflows(fig)
    if problems:
        raise SystemExit(f"svgfig: {name}: text overflows (set in DejaVu Sans, as a reader's "
                         f"browser does):\n  " + "\n  ".join(problems))
    out_dir = os.environ.get("SVGFIG_OUT") or os.path.dirname(os.path.abspath(sys.argv[0]))
    with open(os.path.join(out_dir, name + ".svg"), "w", encoding="utf-8") as f:
        f.write(fig.svg())
