"""Figures of lesson 06-atomics-counting: `python3 06-atomics-counting/figures/make.py` writes figures/*.svg."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import (ACTIVE, ACTIVE_LIGHT, GOOD, GOOD_LIGHT, GRID, HOT, HOT_LIGHT, IDLE, INK, MUTED,  # noqa: E402
                    SHADES, header, notes)  # noqa: E402

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


# 3. v7: the merge path over floats and container ends.
def merge_path():
    fig = svgfig.Figure(820, 270, "v7: a merge path over every float and every container end")
    header(fig, "v6 → v7: the merge path, every block the same work",
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


# 4. v8: long containers cut into pieces for a second kernel.
def pieces():
    fig = svgfig.Figure(820, 330, "v8: long containers cut into pieces")
    header(fig, "v6 → v8: split only the long containers",
           "Toy sizes: containers over 6 floats are long, pieces of 4 (the lesson: over 128, "
           "pieces of 512).")
    size = 22
    x0 = 40
    fig.text(x0, 90, "first kernel: lane groups sum the short containers (v6); a long one is listed "
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


def lane_dot(fig, x, y, lane, fill=ACTIVE, r=9):
    """A lane: a small circle with its number."""
    fig.circle(x, y, r, fill=fill)
    fig.text(x, y + 4, str(lane), size=10, anchor="middle", color="white" if fill == ACTIVE else INK,
             bold=True)


def shaded(lengths):
    """The fill of each float: its container's shade."""
    fills = []
    for c, n in enumerate(lengths):
        fills += [SHADES[c % len(SHADES)]] * n
    return fills


def starts_of(lengths):
    out = [0]
    for n in lengths:
        out.append(out[-1] + n)
    return out


RUN = [1, 4, 2, 5, 1, 3, 6, 2]  # a warp's 8 short containers (toy sizes), 24 floats


# 5. v9 -> v10: a warp's run of short containers staged in shared memory, then walked there.
def staged_run():
    fig = svgfig.Figure(820, 350, "v10: a warp's short containers staged in shared memory")
    header(fig, "v9 → v10: stage the run, then walk it in shared memory",
           "Toy sizes: 8 lanes, 8 short containers of 24 floats in all, a chunk of 32 (the lesson: "
           "32 lanes, chunks of 640).")
    size = 20
    x0 = 110
    fills = shaded(RUN) + [IDLE] * 8
    off = starts_of(RUN)
    fig.text(16, 80, "1. Load: lane l reads floats 4l … 4l + 3, one 16-byte load, every load in "
             "flight before the first store.", size=13)
    ly = 104
    for lane in range(8):
        lx = x0 + (4 * lane + 2) * size
        busy = 4 * lane < off[-1]
        lane_dot(fig, lx, ly, lane, fill=ACTIVE if busy else IDLE)
        if busy:
            x1, x2 = x0 + 4 * lane * size + 2, x0 + (4 * lane + 4) * size - 2
            fig.line(x1, 128, x2, 128, color=ACTIVE, width=2)
            fig.line(x1, 128, x1, 133, color=ACTIVE, width=2)
            fig.line(x2, 128, x2, 133, color=ACTIVE, width=2)
            fig.arrow(lx, ly + 10, lx, 127, color=GOOD, width=1.2)
    gy = 136
    fig.text(16, gy + 15, "values[]", size=13, bold=True)
    fig.cells(x0, gy, 32, size, fills)
    for b in off:
        fig.line(x0 + b * size, gy - 4, x0 + b * size, gy + size + 4, width=2)
    fig.text(x0 + 28 * size, gy + 14, "past the run", size=11, anchor="middle", color=MUTED)
    sy = 196
    fig.text(16, sy - 20, "store", size=12, color=MUTED)
    for lane in range(8):
        lx = x0 + (4 * lane + 2) * size
        fig.arrow(lx, gy + size + 2, lx, sy - 2, color=MUTED if 4 * lane >= off[-1] else GOOD,
                  width=1.2, dash="3 3" if 4 * lane >= off[-1] else None)
    fig.text(16, sy + 15, "staged[]", size=13, bold=True)
    steps = []
    for n in RUN:
        steps += [str(s + 1) for s in range(n)]
    fig.cells(x0, sy, 32, size, fills, steps + ["0"] * 8, label_size=10)
    for b in off:
        fig.line(x0 + b * size, sy - 4, x0 + b * size, sy + size + 4, width=2)
    wy = 250
    for c in range(len(RUN)):
        cx = x0 + (off[c] + RUN[c] / 2) * size
        lane_dot(fig, cx, wy, c)
        fig.arrow(cx, wy - 10, x0 + (off[c] + 0.5) * size, sy + size + 2, color=ACTIVE, width=1)
    notes(fig, 16, 290, [
        "2. Walk: lane c adds its own container's floats from shared memory, one per step (the "
        "number in each cell).",
        "The warp takes 6 steps, as many as its longest container holds, while lane 0 is done after "
        "one.",
        "A long container (over 128 floats) cuts a warp's lanes into runs, and its floats go to the "
        "pieces.",
    ], size=13)
    svgfig.save(fig, "staged_run")


