"""Figures of lesson 06-atomics-counting: `python3 06-atomics-counting/figures/make.py` writes figures/*.svg."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import ACTIVE, GOOD, GRID, HOT, IDLE, INK, MUTED, SHADES, header, notes  # noqa: E402

LENGTHS = [3, 1, 5, 2, 12, 1, 4]  # toy container lengths: one long among short ones
VALUES = [0.5, 1.5, -0.5, 2.0, 1.0, 0.5, 1.5, -1.0, 0.5, 1.0, 0.5, 1.5, 1.0, 0.5, 1.5, 1.0, -0.5,
          1.0, 0.5, 1.5, 2.0, 1.0, 0.5, -0.5, 1.0, 1.5, 0.5, 1.0]


def offsets():
    out = [0]
    for n in LENGTHS:
        out.append(out[-1] + n)
    return out


def values_row(fig, x, y, size, label=True):
    """The values array, each container in its own shade; returns the cell x of each float."""
    off = offsets()
    fills = []
    for c, n in enumerate(LENGTHS):
        fills += [SHADES[c % len(SHADES)]] * n
    fig.cells(x, y, len(fills), size, fills, [f"{v:g}" for v in VALUES[:len(fills)]] if label
              else None, label_size=10)
    for c in range(len(LENGTHS) + 1):
        fig.line(x + off[c] * size, y - 6, x + off[c] * size, y + size + 6, color=INK, width=2)
    return off


# 1. The CSR layout: one array of floats, n + 1 offsets.
def csr():
    fig = svgfig.Figure(820, 300, "CSR: one array of floats and n + 1 offsets")
    header(fig, "The input: containers in CSR",
           "Toy sizes: 7 containers, 28 floats; container 4 is the long one the power law draws.")
    size = 26
    x0 = 40
    fig.text(x0, 92, "values[] (each container a shade; thick lines: container boundaries)", size=13)
    off = values_row(fig, x0, 104, size)
    fig.cells(x0, 188, len(off), 40, IDLE, [str(o) for o in off], label_size=12)
    fig.text(x0 + len(off) * 40 + 12, 212, "offsets[]: n + 1 of them, 64-bit", size=13)
    for c in range(len(off)):
        fig.arrow(x0 + c * 40 + 20, 188, x0 + off[c] * size, 134, color=MUTED, width=0.8)
    notes(fig, x0, 256, ["Container c holds values[offsets[c] .. offsets[c + 1]); count those whose "
                         "sum is greater than the limit.",
                         "Lengths are fixed, uniform, or a power law: most containers short, a few "
                         "very long."], size=13)
    svgfig.save(fig, "csr")


# 2. v4 -> v5: a thread per container against four lanes per container.
def lane_groups():
    fig = svgfig.Figure(820, 330, "v5: four lanes per container, reading side by side")
    header(fig, "v4 → v5: coalescing, four lanes per container",
           "Toy sizes: 8 containers of 4 floats, one load of 8 lanes (a warp has 32); an arrow is one "
           "lane's float in it.")
    size = 22
    x0 = 40
    lens = [4] * 8
    total = sum(lens)
    fills = []
    for c, n in enumerate(lens):
        fills += [SHADES[c % len(SHADES)]] * n
    for row, (title, y) in enumerate([("v4: lane l walks container l alone (first load: its first "
                                       "float)", 96), ("v5: lanes 4c … 4c + 3 read container c's "
                                                       "floats side by side", 206)]):
        fig.text(x0, y - 12, title, size=13, bold=True)
        fig.cells(x0, y + 40, total, size, fills)
        for c in range(len(lens) + 1):
            fig.line(x0 + 4 * c * size, y + 34, x0 + 4 * c * size, y + 40 + size + 6, width=2)
        for lane in range(8):
            lx = x0 + lane * 40 + 14
            fig.circle(lx, y + 10, 9, fill=ACTIVE)
            fig.text(lx, y + 14, str(lane), size=10, anchor="middle", color="white", bold=True)
            target = 4 * lane if row == 0 else lane  # v5: lanes 0-3 on container 0, 4-7 on 1
            fig.arrow(lx, y + 20, x0 + target * size + size / 2, y + 40, color=HOT if row == 0
                      else GOOD, width=1)
    notes(fig, x0, 312, ["v4: one float per container per load, scattered over many 32-byte "
                         "sectors; v5: neighbouring floats, whole sectors."], size=13)
    svgfig.save(fig, "lane_groups")


# 3. v6: the merge path over floats and container ends.
def merge_path():
    fig = svgfig.Figure(820, 270, "v6: a merge path over every float and every container end")
    header(fig, "v5 → v6: the merge path, every block the same work",
           "The floats and the container ends as one merged list, cut into equal tiles of items.")
    size = 20
    x0 = 40
    items = []  # ("v", container) for a float, ("e", container) for an end
    for c, n in enumerate(LENGTHS):
        items += [("v", c)] * n + [("e", c)]
    fills = [SHADES[c % len(SHADES)] if k == "v" else INK for k, c in items]
    labels = ["" if k == "v" else "|" for k, c in items]
    fig.text(x0, 92, "merged list: the floats of container 0, its end, the floats of container 1, "
             "its end, …", size=13)
    fig.cells(x0, 104, len(items), size, fills, labels, label_size=11)
    tile = 7
    for t in range((len(items) + tile - 1) // tile):
        x = x0 + t * tile * size
        w = min(tile, len(items) - t * tile) * size
        fig.rect(x, 140, w, 26, fill=GOOD if t % 2 == 0 else "#8cc79c", stroke=INK)
        fig.text(x + w / 2, 158, f"block {t}: {min(tile, len(items) - t * tile)} items", size=11,
                 anchor="middle", color="white", bold=True)
    notes(fig, x0, 200, [
        "Each block finds its tile's start by a search of the offsets (the merge path), sums its "
        "floats by container,",
        "and a container that a tile edge cuts (here containers 2, 3 and 4) is finished in a slot by "
        "whichever block",
        "comes last. Balanced on every distribution; but every item pays for the search, the scan "
        "and the slots.",
    ], size=13)
    svgfig.save(fig, "merge_path")


# 4. v7: long containers cut into pieces for a second kernel.
def pieces():
    fig = svgfig.Figure(820, 330, "v7: long containers cut into pieces")
    header(fig, "v5 → v7: split only the long containers",
           "Toy sizes: containers over 6 floats are long, pieces of 4 (the lesson: over 128, "
           "pieces of 512).")
    size = 22
    x0 = 40
    fig.text(x0, 90, "first kernel: lane groups sum the short containers (v5); a long one is listed "
             "as pieces", size=13)
    off = values_row(fig, x0, 104, size, label=False)
    long_c = 4
    start, end = off[long_c], off[long_c + 1]
    piece = 4
    y = 190
    fig.text(x0, y + 50, "the piece list (one atomicAdd reserves a run of places): second kernel, "
             "a warp per piece", size=13)
    k = 0
    for p0 in range(start, end, piece):
        n = min(piece, end - p0)
        px = x0 + 60 + k * 150
        fig.rect(px, y, 120, 30, fill=SHADES[long_c % len(SHADES)], stroke=INK)
        fig.text(px + 60, y + 20, f"piece {k}: {n} floats", size=12, anchor="middle")
        fig.arrow(x0 + (p0 + n / 2) * size, 134, px + 60, y, color=MUTED, width=1)
        k += 1
    fig.rect(x0 + 60 + k * 150, y, 150, 30, fill=GOOD, stroke=INK)
    fig.text(x0 + 60 + k * 150 + 75, y + 20, "slot: sum + ticket", size=12, anchor="middle",
             color="white", bold=True)
    notes(fig, x0, 284, [
        "Each warp adds its piece into the container's slot and draws a ticket; the warp with the "
        "last ticket has the whole sum",
        "and counts it. Short containers never wait for a long one, and a long one is read by "
        "many warps at once.",
    ], size=13)
    svgfig.save(fig, "pieces")


if __name__ == "__main__":
    csr()
    lane_groups()
    merge_path()
    pieces()
