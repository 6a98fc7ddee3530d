"""Figures of lesson 07-control-flow: `python3 07-control-flow/figures/make.py` writes the SVGs."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import ACTIVE, ACTIVE_LIGHT, GOOD, GRID, HOT, HOT_LIGHT, IDLE, INK, MUTED  # noqa: E402


def header(fig, title, subtitle):
    fig.text(16, 24, title, size=16, bold=True)
    fig.text(16, 44, subtitle, size=13, color=MUTED)


def swatch(fig, x, y, fill, label, stroke=GRID):
    fig.rect(x, y - 11, 14, 14, fill=fill, stroke=stroke)
    fig.text(x + 20, y, label, size=13)


# 1. v3 -> v4: one warp's 32 pixels as a row or as a tile, on a real patch of the boundary view.
W, MAXITER = 4096, 1024  # the page's boundary case: --n 4096 --view boundary
PATCH_X, PATCH_Y = 3840, 1360  # a 32 x 16 patch that crosses the set (warp-aligned)


def escape_patch():
    """Escape counts of the patch, as reference.c's view (in double here, not the pinned float)."""
    side = 0.01
    left, top, step = -0.7445 - side / 2, 0.1155 + side / 2, side / W
    rows = []
    for py in range(PATCH_Y, PATCH_Y + 16):
        row = []
        for px in range(PATCH_X, PATCH_X + 32):
            cx, cy = left + (px + 0.5) * step, top - (py + 0.5) * step
            x = y = x2 = y2 = 0.0
            count = 0
            while count < MAXITER and x2 + y2 <= 4.0:
                y = 2.0 * x * y + cy
                x = x2 - y2 + cx
                x2, y2 = x * x, y * y
                count += 1
            row.append(count)
        rows.append(row)
    return rows


def footprint_stats(counts):
    m, mean = max(counts), sum(counts) / len(counts)
    return m, mean, 32 * mean / m  # lanes busy on average = 32 * mean / max


def bar_panel(fig, x, y, counts, color, title):
    m, mean, busy = footprint_stats(counts)
    fig.text(x, y, title, size=14, bold=True, color=color)
    bw, h, top = 11, 72, y + 10
    for i, c in enumerate(counts):
        fig.rect(x + i * bw, top, bw, h, fill=IDLE, stroke="none")
        fig.rect(x + i * bw, top + h * (1 - c / MAXITER), bw, h * c / MAXITER, fill=ACTIVE,
                 stroke="white", width=0.5)
    fig.rect(x, top + h * (1 - m / MAXITER), 32 * bw, h * m / MAXITER, stroke=color, width=2)
    fig.text(x - 6, top + 10, str(MAXITER), size=12, anchor="end", color=MUTED)
    fig.text(x - 6, top + h, "0", size=12, anchor="end", color=MUTED)
    fig.text(x, top + h + 18, f"max {m}, mean {mean:.0f}: {busy:.1f} of 32 lanes busy", size=13)
    return m, mean