def slice_segments(lengths, slice_len, lanes):
    """Per lane, its slice's segments as [first float, last float, container]; and the starts."""
    owner = []
    for c, n in enumerate(lengths):
        owner += [c] * n
    starts = set(starts_of(lengths)[:-1])
    out = []
    for lane in range(lanes):
        segs = []
        a = lane * slice_len
        for p in range(a, a + slice_len):
            if p == a or p in starts:
                segs.append([p, p, owner[p]])
            else:
                segs[-1][1] = p
        out.append(segs)
    return out, starts


# 6. v12 -> v13: equal slices of the staged chunk, a segmented scan across the lanes.
def equal_slices():
    fig = svgfig.Figure(820, 460, "v13: equal slices of the staged chunk and a segmented scan")
    header(fig, "v12 → v13: equal slices, whatever the containers",
           "Toy sizes: 8 lanes, a staged chunk of 24 floats, slices of 3 (the lesson: 32 lanes, 384 "
           "floats, slices of 12).")
    size = 30
    x0 = 50
    slice_len = 3
    off = starts_of(RUN)
    segs, starts = slice_segments(RUN, slice_len, 8)
    owner = []
    for c, n in enumerate(RUN):
        owner += [c] * n
    fig.text(x0, 78, "The staged chunk, each container a shade and its number; ▼ a container's "
             "start, a bit of the bitmap.", size=13)
    ly = 100
    for lane in range(8):
        lane_dot(fig, x0 + (lane + 0.5) * slice_len * size, ly, lane)
    for lane in range(9):
        x = x0 + lane * slice_len * size
        fig.line(x, ly + 14, x, 250, color=ACTIVE, width=1, dash="4 3")
    cy = 132
    for p in sorted(starts):
        tx = x0 + p * size + 7
        fig.path(f"M {tx - 5} {cy - 12} L {tx + 5} {cy - 12} L {tx} {cy - 3} z", width=1, fill=INK)
    fig.cells(x0, cy, 24, size, shaded(RUN), [str(c) for c in owner], label_size=12)
    for b in off:
        fig.line(x0 + b * size, cy - 2, x0 + b * size, cy + size + 4, width=2)
    # 1: each lane walks its slice by segments
    wy = 180
    fig.text(20, wy + 12, "1", size=16, bold=True, color=ACTIVE)
    for ss in segs:
        for k, (a, b, c) in enumerate(ss):
            x1, x2 = x0 + a * size + 3, x0 + (b + 1) * size - 3
            fig.rect(x1, wy, x2 - x1, 16, fill=SHADES[c % len(SHADES)], stroke=INK)
            if k < len(ss) - 1:  # closed at a mark inside the slice: its sum is stored
                fig.rect(x2 - 9, wy, 9, 16, fill=GOOD, stroke=INK)
            else:  # open at the slice's end
                fig.arrow(x2 - 8, wy + 8, x2 + 6, wy + 8, width=1.5)
    # 2: the segmented scan carries each open segment to the next lane
    sy = 232
    fig.text(20, sy + 6, "2", size=16, bold=True, color=ACTIVE)
    for lane in range(8):
        bx = x0 + (lane + 1) * slice_len * size
        c = owner[(lane + 1) * slice_len - 1]
        fig.arrow(bx - 34, sy, bx + 32, sy, color=HOT, width=2)
        fig.rect(bx - 9, sy - 24, 18, 16, fill=SHADES[c % len(SHADES)], stroke=INK)
        fig.text(bx, sy - 12, str(c), size=11, anchor="middle")
    # 3: the sums, each at its container's last float; lane c reads container c's
    ry = 270
    fig.text(20, ry + 16, "3", size=16, bold=True, color=ACTIVE)
    lasts = [off[c + 1] - 1 for c in range(len(RUN))]
    fig.cells(x0, ry, 24, size, [GOOD if p in lasts else IDLE for p in range(24)],
              ["Σ" + str(owner[p]) if p in lasts else "" for p in range(24)], label_size=11)
    oy = 334
    for c in range(len(RUN)):
        ox = x0 + (c * 3 + 1.5) * size
        lane_dot(fig, ox, oy, c)
        fig.arrow(ox, oy - 10, x0 + (lasts[c] + 0.5) * size, ry + size + 2, color=GOOD, width=1)
    notes(fig, 16, 374, [
        "1: each lane sums its 3 floats by segments, closing one at each ▼ (its sum stored at its "
        "last float, green);",
        "the segment still open at the slice's end (→) goes on in the next slice.",
        "2: a scan over the lanes adds up the open segments, cut where a lane holds a ▼ "
        "(container 6 crosses three slices).",
        "3: every container's sum now lies at its last float, where lane c reads container c's.",
    ], size=13)
    svgfig.save(fig, "equal_slices")


