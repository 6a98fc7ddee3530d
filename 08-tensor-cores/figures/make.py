"""Figures of lesson 08-tensor-cores: `python3 08-tensor-cores/figures/make.py` writes figures/*.svg."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import ACTIVE, ACTIVE_LIGHT, GOOD, GOOD_LIGHT, GRID, HOT, HOT_LIGHT, IDLE, INK, MUTED, SHADES, header, notes  # noqa: E402


def wgmma():
    fig = svgfig.Figure(820, 330, "v4: one wgmma per warpgroup, operands from shared memory")
    header(fig, "v3 → v4: wgmma, a warpgroup's product",
           "mma.sync: each warp loads its operands into registers. wgmma: 4 warps, one 64 × 256 × 16 "
           "product on shared tiles.")
    x0, y0 = 40, 90
    fig.text(x0, y0, "shared memory (128-byte swizzle)", size=13, bold=True)
    fig.rect(x0, y0 + 14, 90, 120, fill=ACTIVE_LIGHT, stroke=INK)
    fig.text(x0 + 45, y0 + 78, "A 64 × 16", size=12, anchor="middle")
    fig.rect(x0 + 110, y0 + 14, 200, 60, fill=HOT_LIGHT, stroke=INK)
    fig.text(x0 + 210, y0 + 48, "B 16 × 256", size=12, anchor="middle")
    fig.text(x0, y0 + 156, "two 64-bit descriptors name them", size=12, color=MUTED)
    wx = 420
    fig.text(wx, y0, "a warpgroup: warps 0–3, 128 threads", size=13, bold=True)
    for w in range(4):
        fig.rect(wx, y0 + 14 + w * 34, 340, 30, fill=GOOD_LIGHT, stroke=INK)
        fig.text(wx + 170, y0 + 34 + w * 34, f"warp {w}: rows {16 * w}–{16 * w + 15} of the 64 × 256 "
                 "accumulator", size=12, anchor="middle")
    fig.arrow(x0 + 320, y0 + 60, wx - 6, y0 + 60)
    fig.text(x0 + 360, y0 + 52, "HGMMA", size=12, anchor="middle")
    notes(fig, 40, 280, ["128 accumulator registers a thread; the operands never pass through "
                         "registers.", "It pays only with TMA beside it: if every thread still "
                         "copied the tiles, it would lose to v3."], size=13)
    svgfig.save(fig, "wgmma")


# 8. v4/v5: the TMA producer, the mbarrier ring and two consumer warpgroups.
def tma_ring():
    fig = svgfig.Figure(820, 390, "v5: a producer warpgroup, a ring of stages, two consumers")
    header(fig, "v4 → v5: TMA, mbarriers and warp specialization",
           "One thread of the producer asks the copy engine for whole boxes; each stage has a full "
           "and an empty mbarrier.")
    cx, cy, r = 400, 200, 90
    import math
    stages = 4
    for s in range(stages):
        ang = -math.pi / 2 + s * 2 * math.pi / stages
        x, y = cx + r * math.cos(ang), cy + r * math.sin(ang)
        fig.rect(x - 48, y - 22, 96, 44, fill=SHADES[s], stroke=INK)
        fig.text(x, y - 4, f"stage {s}", size=12, anchor="middle")
        fig.text(x, y + 12, "A + B boxes", size=10, anchor="middle", color=MUTED)
    fig.text(cx, cy + 4, "ring", size=13, anchor="middle", bold=True)
    fig.rect(40, 170, 200, 60, fill=ACTIVE_LIGHT, stroke=INK)
    fig.text(140, 195, "producer warpgroup", size=12, anchor="middle", bold=True)
    fig.text(140, 214, "waits 'empty', issues TMA", size=11, anchor="middle")
    fig.arrow(240, 200, cx - r - 52, 200)
    for i, y in enumerate([120, 260]):
        fig.rect(580, y, 210, 56, fill=GOOD_LIGHT, stroke=INK)
        fig.text(685, y + 22, f"consumer warpgroup {i + 1}", size=12, anchor="middle", bold=True)
        fig.text(685, y + 40, "waits 'full', wgmma, frees", size=11, anchor="middle")
        fig.arrow(cx + r + 52, cy + (y - 170) / 3, 576, y + 28)
    notes(fig, 40, 346, ["The engine counts the bytes it writes against the stage's 'full' barrier; "
                         "a consumer arrives on 'empty' when its wgmma", "has read the stage. No "
                         "block barrier: the producer refills a stage as soon as both consumers "
                         "release it."], size=12)
    svgfig.save(fig, "tma_ring")


# 9. v6/v7: the order of the tiles.
def tile_order():
    fig = svgfig.Figure(820, 400, "v6: tiles numbered down groups of rows")
    header(fig, "v5 → v6 → v7: the order of the tiles, and a persistent grid",
           "C's tiles at 8192³: 64 rows × 32 columns of tiles; the first 132 tiles to run, in green.")
    s = 7
    for panel, (title, x) in enumerate([("v5: row by row", 40), ("v6: down groups of 8 rows", 440)]):
        fig.text(x, 80, title, size=13, bold=True)
        for r in range(32):
            for c in range(32):
                if panel == 0:
                    idx = r * 32 + c
                else:
                    group, within = divmod(r, 8)
                    idx = group * 8 * 32 + c * 8 + within
                fill = GOOD if idx < 132 else IDLE
                fig.rect(x + c * s, 92 + r * s, s, s, fill=fill, stroke=GRID, width=0.3)
        fig.text(x, 92 + 32 * s + 18, "(the top half of C shown)", size=11, color=MUTED)
    notes(fig, 40, 92 + 32 * s + 42, ["Row by row, a wave needs all 32 columns of B and 5 rows of "
                                     "A; down groups, 17 columns of B and 8 rows of A: about 60% of",
                                     "the bytes per wave from L2. v7 keeps one block per SM walking "
                                     "tiles t, t + 132, …, filling the next",
                                     "tile's stages while it stores the last."],
          size=12)
    svgfig.save(fig, "tile_order")


# 10. v9: a cluster of two blocks shares B by multicast.
def multicast():
    fig = svgfig.Figure(820, 300, "v9: two blocks of a cluster share B's boxes")
    header(fig, "v8 → v9: clusters and multicast",
           "Blocks on vertically adjacent tiles read the same B: each asks for half, and the copy "
           "engine writes it into both.")
    for b in range(2):
        x = 60 + b * 380
        fig.rect(x, 100, 300, 120, fill=IDLE, stroke=INK, radius=6)
        fig.text(x + 10, 118, "block 0: the upper tile" if b == 0 else "block 1: the tile below it", size=12, bold=True)
        fig.rect(x + 20, 130, 120, 70, fill=ACTIVE_LIGHT, stroke=INK)
        fig.text(x + 80, 170, f"its own A box", size=11, anchor="middle")
        for j in range(4):
            fig.rect(x + 160 + j * 30, 130, 30, 70, fill=HOT_LIGHT if j % 2 == 0 else SHADES[3],
                     stroke=INK)
            fig.text(x + 175 + j * 30, 170, f"B{j}", size=10, anchor="middle")
    fig.arrow(250, 240, 235, 205)
    fig.arrow(250, 240, 615, 205)
    fig.text(250, 256, "block 0 asks for B boxes 0 and 2, .multicast::cluster", size=11,
             anchor="middle")
    fig.arrow(690, 240, 645, 205)
    fig.arrow(690, 240, 265, 205)
    fig.text(640, 272, "block 1 asks for boxes 1 and 3", size=11, anchor="middle")
    svgfig.save(fig, "multicast")


# 11. part 2: the tensor cores at every shape (v11 split-K in L2, v12 side by side, v13 widths).
def every_shape_tc():
    fig = svgfig.Figure(820, 365, "part 2: split-K added in L2, tiles side by side, a width per shape")
    header(fig, "v10 → v11 → v12 → v13: few tiles, few rows, small squares",
           "Each step gives the 132 SMs work where v10's 128 × 256 tile pairs leave them idle.")
    # v11: slices added in L2
    x0, y0 = 30, 90
    fig.text(x0, y0, "v11: k in S slices, each slice's tile", size=12, bold=True)
    fig.text(x0, y0 + 16, "added into C by the copy engine", size=12, bold=True)
    for s_ in range(4):
        fig.rect(x0 + s_ * 56, y0 + 30, 50, 50, fill=SHADES[s_], stroke=INK)
        fig.text(x0 + s_ * 56 + 25, y0 + 60, f"k{s_}", size=12, anchor="middle")
        fig.arrow(x0 + s_ * 56 + 25, y0 + 82, x0 + 110, y0 + 128)
    fig.rect(x0 + 50, y0 + 130, 120, 50, fill=GOOD_LIGHT, stroke=INK)
    fig.text(x0 + 110, y0 + 152, "C in L2", size=12, anchor="middle")
    fig.text(x0 + 110, y0 + 168, "+= (reduce-add)", size=11, anchor="middle")
    fig.text(x0, y0 + 205, "C zeroed first; the adds land", size=11, color=MUTED)
    fig.text(x0, y0 + 220, "in any order (last bits vary)", size=11, color=MUTED)
    # v12: side by side
    x1 = 300
    fig.text(x1, y0, "v12: m ≤ 128, one row of tiles", size=12, bold=True)
    fig.text(x1, y0 + 22, "v9–v11: a pair one above the other", size=11)
    fig.rect(x1, y0 + 30, 100, 30, fill=ACTIVE_LIGHT, stroke=INK)
    fig.text(x1 + 50, y0 + 50, "block 0: m rows", size=10, anchor="middle")
    fig.rect(x1, y0 + 60, 100, 30, fill=IDLE, stroke=INK)
    fig.text(x1 + 50, y0 + 80, "block 1: past m", size=10, anchor="middle", color=MUTED)
    fig.text(x1, y0 + 118, "v12: side by side, both real", size=11)
    fig.rect(x1, y0 + 126, 100, 30, fill=ACTIVE_LIGHT, stroke=INK)
    fig.text(x1 + 50, y0 + 146, "block 0", size=10, anchor="middle")
    fig.rect(x1 + 100, y0 + 126, 100, 30, fill=HOT_LIGHT, stroke=INK)
    fig.text(x1 + 150, y0 + 146, "block 1", size=10, anchor="middle")
    fig.text(x1, y0 + 180, "A's box: m rows (rounded to 8),", size=11, color=MUTED)
    fig.text(x1, y0 + 195, "not 128: no zero fill", size=11, color=MUTED)
    # v13: widths
    x2 = 560
    fig.text(x2, y0, "v13: 1024 × 1024, tiles per width", size=12, bold=True)
    for i in range(8):
        for j in range(4):
            fig.rect(x2 + j * 24, y0 + 20 + i * 12, 24, 12, fill=GOOD if (i * 4 + j) < 32 else IDLE,
                     stroke=GRID)
    fig.text(x2, y0 + 130, "128 × 256: 32 tiles", size=11)
    for i in range(8):
        for j in range(16):
            fig.rect(x2 + 120 + j * 6, y0 + 20 + i * 12, 6, 12, fill=GOOD, stroke=GRID)
    fig.text(x2 + 120, y0 + 130, "128 × 64: 128 tiles", size=11)
    fig.text(x2, y0 + 150, "132 SMs: 32 busy, or 128", size=11, color=MUTED)
    fig.text(x2, y0 + 165, "the count picks width and S:", size=11, color=MUTED)
    fig.text(x2, y0 + 180, "waves, bytes, the adds", size=11, color=MUTED)
    notes(fig, 30, 348, ["time ≈ max(waves × (steps × step(bn) + epilogue), memory × clusters / busy) "
                         "+ reduction(S), in 128 × 256 steps"], size=12)
    svgfig.save(fig, "every_shape_tc")


# 12. part 2, v13 -> v14: the kernel's two ends, who waits for whom (a schematic, not to scale).
def kernel_ends():
    fig = svgfig.Figure(820, 440, "v14: the cluster's barriers at the kernel's ends, cut to what they order")
    header(fig, "v13 → v14: the kernel's two ends",
           "One block of a cluster pair at a small product, over time (a schematic, not to scale).")
    rows = ["producer, thread 0", "producer, 127 others", "consumers, 8 warps"]
    lx, x0 = 16, 170  # labels, time 0

    def bar(y, a, b, fill, label="", color=INK):
        fig.rect(x0 + a, y, b - a, 20, fill=fill, stroke=GRID)
        if label:
            fig.text(x0 + (a + b) / 2, y + 14.5, label, size=11, anchor="middle", color=color)

    def panel(y, title, start_fill, start_label, start_color, v14):
        fig.text(lx, y, title, size=14, bold=True)
        for r, name in enumerate(rows):
            fig.text(lx, y + 30 + 28 * r, name, size=12)
        for r in range(3):  # the start's barrier, every thread
            bar(y + 16 + 28 * r, 0, 90, start_fill, start_label, start_color)
        bar(y + 16, 90, 210, ACTIVE_LIGHT, "issue the loads")
        bar(y + 72, 90, 160, IDLE, "wait for data", MUTED)
        bar(y + 72, 160, 330, ACTIVE, "wgmma", "white")
        bar(y + 72, 330, 440, GOOD_LIGHT, "epilogue: stores")
        if v14:
            bar(y + 16, 210, 345, IDLE, "wait: last releases", MUTED)
            fig.text(x0 + 98, y + 58.5, "leave at once", size=11, color=GOOD)
            fig.text(x0 + 448, y + 86.5, "leave", size=11, color=GOOD)
            fig.text(x0 + 353, y + 30.5, "leave", size=11, color=GOOD)
        else:
            bar(y + 16, 210, 520, HOT_LIGHT, "wait at the end's barrier")
            bar(y + 44, 90, 520, HOT_LIGHT, "wait at the end's barrier, the whole kernel")
            bar(y + 72, 440, 520, HOT_LIGHT, "partner")
            for r in range(3):
                bar(y + 16 + 28 * r, 520, 610, HOT, "MEMBAR.GPU", "white")
            fig.line(x0 + 610, y + 10, x0 + 610, y + 98, color=HOT, width=2, dash="5 3")
            fig.text(x0 + 610, y + 112, "both blocks meet, then leave", size=11, anchor="end",
                     color=HOT)

    panel(84, "v13: two cluster barriers that release and acquire memory", HOT, "MEMBAR.GPU",
          "white", False)
    panel(238, "v14: a relaxed barrier at the start, none at the end", ACTIVE_LIGHT, "meet", INK,
          True)
    notes(fig, 16, 374, [
        "Before either block may signal the other's barriers, both must have set them up: the "
        "start's barrier stays,",
        "relaxed, since a fence has published the set-up. At the end the partner can reach only "
        "the stages and their barriers,",
        "and the producer's thread knows when each stage was last released: it waits for that, "
        "and everyone else goes."], size=13)
    svgfig.save(fig, "kernel_ends")


# 7. v2: which lane holds which elements of mma.m16n8k16's fragments, and how ldmatrix.x4 loads A.
LANE = 9  # the lane the figure follows


def fragment_grid(fig, x, y, rows, cols, cell, fill_of, lane_cells):
    """A rows × cols grid of cells; fill_of(r, c) gives a cell's shade, lane_cells the cells the
    followed lane holds (drawn in ACTIVE)."""
    for r in range(rows):
        for c in range(cols):
            fill = ACTIVE if (r, c) in lane_cells else fill_of(r, c)
            fig.rect(x + c * cell, y + r * cell, cell, cell, fill=fill, stroke="white", width=0.6)
    fig.rect(x, y, cols * cell, rows * cell, stroke=INK)


def mma_fragments():
    fig = svgfig.Figure(820, 450, "v2: the fragments of mma.m16n8k16 and how ldmatrix.x4 loads them")
    header(fig, "v1 → v2: ldmatrix and the fragments of mma.sync.m16n8k16 (BF16)",
           f"One warp, 32 lanes. In blue, the elements lane {LANE} holds; outlined, the 16-byte row "
           "lane 17 addresses.")
    g, t = LANE // 4, LANE % 4  # the lane's group (row) and place in its group (column pair)
    cell, y0 = 12, 112
    # A: 16 × 16, four 8 × 8 matrices, matrix i in register a_i
    ax = 80
    quad = {(0, 0): 0, (1, 0): 1, (0, 1): 2, (1, 1): 3}  # (row half, k half) -> register
    lane_a = {(g + 8 * h, 2 * t + e + 8 * kh) for h in (0, 1) for kh in (0, 1) for e in (0, 1)}
    fragment_grid(fig, ax, y0, 16, 16, cell, lambda r, c: SHADES[quad[(r // 8, c // 8)]], lane_a)
    fig.rect(ax + 8 * cell, y0 + cell, 8 * cell, cell, stroke=INK, width=2.5)
    fig.text(ax + 8 * cell, 84, "A 16 × 16 (m × k)", size=13, bold=True, anchor="middle")
    for h in (0, 1):
        fig.text(ax + 4 * cell + 8 * cell * h, y0 - 6, f"k {8 * h}–{8 * h + 7}", size=11,
                 anchor="middle", color=MUTED)
        fig.text(ax - 6, y0 + 4 * cell + 8 * cell * h + 4, f"m {8 * h}–{8 * h + 7}", size=11,
                 anchor="end", color=MUTED)
    for (rh, kh), i in quad.items():
        qx, qy = ax + 8 * cell * kh + 4 * cell, y0 + 8 * cell * rh
        fig.text(qx, qy + 68, f"matrix {i} → a{i}", size=11, anchor="middle")
        fig.text(qx, qy + 84, f"lanes {8 * i}–{8 * i + 7}", size=11, anchor="middle", color=MUTED)
    # one 8 × 8 matrix as the lanes receive it
    zx, zc = 312, 22
    fig.text(zx + 4 * zc, 84, "an 8 × 8 matrix, lane by lane", size=13, bold=True, anchor="middle")
    for c in range(8):
        fig.text(zx + c * zc + zc / 2, y0 - 6, str(c), size=11, anchor="middle", color=MUTED)
    for r in range(8):
        fig.text(zx - 6, y0 + r * zc + zc / 2 + 4, str(r), size=11, anchor="end", color=MUTED)
        for p in range(4):
            lane = 4 * r + p
            mine = lane == LANE
            fig.rect(zx + 2 * p * zc, y0 + r * zc, 2 * zc, zc, fill=ACTIVE if mine else IDLE,
                     stroke=GRID)
            fig.text(zx + (2 * p + 1) * zc, y0 + r * zc + zc / 2 + 4, str(lane), size=12,
                     anchor="middle", color="white" if mine else INK, bold=mine)
    fig.rect(zx, y0, 8 * zc, 8 * zc, stroke=INK)
    # B: 16 × 8 (k × n), b0 = k 0–7, b1 = k 8–15; lane l holds column l / 4
    bx = 548
    lane_b = {(2 * t + e + 8 * h, g) for h in (0, 1) for e in (0, 1)}
    fragment_grid(fig, bx, y0, 16, 8, cell, lambda r, c: SHADES[r // 8], lane_b)
    fig.text(bx + 4 * cell, 84, "B 16 × 8 (k × n)", size=13, bold=True, anchor="middle")
    fig.text(bx + 4 * cell, y0 - 6, "n 0–7", size=11, anchor="middle", color=MUTED)
    # C: 16 × 8 (m × n), FP32: c0 c1 in row l / 4, c2 c3 eight rows down
    cx = 708
    lane_c = {(g + 8 * h, 2 * t + e) for h in (0, 1) for e in (0, 1)}
    fragment_grid(fig, cx, y0, 16, 8, cell, lambda r, c: SHADES[r // 8], lane_c)
    fig.text(cx + 4 * cell, 84, "C 16 × 8 (m × n)", size=13, bold=True, anchor="middle")
    fig.text(cx + 4 * cell, y0 - 6, "n 0–7", size=11, anchor="middle", color=MUTED)
    for h in (0, 1):
        fig.text(bx - 6, y0 + 4 * cell + 8 * cell * h + 4, f"k {8 * h}–{8 * h + 7}", size=11,
                 anchor="end", color=MUTED)
        fig.text(cx - 6, y0 + 4 * cell + 8 * cell * h + 4, f"m {8 * h}–{8 * h + 7}", size=11,
                 anchor="end", color=MUTED)
        fig.text(bx + 4 * cell, y0 + 8 * cell * h + 76, f"b{h}", size=11, anchor="middle")
        fig.text(cx + 4 * cell, y0 + 8 * cell * h + 76, f"c{2 * h} c{2 * h + 1}", size=11,
                 anchor="middle")
    # what each panel's rule is
    yr = y0 + 16 * cell + 20
    notes(fig, ax - 50, yr, ["ldmatrix.x4: lanes 8i … 8i + 7", "give matrix i's 8 row",
                             "addresses, 16 bytes each"], size=12, step=16)
    notes(fig, zx - 20, yr, ["lane l gets row l / 4,", "columns 2·(l % 4) and + 1:",
                             "two BF16, one register"], size=12, step=16)
    notes(fig, bx - 40, yr, ["lane l: column l / 4,", "k 2·(l % 4) and + 1"], size=12, step=16)
    notes(fig, cx - 30, yr, ["lane l: row l / 4,", "n 2·(l % 4) and + 1"], size=12, step=16)
    notes(fig, 30, 384, ["Matrix i lands in register i of every lane: A's four matrices are a0 … a3, "
                         "as mma wants them.", "B is stored k × n: .trans hands each lane a column "
                         "of a matrix instead of a row.", f"Lane {LANE} holds 8 values of A, 4 of B "
                         "and 4 accumulators of C (one float each)."], size=13)
    svgfig.save(fig, "mma_fragments")


# 12. v8: the results staged in shared memory with the 128-byte swizzle, for the TMA store.
def swizzle_panel(fig, x, y, title, position_of, warp_fill, count_color, summary):
    cw, ch = 38, 24
    fig.text(x - 40, y - 34, title, size=13, bold=True)
    for p in range(8):
        fig.text(x + p * cw + cw / 2, y - 8, f"pos {p}", size=11, anchor="middle", color=MUTED)
    words = [0] * 8
    for r in range(8):
        fig.text(x - 8, y + r * ch + ch / 2 + 4, f"row {r}", size=11, anchor="end", color=MUTED)
        for q in range(8):
            p = position_of(q, r)
            mine = q in (2, 3)
            words[p] += mine
            fig.rect(x + p * cw, y + r * ch, cw, ch, fill=warp_fill if mine else IDLE, stroke=GRID)
            fig.text(x + p * cw + cw / 2, y + r * ch + ch / 2 + 4, str(q), size=12,
                     anchor="middle", bold=mine)
    fig.rect(x, y, 8 * cw, 8 * ch, stroke=INK)
    yb = y + 8 * ch + 18
    fig.text(x - 8, yb, "banks", size=11, anchor="end", color=MUTED)
    yw = yb + 20
    fig.text(x - 8, yw, "words", size=11, anchor="end", color=MUTED)
    for p in range(8):
        fig.text(x + p * cw + cw / 2, yb, f"{4 * p}–{4 * p + 3}", size=11, anchor="middle",
                 color=MUTED)
        fig.text(x + p * cw + cw / 2, yw, str(words[p]), size=13, anchor="middle",
                 color=count_color if words[p] else MUTED, bold=bool(words[p]))
    fig.text(x - 40, yw + 26, summary, size=12, color=count_color)


def c_swizzle():
    fig = svgfig.Figure(820, 462, "v8: C staged in shared memory with the 128-byte swizzle")
    header(fig, "v7 → v8: the results staged in shared memory, 128-byte swizzle",
           "A box row is 32 floats, 128 bytes: 8 chunks of 16 bytes. In colour, one warp's store: "
           "chunks 2 and 3 of rows 0–7.")
    swizzle_panel(fig, 70, 122, "no swizzle: chunk q at position q", lambda q, r: q, HOT_LIGHT,
                  HOT, "8 words in each of banks 8–15, served in turn")
    swizzle_panel(fig, 480, 122, "128-byte swizzle: at position q ^ (r % 8)",
                  lambda q, r: q ^ (r % 8), GOOD_LIGHT, GOOD, "2 words in every bank, the fewest "
                  "256 bytes allow")
    notes(fig, 30, 412, ["Lane l writes a float2 to row l / 4, columns 8 + 2·(l % 4), inside chunk 2 "
                         "or 3. Rows are 128 bytes, so without", "the swizzle chunk q of every row "
                         "sits in the same 4 banks. The TMA store reads chunk q of row r at position",
                         "q ^ (r % 8), the same XOR, and writes each row of C in order."], size=13)
    svgfig.save(fig, "c_swizzle")


def zero_overlap():
    fig = svgfig.Figure(820, 300, "v15: no gap for zeroing C")
    header(fig, "v14 → v15: no gap for zeroing C",
           "One call that splits k, over time (a schematic, not to scale).")
    x0, unit = 120, 26

    def bar(y, start, length, label, fill):
        fig.labeled_box(x0 + start * unit, y, length * unit, 26, label, fill)

    y = 86
    fig.text(x0 - 10, y + 17, "v14", size=14, bold=True, anchor="end")
    bar(y, 0, 2.4, "memset", HOT_LIGHT)
    bar(y, 2.4, 1.6, "", IDLE)
    bar(y, 4.0, 9, "product: loads, wgmma", ACTIVE_LIGHT)
    bar(y, 13.0, 3.2, "adds into C", ACTIVE_LIGHT)
    fig.text(x0 + 3.2 * unit, y + 44, "launch", size=11, anchor="middle", color=MUTED)
    y = 170
    fig.text(x0 - 10, y + 17, "v15", size=14, bold=True, anchor="end")
    bar(y, 0, 2.4, "zero_c", GOOD_LIGHT)
    bar(y, 2.4, 9, "product: loads, wgmma", ACTIVE_LIGHT)
    bar(y, 11.4, 3.2, "adds into C", ACTIVE_LIGHT)
    fig.line(x0 + 11.4 * unit, y - 6, x0 + 11.4 * unit, y + 40, color=GOOD, width=2, dash="4 3")
    fig.text(x0 + 11.4 * unit + 6, y + 44, "griddepcontrol.wait: zero_c done, its writes visible",
             size=11, color=GOOD)
    fig.text(x0 + 1.2 * unit, y + 44, "the product's launch", size=11, anchor="middle",
             color=MUTED)
    fig.text(x0 + 1.2 * unit, y + 58, "processed meanwhile", size=11, anchor="middle",
             color=MUTED)
    notes(fig, 16, 262, [
        "zero_c lets the product launch at once (griddepcontrol.launch_dependents); its blocks take "
        "the SMs as zero_c's leave.",
        "A product that does not split k has nothing to zero and launches as before."],
        size=13)
    svgfig.save(fig, "zero_overlap")

if __name__ == "__main__":
    wgmma()
    tma_ring()
    tile_order()
    multicast()
    every_shape_tc()
    kernel_ends()
    mma_fragments()
    c_swizzle()
    zero_overlap()
