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


if __name__ == "__main__":
    wgmma()
    tma_ring()
    tile_order()
    multicast()
    every_shape_tc()