TILE = [1, 2, 1, 3, 1, 2, 2, 1, 1, 2, 1, 3, 1, 1, 1, 1]  # 16 containers of mean 1.5, 24 floats


# 7. v13 -> v14: several containers per lane, so that a warp's chunk is full.
def lane_tiles():
    fig = svgfig.Figure(820, 430, "v14: several containers per lane, a tile per warp")
    header(fig, "v13 → v14: a tile of containers per warp, k per lane",
           "Toy sizes: 8 lanes, a chunk of 24 floats, mean length 1.5: k = 24 / (8 · 1.5) = 2 "
           "(the lesson, mean 4: k = 3).")
    size = 30
    x0 = 50
    # v13: one container per lane
    y = 96
    fig.text(x0, y - 16, "v13: lane c owns container c; the warp's 8 containers fill 13 of the "
             "24 floats", size=13, bold=True)
    first = TILE[:8]
    off = starts_of(first)
    fills = shaded(first) + [IDLE] * (24 - off[-1])
    for c in range(8):
        lane_dot(fig, x0 + (off[c] + first[c] / 2) * size, y + 8, c)
    fig.cells(x0, y + 28, 24, size, fills)
    for b in off:
        fig.line(x0 + b * size, y + 24, x0 + b * size, y + 28 + size + 4, width=2)
    for s in range(9):
        fig.line(x0 + 3 * s * size, y + 28 + size + 2, x0 + 3 * s * size, y + 28 + size + 12,
                 color=ACTIVE, width=1.5)
    fig.text(x0 + 24 * size + 6, y + 28 + size + 12, "slices", size=11, color=ACTIVE)
    fig.text(x0 + (off[-1] + (24 - off[-1]) / 2) * size, y + 28 + size / 2 + 5,
             "no container's, walked all the same", size=12, anchor="middle", color=HOT)
    # v14: k = 2 containers per lane
    y = 226
    fig.text(x0, y - 16, "v14: lane l owns containers 2l and 2l + 1; the tile of 16 fills the "
             "chunk", size=13, bold=True)
    off = starts_of(TILE)
    for lane in range(8):
        a, b = off[2 * lane], off[2 * lane + 2]
        fig.line(x0 + a * size + 3, y + 18, x0 + b * size - 3, y + 18, color=ACTIVE, width=2)
        fig.line(x0 + a * size + 3, y + 18, x0 + a * size + 3, y + 24, color=ACTIVE, width=2)
        fig.line(x0 + b * size - 3, y + 18, x0 + b * size - 3, y + 24, color=ACTIVE, width=2)
        lane_dot(fig, x0 + (a + b) / 2 * size, y + 6, lane)
    labels = []
    for c, n in enumerate(TILE):
        labels += [str(c)] * n
    fig.cells(x0, y + 28, 24, size, shaded(TILE), labels, label_size=11)
    for b in off:
        fig.line(x0 + b * size, y + 24, x0 + b * size, y + 28 + size + 4, width=2)
    for s in range(9):
        fig.line(x0 + 3 * s * size, y + 28 + size + 2, x0 + 3 * s * size, y + 28 + size + 12,
                 color=ACTIVE, width=1.5)
    fig.text(x0 + 24 * size + 6, y + 28 + size + 12, "slices", size=11, color=ACTIVE)
    # the lane's bounds in shared memory
    ty = 336
    fig.text(x0, ty - 16, "at[r][lane], in shared memory: lane l's bounds, 32-bit, relative to "
             "the run", size=13)
    cw = 30
    tx = x0 + 70
    for lane in range(8):
        lane_dot(fig, tx + lane * cw + cw / 2, ty + 4, lane, r=8)
    ty += 16
    for r in range(3):
        fig.text(tx - 10, ty + r * 22 + 15, f"r = {r}", size=12, anchor="end")
        row = [str(off[2 * lane + r]) for lane in range(8)]
        for lane in range(8):
            fig.rect(tx + lane * cw, ty + r * 22, cw, 22, fill=ACTIVE_LIGHT, stroke=GRID)
            fig.text(tx + lane * cw + cw / 2, ty + r * 22 + 15, row[lane], size=11, anchor="middle")
    notes(fig, tx + 8 * cw + 20, ty + 8, [
        "A column per lane: where its 2 containers",
        "start, and where the second ends. Lane l",
        "marks those starts in the bitmap; the walk",
        "is v13's: equal slices, the segmented scan.",
    ], size=13)
    svgfig.save(fig, "lane_tiles")


