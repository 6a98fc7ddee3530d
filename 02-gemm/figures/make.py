"""Figures of lesson 02-gemm: `python3 02-gemm/figures/make.py` writes figures/*.svg."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import ACTIVE, ACTIVE_LIGHT, GOOD, GOOD_LIGHT, GRID, HOT, HOT_LIGHT, IDLE, INK, MUTED, SHADES, header, notes  # noqa: E402


def grid(fig, x, y, rows, cols, size, fill=IDLE, stroke=GRID):
    for r in range(rows):
        fig.cells(x, y + r * size, cols, size, fill, stroke=stroke)


# 1. v1 -> v2: which addresses a half-warp reads.
def coalescing():
    fig = svgfig.Figure(820, 350, "v1 -> v2: 16 threads read 16 rows, or one row")
    header(fig, "v1 → v2: the index swap",
           "Toy sizes: a 16 × 16 corner of a row-major matrix; one load of a half-warp (16 threads).")
    size = 12
    for panel, (title, x) in enumerate([("v1: thread x reads A[row = x][k]: a column", 40),
                                         ("v2: thread x reads B[k][col = x]: a row", 440)]):
        fig.text(x, 84, title, size=13, bold=True)
        grid(fig, x, 96, 16, 16, size)
        for t in range(16):
            r, c = (t, 3) if panel == 0 else (3, t)
            fig.rect(x + c * size, 96 + r * size, size, size, fill=HOT if panel == 0 else GOOD,
                     stroke=INK, width=0.5)
        fig.text(x, 96 + 16 * size + 22,
                 "16 rows: 16 sectors of 32 bytes, 4 bytes used in each" if panel == 0 else
                 "one row: 64 contiguous bytes, two sectors, all used", size=13,
                 color=HOT if panel == 0 else GOOD)
    notes(fig, 40, 96 + 16 * size + 52, ["One line of the kernel changes; the warp's loads go from "
                                         "scattered to contiguous."], size=13)
    svgfig.save(fig, "coalescing")


# 2. v2 -> v3: the shared tiles and their barrier pair.
def shared_tile():
    fig = svgfig.Figure(820, 330, "v3: tiles of A and B in shared memory, a barrier on each side")
    header(fig, "v2 → v3: shared-memory tiles and their two barriers",
           "A block computes a tile of C; per step it copies a tile of A and one of B, then runs "
           "32 FMAs per thread from them.")
    s = 8
    ax, ay = 40, 210
    grid(fig, ax, ay, 8, 16, s)
    fig.rect(ax + 8 * s, ay, 8 * s, 8 * s, fill=ACTIVE_LIGHT, stroke=INK)
    fig.text(ax, ay + 8 * s + 16, "A: the block's rows; step t's tile", size=12)
    bx, by = 200, 76
    grid(fig, bx, by, 16, 8, s)
    fig.rect(bx, by + 8 * s, 8 * s, 8 * s, fill=ACTIVE_LIGHT, stroke=INK)
    fig.text(bx + 8 * s + 8, by + 6 * s, "B: the block's columns", size=12)
    fig.rect(bx, ay, 8 * s, 8 * s, fill=GOOD_LIGHT, stroke=INK)
    fig.text(bx + 8 * s + 8, ay + 4 * s + 4, "C's tile", size=12)
    steps = [("copy A, B tiles", ACTIVE_LIGHT), ("barrier", HOT_LIGHT), ("32 FMAs each", GOOD_LIGHT),
             ("barrier", HOT_LIGHT)]
    x = 420
    fig.text(x, 120, "each k step, every thread of the block:", size=13)
    for i, (label, fill) in enumerate(steps):
        fig.rect(x + i * 98, 134, 90, 34, fill=fill, stroke=INK)
        fig.text(x + i * 98 + 45, 156, label, size=12, anchor="middle")
        if i:
            fig.arrow(x + i * 98 - 8, 151, x + i * 98, 151)
    notes(fig, 420, 200, ["The first barrier: no thread reads a tile before all of it", "has arrived. "
                          "The second: no thread overwrites it while", "another still reads it. "
                          "Each float copied from DRAM feeds", "32 FMAs instead of one."], size=13)
    svgfig.save(fig, "shared_tile")


# 3. v4/v5: register blocking as an outer product.
def register_block():
    fig = svgfig.Figure(820, 320, "v5: a thread's 8 x 8 outputs from 8 + 8 values per k")
    header(fig, "v3 → v5: register blocking, an outer product per k",
           "One thread, one k: 8 values of A's column and 8 of B's row, 64 FMAs into 64 registers.")
    s = 22
    ax, ay = 60, 110
    fig.cells(ax, ay, 1, s, ACTIVE_LIGHT)
    for r in range(8):
        fig.rect(ax, ay + r * s, s, s, fill=ACTIVE_LIGHT, stroke=INK)
        fig.text(ax + s / 2, ay + r * s + 15, f"a{r}", size=11, anchor="middle")
    bx, by = ax + 50, ay - 34
    for c in range(8):
        fig.rect(bx + c * s, by, s, s, fill=HOT_LIGHT, stroke=INK)
        fig.text(bx + c * s + s / 2, by + 15, f"b{c}", size=11, anchor="middle")
    for r in range(8):
        for c in range(8):
            fig.rect(bx + c * s, ay + r * s, s, s, fill=GOOD_LIGHT, stroke=GRID)
    fig.text(bx + 4 * s, ay + 8 * s + 20, "c[r][c] += a[r] · b[c]", size=13, anchor="middle")
    notes(fig, 360, 120, ["v3: two shared loads per FMA.",
                          "v4: 8 outputs in a column: 9 loads per 8 FMAs.",
                          "v5: 8 × 8 outputs: 16 loads per 64 FMAs.",
                          "",
                          "The price is registers: 64 accumulators and the",
                          "operands, 160 a thread in v5, so fewer blocks fit."], size=13)
    svgfig.save(fig, "register_block")


# 4. v11: the block, warp and thread tiles.
def tile_hierarchy():
    fig = svgfig.Figure(820, 366, "v11: block tile, warp tiles, thread tile")
    header(fig, "v10 → v11: a block tile, warp tiles and a thread's outputs",
           "A block's 128 × 256 outputs as 2 × 4 warps of 64 × 64; a thread's 16 × 8 in 4 row "
           "groups and 2 column groups.")
    x0, y0 = 40, 80
    w, h = 512 / 2, 256 / 2  # 256 columns x 128 rows at 1 unit per column
    fig.rect(x0, y0, w, h, fill=IDLE, stroke=INK, width=2)
    for r in range(2):
        for c in range(4):
            fig.rect(x0 + c * w / 4, y0 + r * h / 2, w / 4, h / 2,
                     fill=ACTIVE_LIGHT if (r, c) == (0, 1) else IDLE, stroke=INK)
            fig.text(x0 + c * w / 4 + w / 8, y0 + r * h / 2 + h / 4 + 4, f"warp {r * 4 + c}",
                     size=11, anchor="middle")
    fig.text(x0, y0 + h + 18, "block: 128 rows × 256 columns of C", size=12)
    # the warp tile zoomed: 64 x 64, thread 0's 16 x 8 outputs as 4 row groups x 2 column groups
    zx, zy, zs = 400, 80, 3.0
    fig.rect(zx, zy, 64 * zs, 64 * zs, fill=ACTIVE_LIGHT, stroke=INK, width=2)
    for g in range(4):
        for hgrp in range(2):
            fig.rect(zx + hgrp * 32 * zs, zy + g * 16 * zs, 4 * zs, 4 * zs, fill=GOOD, stroke=INK,
                     width=0.5)
    fig.line(x0 + w / 4 + w / 4, y0, zx, zy, color=MUTED, dash="4 3")
    fig.line(x0 + w / 4 + w / 4, y0 + h / 2, zx, zy + 64 * zs, color=MUTED, dash="4 3")
    fig.text(zx, zy + 64 * zs + 18, "warp 1: 64 × 64; one thread's 16 × 8 outputs in green", size=12)
    notes(fig, 40, 316, ["A thread's outputs are 4 groups of 4 rows 16 apart and 2 groups of 4",
                         "columns 32 apart. A warp's 32 lanes now cover a 64 × 64 square, where",
                         "v10's covered a strip 16 rows tall across all 256 columns."],
          size=13)
    svgfig.save(fig, "tile_hierarchy")


# 4a. v9: the wider block tile, and the warp's strip across it.
def wider_tile():
    fig = svgfig.Figure(820, 372, "v9: a wider block tile, fewer loads per FMA")
    header(fig, "v8 → v9: a 128 × 256 block tile on the same 256 threads",
           "Per k a block copies a column of A and a row of B and multiplies every pair: "
           "the wider the tile, the more FMAs per float.")
    for x0, cols, label, ratio in [(60, 128, "v8: 128 × 128, 8 × 8 a thread", "128 + 128 floats per k, "
                                    "16,384 FMAs: a load per 64"),
                                   (400, 256, "v9: 128 × 256, 16 × 8 a thread", "128 + 256 floats per k, "
                                    "32,768 FMAs: a load per 85")]:
        s = 1.1
        y0 = 110
        fig.text(x0, y0 - 26, label, size=13)
        fig.rect(x0 - 14, y0, 8, 128 * s, fill=ACTIVE_LIGHT, stroke=INK)         # A's column
        fig.rect(x0, y0 - 14, cols * s, 8, fill=ACTIVE_LIGHT, stroke=INK)         # B's row
        fig.rect(x0, y0, cols * s, 128 * s, fill=IDLE, stroke=INK, width=2)      # C's tile
        fig.rect(x0, y0, cols * s, 16 * s, fill=GOOD_LIGHT, stroke=INK)           # warp 0
        fig.text(x0 + 6, y0 + 16 * s - 4, "warp 0", size=10)
        fig.text(x0, y0 + 128 * s + 20, ratio, size=12)
    notes(fig, 40, 316, ["In both, a warp's 32 threads are a strip 16 rows tall across the whole "
                         "tile (green).", "v9 halves the warps per SM (one block of 8 warps, where v8 "
                         "fit two blocks) for a quarter fewer loads per FMA."], size=13)
    svgfig.save(fig, "wider_tile")


# 5. v6 -> v7: which of the 32 banks a warp's lanes hit, before and after.
def banks():
    fig = svgfig.Figure(820, 636, "v6 -> v7: the banks a warp's lanes hit in the B and A tiles")
    header(fig, "v6 → v7: which banks the lanes hit",
           "32 banks of 4 bytes: word w sits in bank w mod 32, and a bank serves one word per pass.")
    x0, s = 110, 21  # the grids: 32 banks of s units from x0

    def bank_numbers(y):
        fig.text(16, y, "bank", size=11, color=MUTED)
        for b in range(32):
            fig.text(x0 + b * s + s / 2, y, str(b), size=11, anchor="middle", color=MUTED)

    def grid_rows(y, labels):
        for r, label in enumerate(labels):
            fig.text(16, y + r * s + 15, label, size=12)
            fig.cells(x0, y + r * s, 32, s, IDLE)

    def lanes(y, boxes, fill, mark=None):
        """boxes: (row, bank, width, label); mark: (rows, color), bank 0's column outlined."""
        for row, bank, width, _ in boxes:
            fig.rect(x0 + bank * s, y + row * s, width * s, s, fill=fill, stroke=INK)
        if mark:
            fig.rect(x0, y, s, mark[0] * s, stroke=mark[1], width=2.5)
        for row, bank, width, label in boxes:
            fig.text(x0 + (bank + width / 2) * s, y + row * s + 15, label,
                     size=12 if width > 1 else 11, anchor="middle")

    # the B tile at one k: 128 floats; lanes c and c + 16 read the same words (one broadcast)
    fig.text(16, 80, "B tile, one k (128 floats): lane c reads its first float4 (lane c + 16 the "
             "same words)", size=13, bold=True)
    bank_numbers(100)
    words = ["words 0–31", "32–63", "64–95", "96–127"]
    fig.text(16, 124, "v6: lane c reads words 8c … 8c + 3 (its second float4 fills the gaps next)",
             size=13, color=HOT)
    lanes_v6 = [(8 * c // 32, 8 * c % 32, 4, f"lane {c}") for c in range(16)]
    grid_rows(132, words)
    lanes(132, lanes_v6, HOT_LIGHT, (4, HOT))
    fig.text(x0, 132 + 4 * s + 18, "Half the banks, 4 words each: bank 0 holds lanes 0, 4, 8 and "
             "12's words, so 4 passes.", size=13, color=HOT)
    fig.text(16, 262, "v7: lane c reads words 4c … 4c + 3 (and 64 + 4c … with its second float4)",
             size=13, color=GOOD)
    lanes_v7 = [(4 * c // 32, 4 * c % 32, 4, f"lane {c}") for c in range(16)]
    grid_rows(270, words)
    lanes(270, lanes_v7, GOOD_LIGHT, (2, GOOD))
    fig.text(x0, 270 + 4 * s + 18, "Every bank, 2 words each: 2 passes, the least that 256 bytes "
             "need.", size=13, color=GOOD)

    # the transposed A tile: lane 2j stores row j's k = 0, lane 2j + 1 its k = 4 (av.x of each)
    fig.text(16, 410, "A tile, stored transposed: lane 2j writes row j at k = 0, lane 2j + 1 at "
             "k = 4", size=13, bold=True)
    bank_numbers(430)
    verdicts = ["Banks 0–15 take 2 words each, banks 16–31 none: 2 passes.",
                "Each bank once: 1 pass. 4 floats of padding per k move k = 4 on by 16 banks."]
    for panel, (y, stride, color, light) in enumerate([(458, 128, HOT, HOT_LIGHT),
                                                       (560, 132, GOOD, GOOD_LIGHT)]):
        start = 4 * stride
        fig.text(16, y - 8, f"v{6 + panel}: {stride} floats per k, so k = 4 starts at word {start}, "
                 f"bank {start % 32}", size=13, color=color)
        grid_rows(y, ["k = 0", "k = 4"])
        boxes = [(ln % 2, (4 * (ln % 2) * stride + ln // 2) % 32, 1, str(ln)) for ln in range(32)]
        lanes(y, boxes, light)
        fig.text(x0, y + 2 * s + 18, verdicts[panel], size=13, color=color)
    svgfig.save(fig, "banks")


# 6. v8: cp.async keeps the next tile in flight while this one is multiplied.
def async_pipeline():
    fig = svgfig.Figure(820, 300, "v8: cp.async copies the next tile while this one is multiplied")
    header(fig, "v7 → v8: copies that need no registers",
           "A block's timeline, two shared-memory buffers: the copy of step t + 1 runs under the "
           "FMAs of step t.")
    x0, y0, wstep = 120, 100, 130
    fig.text(20, y0 + 22, "cp.async", size=13)
    fig.text(20, y0 + 72, "FMAs", size=13)
    for t in range(5):
        fig.rect(x0 + t * wstep, y0, wstep - 10, 32, fill=ACTIVE_LIGHT if t % 2 == 0 else SHADES[3],
                 stroke=INK)
        fig.text(x0 + t * wstep + (wstep - 10) / 2, y0 + 21, f"tile {t} → buf {t % 2}",
                 size=11, anchor="middle")
        if t < 4:
            fig.rect(x0 + (t + 1) * wstep, y0 + 50, wstep - 10, 32, fill=GOOD_LIGHT, stroke=INK)
            fig.text(x0 + (t + 1) * wstep + (wstep - 10) / 2, y0 + 71, f"step {t} (buf {t % 2})",
                     size=11, anchor="middle")
        fig.line(x0 + (t + 1) * wstep - 5, y0 - 6, x0 + (t + 1) * wstep - 5, y0 + 90, color=HOT,
                 dash="3 3")
    fig.text(x0 + wstep - 5, y0 + 108, "wait_group + barrier", size=11, anchor="middle", color=HOT)
    notes(fig, 20, 240, ["LDGSTS moves global memory into shared memory without a register, and "
                         "the thread goes on to its FMAs;", "in v10 the registers this saves hold "
                         "a second set of operands, read for k + 1 while k's FMAs run."], size=13)
    svgfig.save(fig, "async_pipeline")


# 7. v13: split-K and the waves it fills.
def split_k():
    fig = svgfig.Figure(820, 360, "v13: split-K fills the SMs when C has few tiles")
    header(fig, "v12 → v13: split-K, and the waves over the SMs",
           "256 × 256 × 65536: C has 2 tiles of 128 × 256, so 2 blocks on 132 SMs, each a long "
           "product; S slices of k give 2·S blocks.")
    x0, y0 = 40, 84
    fig.text(x0, y0 + 10, "k split in S = 4 slices: each block multiplies one slice", size=13)
    for s in range(4):
        fig.rect(x0 + s * 60, y0 + 24, 56, 26, fill=SHADES[s], stroke=INK)
        fig.text(x0 + s * 60 + 28, y0 + 42, f"k{s}", size=12, anchor="middle")
    fig.text(x0, y0 + 80, "S partial products in a workspace, added in slice order:", size=13)
    for s in range(4):
        fig.rect(x0 + s * 70, y0 + 92, 50, 50, fill=SHADES[s], stroke=INK)
        fig.text(x0 + s * 70 + 25, y0 + 122, f"C{s}", size=12, anchor="middle")
        fig.text(x0 + s * 70 + 60, y0 + 122, "+" if s < 3 else "=", size=16, anchor="middle")
    fig.rect(x0 + 4 * 70, y0 + 92, 50, 50, fill=GOOD_LIGHT, stroke=INK)
    fig.text(x0 + 4 * 70 + 25, y0 + 122, "C", size=12, anchor="middle")
    # SM occupancy bars
    sx, sy = 420, 100
    fig.text(sx, sy - 6, "132 SMs, one bar per SM (a block each):", size=13)
    for row, (label, busy) in enumerate([("S = 1: 2 blocks", 2), ("S = 32: 64 blocks", 64),
                                          ("S = 66, v13's count: 132 blocks", 132)]):
        y = sy + 10 + row * 56
        for i in range(132):
            fig.rect(sx + i * 2.8, y, 2.6, 22, fill=GOOD if i < busy else IDLE, stroke="none")
        fig.text(sx, y + 38, label, size=12, color=MUTED)
    notes(fig, 40, 300, ["S is counted, not tuned: time(S) ≈ ⌈tiles·S / SMs⌉ · ⌈steps / S⌉ plus the "
                         "sum of the S partial matrices; the smallest wins."], size=13)
    svgfig.save(fig, "split_k")




if __name__ == "__main__":
    coalescing()
    shared_tile()
    register_block()
    wider_tile()
    tile_hierarchy()
    banks()
    async_pipeline()
    split_k()
