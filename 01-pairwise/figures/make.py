"""The figures of lesson 01-pairwise: python3 01-pairwise/figures/make.py writes the SVGs here."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import ACTIVE, ACTIVE_LIGHT, GOOD, GOOD_LIGHT, GRID, HOT, HOT_LIGHT, IDLE, INK  # noqa: E402

WHITE = "#ffffff"


def fan(fig, xs_from, y_from, xs_to, y_to, color, width=0.8):
    """A line from every point of one row to every point of another: all read all."""
    for x1 in xs_from:
        for x2 in xs_to:
            fig.line(x1, y_from, x2, y_to, color=color, width=width)


def centres(x, n, size):
    return [x + i * size + size / 2 for i in range(n)]


def threads(fig, x, y, labels, size=34, height=24):
    """A row of thread boxes (ACTIVE) with white labels."""
    for i, s in enumerate(labels):
        if s == "…":
            fig.text(x + i * size + size / 2, y + 16, s, size=14, anchor="middle")
            continue
        fig.rect(x + i * size + 2, y, size - 4, height, fill=ACTIVE, stroke=INK, radius=3)
        fig.text(x + i * size + size / 2, y + 16, s, size=12, anchor="middle", color=WHITE)


def pair_grid():
    fig = svgfig.Figure(820, 400, "The n × n pair space cut into blocks; one block walks its tiles of b")
    # Left: the whole pair space, schematic n = 16384 (v6–v8 blocks: 2048 a × 4096 b).
    x0, y0, side = 92, 70, 240
    rows, cols = 8, 16  # block strips of a; tiles of b (4 per block)
    rh, cw = side / rows, side / cols
    fig.text(20, 24, "Every pair (i, j) counts: S = Σ_i Σ_j |a[i] − b[j]|, all n × n", size=15, bold=True)
    fig.text(x0, y0 - 22, "j: columns, over b", size=13)
    fig.arrow(x0 + 128, y0 - 26, x0 + 170, y0 - 26)
    for k, s in enumerate(["i: rows,", "over a"]):
        fig.text(x0 - 8, y0 + 14 + 16 * k, s, size=13, anchor="end")
    fig.arrow(x0 - 30, y0 + 40, x0 - 30, y0 + 84)
    bx, by = 1, 2  # the block we follow: block column 1, block row 2
    top = y0 + by * rh
    for t in range(4):
        x = x0 + (4 * bx + t) * cw
        fill = [GOOD_LIGHT, ACTIVE_LIGHT, WHITE, WHITE][t]
        fig.rect(x, top, cw, rh, fill=fill, stroke="none")
    for r in range(rows + 1):
        fig.line(x0, y0 + r * rh, x0 + side, y0 + r * rh, color=GRID if r % rows else INK, width=1)
    for c in range(cols + 1):
        strong = c % 4 == 0
        fig.line(x0 + c * cw, y0, x0 + c * cw, y0 + side, color=INK if strong else GRID,
                 width=1.4 if strong else 0.8)
    fig.rect(x0 + 4 * bx * cw, top, 4 * cw, rh, stroke=ACTIVE, width=2.5)
    fig.rect(x0 + (4 * bx + 1) * cw, top, cw, rh, stroke=INK, width=1.5)
    fig.arrow(x0 + (4 * bx + 2) * cw + 3, top + rh / 2, x0 + (4 * bx + 4) * cw - 3, top + rh / 2,
              color=ACTIVE, width=2)
    fig.text(x0 + side / 2, y0 + side + 22, "one block = a strip of a rows × 4 tiles of b", size=13,
             anchor="middle")
    fig.text(x0 + side / 2, y0 + side + 40, "(bold lines: blocks; thin: tiles of 1024 b)", size=12,
             anchor="middle")
    # Legend for the three states of the block's tiles.
    ly = y0 + side + 52
    for k, (fill, what) in enumerate([(GOOD_LIGHT, "done"), (ACTIVE_LIGHT, "in shared now"),
                                      (WHITE, "next")]):
        lx = x0 - 30 + [0, 80, 210][k]
        fig.rect(lx, ly, 14, 14, fill=fill, stroke=INK)
        fig.text(lx + 20, ly + 12, what, size=12)
    # Right: zoom into the current tile.
    zx, zy, cs, zrows = 480, 96, 24, 6
    ncol = 12
    tx = x0 + (4 * bx + 2) * cw
    fig.line(tx, top, zx, zy, color=GRID, dash="4 3")
    fig.line(tx, top + rh, zx, zy + 26 + zrows * cs, color=GRID, dash="4 3")
    fig.text(zx, zy - 30, "the current tile: tile_b in shared memory", size=13, bold=True)
    fig.text(zx, zy - 12, "1024 b values (v2–v5: 256)", size=12)
    k = 4  # the column every thread reads at this step
    fills = [ACTIVE_LIGHT] * ncol
    fills[k] = ACTIVE
    fig.cells(zx, zy, ncol, cs, fills)
    fig.text(zx + ncol * cs + 6, zy + 17, "b", size=13)
    gy = zy + 26
    labels = ["t0", "t1", "t2", "t3", "⋮", "t255"]
    for r, lab in enumerate(labels):
        y = gy + r * cs
        fig.text(zx - 8, y + 17, lab, size=12, anchor="end")
        if lab == "⋮":
            continue
        fig.cells(zx, y, k, cs, ACTIVE_LIGHT)
        fig.cells(zx + k * cs, y, ncol - k, cs, WHITE)
        fig.arrow(zx + 3, y + cs / 2, zx + k * cs + cs / 2, y + cs / 2, color=ACTIVE, width=2)
    fig.rect(zx + k * cs, zy, cs, 26 + zrows * cs, stroke=ACTIVE, width=2)
    notes = [
        "Each row is one a value in a thread's register;",
        "its thread sweeps the row left to right. At each",
        "step all threads read the same b: a broadcast.",
        "v2–v3: one row per thread; v2–v5: one tile a block.",
        "v4–v8: 8 or 16 rows per thread (t, t+T, …),",
        "and from v6 on a block walks 4 tiles.",
    ]
    for i, s in enumerate(notes):
        fig.text(zx - 40, gy + zrows * cs + 26 + i * 17, s, size=12)
    svgfig.save(fig, "pair_grid")


def shared_tile_reuse():
    fig = svgfig.Figure(820, 420, "v1 loads every b once per thread; v2 once per block, behind a barrier")
    cs = 28
    # v1: every thread reads every b of the run from global memory.
    fig.text(20, 24, "v1: each of the 256 threads loads all 256 b of the run from global memory",
             size=14, bold=True)
    gx, gy, ty = 120, 44, 132
    labs = ["0", "1", "2", "…", "254", "255"]
    fig.text(gx - 10, gy + 19, "global b", size=13, anchor="end")
    fig.cells(gx, gy, 6, cs * 1.4, HOT_LIGHT, labels=labs, stroke=INK)
    fig.text(gx - 10, ty + 17, "threads", size=13, anchor="end")
    threads(fig, gx, ty, ["t0", "t1", "t2", "…", "t254", "t255"], size=cs * 1.4)
    pts = [c for i, c in enumerate(centres(gx, 6, cs * 1.4)) if i != 3]
    fan(fig, pts, gy + cs * 1.4, pts, ty, HOT)
    fig.text(400, 74, "256 threads × 256 b =", size=14)
    fig.text(400, 94, "65,536 global loads per block", size=14, bold=True, color=HOT)
    fig.text(400, 114, "(L1 merges a warp's same-address loads,", size=12)
    fig.text(400, 130, "but every load is still issued)", size=12)
    fig.line(20, 172, 800, 172, color=GRID, width=1)
    # v2: load once, barrier, everyone reads shared memory; (v6-v8) barrier, next tile.
    fig.text(20, 198, "v2: the block copies the run into shared memory once, then every thread reads it",
             size=14, bold=True)
    top, bot = 212, 390
    gx, sy = 36, 232
    fig.cells(gx, sy, 6, cs, HOT_LIGHT, labels=labs, label_size=12, stroke=INK)
    fig.text(gx, sy - 4, "global b", size=12)
    ty2 = 322
    for i, c in enumerate(centres(gx, 6, cs)):
        if i != 3:
            fig.arrow(c, sy + cs, c, ty2 - 2, color=ACTIVE, width=1.5)
    fig.cells(gx, ty2, 6, cs, ACTIVE_LIGHT, labels=labs, label_size=12, stroke=INK)
    fig.text(gx, ty2 + cs + 16, "tile_b (shared)", size=12)
    fig.text(gx + 6 * cs + 10, 274, "thread t", size=12)
    fig.text(gx + 6 * cs + 10, 290, "copies b[t]:", size=12)
    fig.text(gx + 6 * cs + 10, 306, "256 loads", size=12, bold=True, color=GOOD)
    # barrier 1
    b1 = 300
    fig.line(b1, top, b1, bot, color=GOOD, width=3)
    fig.text(b1, bot + 18, "__syncthreads()", size=12, anchor="middle", mono=True, color=GOOD)
    # compute phase
    sx, w = 322, cs * 1.3
    fig.cells(sx, sy, 6, w, ACTIVE_LIGHT, labels=labs, label_size=12, stroke=INK)
    fig.text(sx, sy - 4, "tile_b (shared)", size=12)
    threads(fig, sx, ty2, ["t0", "t1", "t2", "…", "t254", "t255"], size=w)
    pts = [c for i, c in enumerate(centres(sx, 6, w)) if i != 3]
    fan(fig, pts, sy + w, pts, ty2, ACTIVE)
    fig.text(sx + 3 * w, ty2 + 44, "256 × 256 reads, each a broadcast", size=12, anchor="middle")
    # barrier 2 (v6-v8 walk several tiles per block)
    b2 = 568
    fig.line(b2, top, b2, bot, color=GOOD, width=3, dash="7 4")
    fig.text(b2, bot + 18, "__syncthreads()", size=12, anchor="middle", mono=True, color=GOOD)
    nx = 600
    fig.cells(nx, sy, 4, cs, IDLE, stroke=GRID)
    for c in centres(nx, 4, cs):
        fig.arrow(c, sy + cs, c, ty2 - 2, color=GRID, width=1.5)
    fig.cells(nx, ty2, 4, cs, IDLE, stroke=GRID)
    fig.text(nx, sy - 4, "next tile (v6–v8)", size=12)
    for i, s in enumerate(["v6–v8 walk 4 tiles per", "block: all warps must be",
                           "done before tile_b is", "overwritten"]):
        fig.text(nx + 32, ty2 + cs + 16 + i * 15, s, size=12)
    fig.arrow(20, bot + 14, 200, bot + 14, color=INK, width=1.2)
    fig.text(20, bot + 4, "time", size=12)
    svgfig.save(fig, "shared_tile_reuse")


def register_block():
    fig = svgfig.Figure(820, 400, "v5: one float4 of b times 8 a values in registers = 32 pairs")
    fig.text(20, 24, "v5: one thread's outer product per shared-memory load", size=15, bold=True)
    cw, ch = 54, 30
    ax, gx, gy = 130, 190, 100
    # the float4 of b, one 16-byte broadcast
    fig.text(gx + 2 * cw, 52, "v = tile[q]: one float4, one 16-byte LDS.128", size=13, anchor="middle")
    for i in range(4):
        fig.rect(gx + i * cw, 62, cw, 28, fill=ACTIVE_LIGHT, stroke=INK)
    for i, s in enumerate(["v.x", "v.y", "v.z", "v.w"]):
        fig.text(gx + i * cw + cw / 2, 62 + 19, s, size=13, anchor="middle", mono=True)
    fig.rect(gx, 62, 4 * cw, 28, stroke=INK, width=2)
    # the 8 a values in registers
    fig.text(ax + 22, gy - 9, "a_reg", size=12, anchor="middle", mono=True)
    for r in range(8):
        y = gy + r * ch
        fig.rect(ax, y, 44, ch, fill=ACTIVE_LIGHT, stroke=INK)
        fig.text(ax + 22, y + 20, f"a{r}", size=13, anchor="middle")
        fig.text(ax - 8, y + 20, f"a[i+{256 * r}]", size=12, anchor="end", mono=True)
        for c in range(4):
            fig.rect(gx + c * cw, y, cw, ch, fill=ACTIVE, stroke=WHITE)
            fig.text(gx + c * cw + cw / 2, y + 20, "|−|", size=12, anchor="middle", color=WHITE)
    fig.rect(gx, gy, 4 * cw, 8 * ch, stroke=INK, width=2)
    fig.text(ax + 22, gy + 8 * ch + 18, "registers", size=12, anchor="middle")
    # the 8 independent sums
    rx = gx + 4 * cw + 12
    fig.path(f"M {rx} {gy + 2} q 8 0 8 8 L {rx + 8} {gy + 4 * ch - 8} q 0 8 8 8 "
             f"q -8 0 -8 8 L {rx + 8} {gy + 8 * ch - 10} q 0 8 -8 8", color=INK, width=1.2)
    fig.text(rx + 24, gy + 4 * ch - 6, "partial[r] +=", size=12, mono=True)
    fig.text(rx + 24, gy + 4 * ch + 10, "4 pairs per row:", size=12)
    fig.text(rx + 24, gy + 4 * ch + 26, "8 independent sums", size=12)
    fig.text(gx + 2 * cw, gy + 8 * ch + 24, "8 × 4 = 32 pairs = 64 FADDs", size=14, bold=True,
             anchor="middle", color=GOOD)
    fig.text(gx + 2 * cw, gy + 8 * ch + 42, "per 16 bytes read from shared memory", size=13,
             anchor="middle", color=GOOD)
    # contrast: v2-v3
    cx = 600
    fig.line(cx - 30, 44, cx - 30, 360, color=GRID)
    fig.text(cx, 52, "v2–v3: one a per thread", size=14, bold=True)
    fig.rect(cx + 60, 62, cw, 28, fill=ACTIVE_LIGHT, stroke=INK, width=2)
    fig.text(cx + 60 + cw / 2, 81, "b", size=13, anchor="middle", mono=True)
    fig.rect(cx, gy, 44, ch, fill=ACTIVE_LIGHT, stroke=INK)
    fig.text(cx + 22, gy + 20, "a", size=13, anchor="middle")
    fig.rect(cx + 60, gy, cw, ch, fill=HOT, stroke=INK)
    fig.text(cx + 60 + cw / 2, gy + 20, "|−|", size=12, anchor="middle", color=WHITE)
    fig.text(cx, gy + 60, "1 pair per 4-byte", size=13, bold=True, color=HOT)
    fig.text(cx, gy + 77, "shared-memory load", size=13, bold=True, color=HOT)
    for i, s in enumerate(["(v4: 8 a values, still one", "4-byte load per b value)"]):
        fig.text(cx, gy + 98 + i * 17, s, size=12)
    fig.text(cx, gy + 170, "v8: 16 a values per", size=13, bold=True, color=GOOD)
    fig.text(cx, gy + 187, "thread, 64 pairs per", size=13, bold=True, color=GOOD)
    fig.text(cx, gy + 204, "16-byte load", size=13, bold=True, color=GOOD)
    svgfig.save(fig, "register_block")


def block_reduce_atomic():
    fig = svgfig.Figure(820, 420, "v3: warp shuffles and a block step, one atomicAdd per block")
    # Left: v1-v2, one atomic per thread.
    fig.text(20, 24, "v1–v2: one atomicAdd per thread", size=14, bold=True)
    tx, ty, ts = 24, 56, 34
    labs = ["t0", "t1", "t2", "t3", "…", "t254", "t255"]
    threads(fig, tx, ty, labs, size=ts)
    sx, sy = tx + 3.5 * ts, 250
    for i, c in enumerate(centres(tx, 7, ts)):
        if i != 4:
            fig.arrow(c, ty + 26, sx + (c - sx) * 0.15, sy - 2, color=HOT, width=1.5)
    fig.rect(sx - 50, sy, 100, 30, fill=HOT_LIGHT, stroke=INK, radius=4)
    fig.text(sx, sy + 20, "sum (double)", size=13, anchor="middle")
    fig.text(sx, sy + 46, "one global address", size=12, anchor="middle")
    for i, s in enumerate(["256 atomics per block,", "serialised in L2:", "n²/256 in all",
                           "(2^32 at n = 2^20)"]):
        fig.text(20, 318 + i * 18, s, size=13, bold=i >= 2, color=HOT if i >= 2 else INK)
    fig.line(290, 40, 290, 400, color=GRID)
    # Right: v3.
    fig.text(310, 24, "v3: add inside the block, then one atomicAdd", size=14, bold=True)
    # warp 0 in detail: 8 lanes drawn for 32, a shuffle tree
    lx, ly, lw, lev = 330, 56, 22, 34
    fig.text(lx, ly - 6, "warp 0 (32 lanes)", size=12)
    fig.cells(lx, ly, 8, lw, ACTIVE, stroke=WHITE)
    for lvl in range(1, 4):
        n = 8 >> lvl
        y = ly + lvl * lev
        for k in range(n):
            for src in (k, k + n):
                xs = lx + src * lw + lw / 2
                fig.line(xs, y - lev + lw, lx + k * lw + lw / 2, y, color=ACTIVE, width=1)
        fig.cells(lx, y, n, lw, ACTIVE_LIGHT if lvl < 3 else ACTIVE, stroke=INK)
    fig.text(lx + 8 * lw + 10, ly + lev + 16, "__shfl_down_sync", size=12, mono=True)
    fig.text(lx + 8 * lw + 10, ly + lev + 32, "offsets 16, 8, 4, 2, 1:", size=12)
    fig.text(lx + 8 * lw + 10, ly + lev + 48, "5 steps, in registers", size=12)
    # warps 1-7 as triangles
    wx = 650
    fig.text(wx, ly - 6, "warps 1–7, the same", size=12)
    for w in range(7):
        x = wx + w * 22
        fig.path(f"M {x} {ly} L {x + 18} {ly} L {x + 9} {ly + 3 * lev} Z", color=INK, width=1,
                 fill=ACTIVE_LIGHT)
    # warp_sums in shared memory
    wsx, wsy, wsc = 430, 210, 30
    fig.cells(wsx, wsy, 8, wsc, ACTIVE_LIGHT, labels=[str(i) for i in range(8)], stroke=INK)
    fig.text(wsx - 8, wsy + 12, "warp_sums[8]", size=12, anchor="end", mono=True)
    fig.text(wsx - 8, wsy + 28, "(shared)", size=12, anchor="end")
    fig.arrow(lx + lw / 2, ly + 3 * lev + lw, wsx + wsc / 2, wsy - 2, color=INK, width=1.2)
    for w in range(7):
        x = wx + w * 22 + 9
        fig.arrow(x, ly + 3 * lev + 2, wsx + (w + 1) * wsc + wsc / 2, wsy - 2, color=INK, width=0.8)
    fig.text(wsx + 8 * wsc + 10, wsy + 12, "lane 0 of each warp", size=12)
    fig.text(wsx + 8 * wsc + 10, wsy + 28, "writes its warp's sum", size=12)
    fig.line(310, wsy + 42, 800, wsy + 42, color=GOOD, width=3)
    fig.text(800, wsy + 58, "__syncthreads()", size=12, anchor="end", mono=True, color=GOOD)
    # warp 0 adds the 8, thread 0 issues the one atomic
    by = wsy + 92
    fig.path(f"M {wsx} {wsy + 50} L {wsx + 8 * wsc} {wsy + 50} L {wsx + 4 * wsc + 15} {by} "
             f"L {wsx + 4 * wsc - 15} {by} Z", color=INK, width=1, fill=ACTIVE_LIGHT)
    fig.text(wsx - 8, by - 14, "warp 0 adds the 8", size=12, anchor="end")
    bs = wsx + 4 * wsc
    fig.rect(bs - 40, by, 80, 26, fill=ACTIVE, stroke=INK, radius=3)
    fig.text(bs, by + 18, "thread 0", size=12, anchor="middle", color=WHITE)
    fig.arrow(bs + 40, by + 13, bs + 120, by + 13, color=GOOD, width=2.5)
    fig.text(bs + 80, by + 6, "atomicAdd", size=12, anchor="middle", mono=True, color=GOOD)
    fig.rect(bs + 122, by - 2, 100, 30, fill=GOOD_LIGHT, stroke=INK, radius=4)
    fig.text(bs + 172, by + 18, "sum (double)", size=13, anchor="middle")
    fig.text(310, 394, "1 atomic per block: n²/65,536 in all (2^24 at n = 2^20), 256 × fewer",
             size=13, bold=True, color=GOOD)
    svgfig.save(fig, "block_reduce_atomic")


pair_grid()
shared_tile_reuse()
register_block()
block_reduce_atomic()