def warp_footprint():
    counts = escape_patch()
    rows = [counts[r] for r in range(16)]
    tiles = [[counts[ty * 4 + j][tx * 8 + i] for j in range(4) for i in range(8)]
             for ty in range(4) for tx in range(4)]
    # whole-patch lanes busy: all the work over 32 x the sum of the warps' maxima
    total = sum(map(sum, rows))
    row_busy = total / sum(map(max, rows))
    tile_busy = total / sum(map(max, tiles))
    # the footprints drawn: the typical ones, busy lanes closest to the patch-wide figure
    r = min(range(16), key=lambda k: (abs(footprint_stats(rows[k])[2] - row_busy), k))
    t = min(range(16), key=lambda k: (abs(footprint_stats(tiles[k])[2] - tile_busy), k))
    fig = svgfig.Figure(820, 380, "One warp's 32 pixels as a row (v3) or as an 8 by 4 tile (v4)")
    header(fig, "v3 → v4: one warp's 32 pixels, as a row or as a tile",
           "A warp runs until its slowest lane escapes: work = 32 × max of its 32 counts.")
    cell, x0, y0 = 11, 20, 64
    lo = min(map(min, rows))  # grey from 245 (the patch's lowest count) to 60 (1023), log scale
    for py in range(16):
        for px in range(32):
            c = counts[py][px]
            g = 0 if c >= MAXITER else round(245 - 185 * math.log(c / lo) / math.log(MAXITER / lo))
            fig.rect(x0 + px * cell, y0 + py * cell, cell, cell, fill=f"#{g:02x}{g:02x}{g:02x}",
                     stroke="none")
    fig.rect(x0, y0 + r * cell, 32 * cell, cell, stroke=HOT, width=3)
    tx, ty = t % 4, t // 4
    fig.rect(x0 + tx * 8 * cell, y0 + ty * 4 * cell, 8 * cell, 4 * cell, stroke=GOOD, width=3)
    for i, s in enumerate([f"32 × 16 pixels of the boundary view, W = {W},",
                           f"maxiter {MAXITER}, counted in double precision here:",
                           "darker = more iterations, black = inside"]):
        fig.text(x0, y0 + 16 * cell + 20 + 17 * i, s, size=13, color=MUTED)
    bar_panel(fig, 440, 76, rows[r], HOT, f"v3: the 32 × 1 row (row {r})")
    bar_panel(fig, 440, 204, tiles[t], GOOD, "v4: the 8 × 4 tile")
    fig.text(440, 322, "blue: iterating; grey: idle until the warp's max",
             size=13, color=MUTED)
    missing_r = sum(max(v) < MAXITER for v in rows)
    missing_t = sum(max(v) < MAXITER for v in tiles)
    fig.text(20, 350, f"Whole patch: rows keep {row_busy:.1f} of 32 lanes busy, tiles "
             f"{tile_busy:.1f} (ncu, whole boundary view: 20.9 → 22.2). {missing_r} of 16 rows",
             size=13)
    fig.text(20, 368, f"and {missing_t} of 16 tiles miss the set (max < {MAXITER}): the gain is "
             "there, and it is modest.", size=13)
    svgfig.save(fig, "warp_footprint")
    return [(r, footprint_stats(rows[r])), (t, footprint_stats(tiles[t])), row_busy, tile_busy]


# 2. v8 against v10: lanes over time (a fixed list of escape counts, blocks of 16 steps).
BLOCK, SLIVER = 16, 16  # a refill's end steps + colour + store + setup, drawn as one block's time
FIRST = [96, 212, 148, 300, 176, 64, 230, 188, 120, 256, 140, 284, 84, 198, 164, 240,
         110, 172, 268, 52, 206, 150, 290, 132, 180, 76, 224, 160, 248, 104, 196, 136]
QUEUE = [180, 60, 244, 132, 88, 270, 150, 40, 206, 118, 170, 94, 228, 70, 140, 258,
         100, 186, 54, 212, 126, 160, 82, 236, 112, 196, 66, 148, 250, 90, 174, 124] * 2
SHOWN = 16  # lanes drawn of the 32