# v14 -> v15: a block's slot is freed only when its last warp is done (a schematic, not to scale).
WALKS = [3, 2, 3, 8, 2, 3, 2, 3]  # one warp's walk per warp of a block: one slow among quick ones


def small_blocks():
    fig = svgfig.Figure(820, 360, "v15: blocks of 4 warps, so a slow warp holds up fewer")
    header(fig, "v14 → v15: blocks of 4 warps",
           "The same 8 warps over time, one walking a tile with several times the floats (a schematic).")
    unit = 30

    def panel(x0, y, title, blocks):
        fig.text(x0 - 112, y, title, size=14, bold=True)
        row = 0
        for b, warps in enumerate(blocks):
            done = max(WALKS[w] for w in warps)
            for w in warps:
                ty = y + 14 + row * 24
                fig.text(x0 - 8, ty + 15, f"block {b}, warp {w % len(warps)}", size=12, anchor="end")
                fig.rect(x0, ty, WALKS[w] * unit, 20, fill=HOT if WALKS[w] == 8 else ACTIVE,
                         stroke=GRID)
                if WALKS[w] < done:
                    fig.rect(x0 + WALKS[w] * unit, ty, (done - WALKS[w]) * unit, 20,
                             fill=HOT_LIGHT, stroke=GRID)
                if done < 8:
                    fig.rect(x0 + done * unit, ty, (8 - done) * unit, 20, fill=IDLE, stroke=GRID)
                row += 1
            top, bottom = y + 10 + (row - len(warps)) * 24, y + 38 + (row - 1) * 24
            fig.line(x0 + done * unit, top, x0 + done * unit, bottom, color=INK, width=2)
            if done < 8:
                fig.text(x0 + done * unit + 6, bottom + 12, "slot free: the next block", size=11,
                         color=GOOD)

    panel(136, 76, "v14: one block of 8 warps", [list(range(8))])
    panel(540, 76, "v15: two blocks of 4", [[0, 1, 2, 3], [4, 5, 6, 7]])
    notes(fig, 16, 318, [
        "Blue: a warp walks its containers; orange: the slow one; light orange: done, waiting at "
        "the block's count, its registers",
        "and shared memory held. v14: 7 warps wait for the slow one. v15: 3 wait, and the other "
        "block's slot goes to the next block."], size=13)
    svgfig.save(fig, "small_blocks")