def blocks_of(count):
    return BLOCK * -(-count // BLOCK)  # the block in which the escape is seen ends here


def simulate_refill(end):
    """v10 over [0, end): the slivers (time, finishing lanes) and each lane's pixel start times."""
    left = [blocks_of(c) for c in FIRST]
    starts = [[0] for _ in FIRST]
    queue, t, slivers = iter(QUEUE), 0, []
    while t < end:
        dt = min(left)  # blocks of 16 for all lanes until some lane's block escapes
        t += dt
        left = [v - dt for v in left]
        done = [i for i, v in enumerate(left) if v == 0]
        slivers.append((t, done))
        t += SLIVER
        for i in done:
            left[i] = blocks_of(next(queue))
            starts[i].append(t)
    return [(t, d) for t, d in slivers if t < end], starts


def lane_timeline():
    fig = svgfig.Figure(820, 416, "Lanes of one warp over time in v8 and in v10")
    header(fig, "Inside one warp: v8 lanes wait for the slowest, v10 lanes refill",
           f"{SHOWN} of the warp's 32 lanes shown; escape counts from a fixed list, "
           "blocks of 16 steps; widths schematic.")
    x0, x1, rh = 74, 800, 7
    t_v8 = blocks_of(max(FIRST))
    end = t_v8 + SLIVER
    sx = lambda t: x0 + (x1 - x0) * min(t, end) / end

    def lanes_frame(y, title):
        fig.text(16, y - 8, title, size=14, bold=True)
        fig.text(66, y + rh, "lane 0", size=12, anchor="end")
        fig.text(66, y + SHOWN * rh, f"lane {SHOWN - 1}", size=12, anchor="end")

    y = 84  # v8: idle from a lane's escaping block to the slowest lane's, then the end together
    idle = sum(t_v8 - blocks_of(c) for c in FIRST) / (32 * end)
    lanes_frame(y, f"v8: each lane runs one pixel, then idles — idle: {idle:.0%} of the "
                   "lane-time")
    for i in range(SHOWN):
        b = blocks_of(FIRST[i])
        fig.rect(sx(0), y + i * rh, sx(b) - sx(0), rh, fill=ACTIVE, stroke="white", width=0.5)
        fig.rect(sx(b), y + i * rh, sx(t_v8) - sx(b), rh, fill=IDLE, stroke="white", width=0.5)
    fig.rect(sx(t_v8), y, sx(end) - sx(t_v8), SHOWN * rh, fill=ACTIVE_LIGHT, stroke="none")
    fig.text((sx(t_v8) + sx(end)) / 2, y - 8, "end", size=12, anchor="middle")
    fig.text(x1, y + SHOWN * rh + 18, "then all 32 lanes end together: end steps, colour, store, "
             "once per 32 pixels", size=12, anchor="end", color=MUTED)

    y = 244  # v10: the same lanes, refilled; each refill stops the whole warp for a sliver
    slivers, starts = simulate_refill(end)
    masked = sum((32 - len(d)) * (min(t + SLIVER, end) - t) for t, d in slivers) / (32 * end)
    lanes_frame(y, f"v10: a lane takes a new pixel at once — masked off: {masked:.0%} of "
                   "the lane-time")
    for i in range(SHOWN):
        fig.rect(sx(0), y + i * rh, sx(end) - sx(0), rh, fill=ACTIVE, stroke="white", width=0.5)
    for t, done in slivers:
        for i in range(SHOWN):
            fill = HOT if i in done else HOT_LIGHT
            fig.rect(sx(t), y + i * rh, sx(t + SLIVER) - sx(t), rh, fill=fill, stroke="white",
                     width=0.5)
    fig.arrow(x0, y + SHOWN * rh + 12, x1, y + SHOWN * rh + 12, width=1.2)
    fig.text(x1, y + SHOWN * rh + 30, "time, in steps of one lane →", size=12, anchor="end",
             color=MUTED)
    fig.text(x0, y + SHOWN * rh + 30, "a sliver whenever any of the 32 lanes finishes: "
             "almost every block", size=12, color=MUTED)
    ly = 404
    swatch(fig, 16, ly, ACTIVE, "lane iterating")
    swatch(fig, 140, ly, IDLE, "lane idle")
    swatch(fig, 240, ly, HOT, "a finishing lane: end steps, colour, store, setup")
    swatch(fig, 608, ly, HOT_LIGHT, "the others, masked off")
    svgfig.save(fig, "lane_timeline")


# 3. v4, v5 and v8: one pixel's iterations and where the escape test runs.
ESCAPE = 27  # escapes in the second half of v8's second block of 16


def unrolled_blocks():
    fig = svgfig.Figure(820, 376, "Unrolled iterations of one pixel in v4, v5 and v8")
    header(fig, f"One pixel that escapes at step {ESCAPE}: where the escape test runs",
           "Each cell is one step z ← z² + c (6 FP32 instructions); each dot one escape test "
           "(an add, a compare, a branch).")
    cw, x0, ch = 16, 126, 16
    cx = lambda k: x0 + k * cw  # the left edge of step k + 1, the right edge of step k

    def steps(y, first, last, fill):
        for k in range(first, last):
            fig.rect(cx(k), y, cw, ch, fill=fill, stroke="white", width=1)

    def tests(y, ks):
        for k in ks:
            fig.circle(cx(k), y - 5, 3, fill=HOT, stroke="none")

    def label(y, name, lines):
        fig.text(16, y + 13, name, size=15, bold=True)
        for i, s in enumerate(lines):
            fig.text(16, y + 31 + 15 * i, s, size=12, color=MUTED)

    def unrolled(y, size, back, note):
        """Blocks of `size` with one test each; the escaping block is undone back to `back`."""
        fail = ESCAPE // size * size  # the escaping block starts after step `fail`
        steps(y, 0, back, ACTIVE)
        steps(y, back, fail + size, HOT_LIGHT)
        for b in range(0, fail + size, size):
            fig.rect(cx(b), y, size * cw, ch, stroke=INK, width=1.2)
        tests(y, range(size, fail + size + 1, size))
        fig.path(f"M {cx(fail + size)} {y - 10} C {cx(fail + size)} {y - 30}, {cx(back)} "
                 f"{y - 30}, {cx(back)} {y - 10}", color=INK, width=1.3, arrow=True)
        fig.text(cx(fail + size) + 8, y + 13, f"test fails: {back + 1}–{fail + size} undone",
                 size=12)
        fig.line(cx(back), y + ch, cx(back), y + ch + 22, color=INK, width=1, dash="3 2")
        sy = y + ch + 22
        steps(sy, back, ESCAPE, ACTIVE)
        tests(sy + 1, range(back, ESCAPE + 1))
        fig.text(cx(ESCAPE) + 8, sy + 13, f"{ESCAPE - back} single steps: escapes at {ESCAPE}, "
                 "exact", size=12)
        fig.text(cx(back) - 6, sy + 13, note, size=12, anchor="end",
                 color=GOOD if size == 16 else INK, bold=size == 16)

    y = 80  # v4: a test before every step
    label(y, "v4", ["test every step"])
    steps(y, 0, ESCAPE, ACTIVE)
    tests(y, range(ESCAPE + 1))
    fig.text(cx(ESCAPE) + 8, y + 13, f"{ESCAPE + 1} tests for {ESCAPE} steps", size=12)

    y = 156  # v5: blocks of 4, one test each; the escaping block goes back to its saved z
    label(y, "v5", ["blocks of 4", "(v7: of 8)"])
    unrolled(y, 4, ESCAPE // 4 * 4, "saved z")

    y = 256  # v8: blocks of 16, z kept after the first 8: the exact end restarts there
    label(y, "v8", ["blocks of 16,", "z kept after 8"])
    half = ESCAPE // 16 * 16 + 8
    unrolled(y, 16, half, "checkpoint")
    tests(y, [half])  # the checkpoint's own test, once, in the escaping block
    fig.line(cx(half), y - 3, cx(half), y + ch + 3, color=GOOD, width=3)
    fail = ESCAPE // 16 * 16
    fig.text(16, 342, f"Without the checkpoint, blocks of 16 would go back to {fail} and "
             f"single-step {ESCAPE - fail} times; with it, never more than 8.", size=13)
    ly = 366
    swatch(fig, 16, ly, ACTIVE, "a step kept")
    swatch(fig, 140, ly, HOT_LIGHT, "a step computed, then undone")
    fig.circle(392, ly - 4, 3, fill=HOT, stroke="none")
    fig.text(402, ly, "an escape test", size=13)
    svgfig.save(fig, "unrolled_blocks")


# 4. v8's hardware block scheduler against v9's tile queue on one atomic counter.
def strip(fig, x, y, w, labels, fills, total):
    """A queue of units (blocks or tiles) numbered from 0, then the last one's number."""
    for i, (s, fill) in enumerate(zip(labels, fills)):
        fig.rect(x + i * w, y, w - 4, 28, fill=fill, stroke=INK, width=1)
        fig.text(x + i * w + (w - 4) / 2, y + 19, s, size=12, anchor="middle")
        fig.text(x + i * w + (w - 4) / 2, y - 5, str(i), size=12, anchor="middle", color=MUTED)
    fig.text(x + len(labels) * w + 2, y + 19, f"… {total - 1:,}", size=12, color=MUTED)


def tile_queue():
    fig = svgfig.Figure(820, 416, "Hardware block scheduling in v8 against the tile queue of v9")
    header(fig, "Load balance between warps: the hardware's queue (v8) or our own (v9)",
           "Blue: running; grey: done; white: waiting. Both hand out the next unit in index "
           "order, as soon as there is room.")
    bw, x0 = 48, 130
    # v8: 65,536 blocks of 8 warps (32 x 8 pixels); the block scheduler starts one where room frees
    fig.text(16, 92, "v8", size=15, bold=True)
    fig.text(16, 110, "blocks of", size=12, color=MUTED)
    fig.text(16, 125, "8 warps", size=12, color=MUTED)
    on_sm = {4: 2, 5: 0, 6: 3, 7: 1, 8: 0, 9: 2}
    strip(fig, x0, 84, bw, ["done"] * 4 + [f"SM {on_sm[b]}" for b in range(4, 10)] + [""],
          [IDLE] * 4 + [ACTIVE_LIGHT] * 6 + ["white"], 65536)
    sched = x0 + 10 * bw + 22  # under block 10, the next to go
    fig.arrow(sched, 114, sched, 144)
    fig.rect(sched - 70, 146, 140, 40, fill=ACTIVE_LIGHT, stroke=INK, radius=4)
    fig.text(sched, 163, "block scheduler", size=13, anchor="middle", bold=True)
    fig.text(sched, 179, "(hardware)", size=12, anchor="middle")
    for s in range(4):
        blocks = ", ".join(str(b) for b in on_sm if on_sm[b] == s)
        fig.rect(x0 + s * 100, 152, 90, 30, fill="white", stroke=INK, radius=4)
        fig.text(x0 + s * 100 + 45, 172, f"SM {s}: {blocks}", size=12, anchor="middle")
    fig.arrow(sched - 72, 167, x0 + 392, 167, color=ACTIVE, width=1.6)
    fig.text(sched - 70, 204, "block 10 goes to SM 3, which has room", size=12, color=MUTED)
    fig.text(16, 226, "No code and no atomic: a block starts when an SM has room; it holds that "
             "room until its slowest warp is done.", size=13)

    # v9: persistent warps; lane 0 takes tile = atomicAdd(&next_tile, 1) and shuffles it to all
    fig.line(16, 242, 804, 242, color=GRID)
    fig.text(16, 280, "v9", size=15, bold=True)
    fig.text(16, 298, "tiles of", size=12, color=MUTED)
    fig.text(16, 313, "8 × 4 pixels", size=12, color=MUTED)
    strip(fig, x0, 272, bw, ["done"] * 4 + ["w2", "w0", "w5", "w1", "w3", "", ""],
          [IDLE] * 4 + [ACTIVE_LIGHT] * 5 + ["white"] * 2, 524288)
    cx, cy = x0 + 9 * bw + 22, 350
    fig.rect(cx - 70, cy - 18, 140, 36, fill=HOT_LIGHT, stroke=HOT, width=2, radius=4)
    fig.text(cx, cy + 5, "next_tile = 9", size=13, anchor="middle", mono=True, bold=True)
    fig.arrow(cx, cy - 20, cx, 302, color=HOT, width=1.6)
    fig.rect(x0, cy - 16, 60, 32, fill=ACTIVE_LIGHT, stroke=INK, radius=4)
    fig.text(x0 + 30, cy + 5, "w4", size=13, anchor="middle", bold=True)
    fig.arrow(x0 + 62, cy, cx - 72, cy, color=HOT, width=1.6)
    fig.text(x0 + 72, cy - 6, "atomicAdd(&next_tile, 1)", size=12, mono=True)
    fig.text(x0 + 72, cy + 16, "lane 0 asks; __shfl_sync tells all 32", size=12, color=MUTED)
    fig.text(x0 + 30, cy + 32, "w4 finished tile 3", size=12, anchor="middle", color=MUTED)
    fig.text(cx + 80, cy - 2, "one address for", size=12, color=HOT)
    fig.text(cx + 80, cy + 13, "the whole GPU", size=12, color=HOT)
    fig.text(16, 404, "Cost: one atomic on one address per 32 pixels (the page has the "
             "measured effect).", size=13)
    svgfig.save(fig, "tile_queue")


if __name__ == "__main__":
    stats = warp_footprint()
    lane_timeline()
    unrolled_blocks()
    tile_queue()
    if "-v" in sys.argv:
        print(stats)