def short_tails():
    fig = svgfig.Figure(820, 330, "v16: a run's last few floats summed in registers")
    header(fig, "v15 → v16: a run's tail in registers, not in one more chunk",
           "Toy sizes: 8 lanes, a chunk of 24 floats, a run of 27 floats (the lesson: 32 lanes, "
           "384 floats, up to 32 past the chunk).")
    size = 22
    x0 = 40
    run = [3, 2, 4, 1, 3, 2, 4, 3, 2, 3]  # toy container lengths: 27 floats
    fills = shaded(run)
    y = 92
    fig.text(x0, y - 12, "v15: the 3 floats past the chunk take a second chunk", size=13,
             bold=True)
    fig.cells(x0, y, 24, size, fills[:24])
    x1 = x0 + 24 * size + 24
    fig.cells(x1, y, 3, size, fills[24:])
    fig.rect(x1 + 3 * size, y, 5 * size, size, fill=IDLE, stroke=GRID)
    fig.text(x0 + 12 * size, y + size + 18, "chunk 1: staged, bitmap, slices, scan", size=12,
             anchor="middle")
    fig.text(x1 + 4 * size, y + size + 18, "chunk 2: all of it again", size=12,
             anchor="middle", color=HOT)
    fig.text(x1 + 4 * size, y + size + 34, "for 3 floats", size=12, anchor="middle", color=HOT)
    y = 200
    fig.text(x0, y - 12, "v16: the tail comes with chunk 1, one float per lane, in registers",
             size=13, bold=True)
    fig.cells(x0, y, 24, size, fills[:24])
    fig.text(x0 + 12 * size, y + size + 18, "chunk 1: as before", size=12, anchor="middle")
    for lane in range(8):
        lane_dot(fig, x1 + lane * size + size / 2, y - 4 + 0, lane, r=8)
    fig.cells(x1, y + 8, 3, size, fills[24:])
    fig.cells(x1 + 3 * size, y + 8, 5, size, IDLE, "0", label_size=11)
    fig.text(x1 + 4 * size, y + size + 26, "a start mask by shuffles,", size=12,
             anchor="middle", color=GOOD)
    fig.text(x1 + 4 * size, y + size + 42, "one scan (chain_open)", size=12, anchor="middle",
             color=GOOD)
    notes(fig, 16, 306, [
        "On uniform lengths about half the runs spill a few floats past their chunk; v16 loads "
        "them with the chunk's loads."], size=13)
    svgfig.save(fig, "short_tails")


def dependent_launch():
    fig = svgfig.Figure(820, 320, "v17: less between the two kernels")
    header(fig, "v16 → v17: less between the two kernels",
           "One call at 2^20 containers over time (a schematic, not to scale).")
    x0, unit = 120, 26

    def bar(y, start, length, label, fill, color=INK):
        fig.labeled_box(x0 + start * unit, y, length * unit, 26, label, fill, color=color)

    y = 86
    fig.text(x0 - 10, y + 17, "v16", size=14, bold=True, anchor="end")
    bar(y, 0, 2, "memset", HOT_LIGHT)
    bar(y, 2.6, 12, "short kernel", ACTIVE_LIGHT)
    bar(y, 15.4, 1.2, "", IDLE)
    bar(y, 16.6, 8, "pieces: every block a ticket", HOT_LIGHT)
    fig.text(x0 + 2.3 * unit, y + 44, "gap", size=11, anchor="middle", color=MUTED)
    fig.text(x0 + 16 * unit, y + 44, "launch", size=11, anchor="middle", color=MUTED)
    y = 176
    fig.text(x0 - 10, y + 17, "v17", size=14, bold=True, anchor="end")
    bar(y, 0, 12, "short kernel, its count into the list", ACTIVE_LIGHT)
    fig.rect(x0 + 11.4 * unit, y + 30, 0.9 * unit, 20, fill=IDLE, stroke=GRID, dash="4 3")
    fig.text(x0 + 11.8 * unit, y + 64, "pieces launched as the short kernel's last block leaves,",
             size=11, anchor="middle", color=MUTED)
    fig.text(x0 + 11.8 * unit, y + 78, "its blocks waiting for the writes (griddepcontrol.wait)",
             size=11, anchor="middle", color=MUTED)
    bar(y, 12, 3, "pieces", GOOD_LIGHT)
    fig.text(x0 + 15.2 * unit, y + 17, "a ticket only from blocks with pieces (and block 0)",
             size=12, color=GOOD)
    notes(fig, 16, 290, [
        "v17 saves the memset, most of the gap between the kernels and the tickets of blocks "
        "with no piece:",
        "a few microseconds a call, whatever the size, so it matters most at 2^20."], size=13)
    svgfig.save(fig, "dependent_launch")


if __name__ == "__main__":
    csr()
    lane_groups()
    merge_path()
    pieces()
    staged_run()
    equal_slices()
    lane_tiles()
    small_blocks()
    short_tails()
    dependent_launch()
