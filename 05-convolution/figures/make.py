"""Figures of lesson 05-convolution: `python3 05-convolution/figures/make.py` writes figures/*.svg."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import ACTIVE, ACTIVE_LIGHT, GOOD, GOOD_LIGHT, GRID, HOT, HOT_LIGHT, IDLE, INK, SHADES, MUTED, header, notes  # noqa: E402

# 1. v3 -> v4: the tile and its halo in shared memory, one thread's outputs and its register window.
def window():
    fig = svgfig.Figure(820, 370, "v4: a sliding window of inputs in registers")
    header(fig, "v3 → v4: the shared tile, and a window of inputs in registers",
           "Toy sizes: K = 7 (r = 3), 4 threads of 8 outputs (the lesson: 128 threads, 1024 outputs "
           "a block).")
    size = 20
    x0 = 40
    n = 32 + 6
    fills = [HOT_LIGHT] * 3 + [ACTIVE_LIGHT] * 32 + [HOT_LIGHT] * 3
    fig.text(x0, 84, "shared tile: the block's 32 inputs and the K − 1 = 6 of its halo, "
             "zero past the signal's ends", size=13)
    fig.cells(x0, 94, n, size, fills)
    fig.text(x0 + 1.5 * size, 132, "halo", size=12, anchor="middle", color=HOT)
    fig.text(x0 + 36.5 * size, 132, "halo", size=12, anchor="middle", color=HOT)
    # thread 1's outputs 8..15 read inputs 8-3 .. 15+3
    t = 1
    out_x = x0 + (3 + 8 * t) * size
    fig.text(x0, 168, "outputs (y): thread 1 owns 8 consecutive ones", size=13)
    fig.cells(x0 + 3 * size, 178, 32, size,
              [ACTIVE if 8 * t <= i < 8 * t + 8 else IDLE for i in range(32)])
    for q in range(8):
        fig.text(out_x + q * size + size / 2, 192, f"{q}", size=10, anchor="middle", color="white")
    # the window for taps j..j+3 at j = 0 and j = 4
    for step, (j, y) in enumerate([(0, 238), (4, 300)]):
        first = 8 * t + j  # tile index of window[0]: input 8t + j - r, tile offset +r
        fig.text(x0, y - 12, f"registers, taps {j}..{j + 3}: window[0..11] = tile[{first}..{first + 11}]"
                 + ("" if step == 0 else "  (slid by 4: one 16-byte load brought the last 4)"),
                 size=13)
        fills = [IDLE] * n
        for k in range(12):
            fills[first + k] = GOOD_LIGHT if (step == 1 and k >= 8) else ACTIVE_LIGHT
        fig.cells(x0, y, n, size, fills)
        for k in range(12):
            fig.text(x0 + (first + k) * size + size / 2, y + 14, f"{k}", size=10, anchor="middle")
    notes(fig, x0, 346, ["sum[q] += window[q + t] · w[j + t] for q < 8, t < 4: 32 FMAs per 4 taps "
                         "from registers (v3: a shared load per FMA)."], size=13)
    svgfig.save(fig, "window")


# 2. v5 -> v6: which outputs a lane owns, drawn over the 32 banks.
def lanes():
    fig = svgfig.Figure(820, 330, "v6: a lane's outputs side by side with its neighbours'")
    header(fig, "v5 → v6: where a lane's outputs sit in the tile",
           "A row is 128 bytes of the tile: 32 floats, one per bank. Colour: the lane that "
           "loads them (16 bytes each).")
    size = 22
    x0 = 40
    # v5: lane l owns 8 consecutive floats 8l..8l+7; its first load is 8l..8l+3
    fig.text(x0, 84, "v5: lane l owns outputs 8l … 8l + 7 (lanes 32 bytes apart)", size=14, bold=True)
    for row in range(2):
        fills, labels = [], []
        for b in range(32):
            i = row * 32 + b
            lane = i // 8
            first_load = i % 8 < 4
            fills.append(SHADES[lane % 8] if first_load else IDLE)
            labels.append(f"{lane}" if i % 8 == 0 else "")
        fig.cells(x0, 96 + row * size, 32, size, fills, labels, label_size=11)
        fig.text(x0 + 32 * size + 8, 96 + row * size + 15, f"row {row}", size=12, color=MUTED)
    notes(fig, x0, 160, ["The first loads of lanes 0 and 4 both hit banks 0–3, lanes 1 and 5 banks "
                         "8–11: a quarter-warp of 8 lanes", "is served in two passes, a two-way "
                         "conflict on every window load (coloured: each lane's first load)."],
          size=13, color=HOT)
    fig.text(x0, 218, "v6: lane l owns outputs 4l … 4l + 3 and 4l + 512 … 4l + 515", size=14,
             bold=True)
    fills, labels = [], []
    for b in range(32):
        lane = b // 4
        fills.append(SHADES[lane % 8])
        labels.append(f"{lane}" if b % 4 == 0 else "")
    fig.cells(x0, 230, 32, size, fills, labels, label_size=11)
    fig.text(x0 + 32 * size + 8, 245, "row 0", size=12, color=MUTED)
    notes(fig, x0, 278, ["A quarter-warp reads 128 contiguous bytes: every bank once, one pass. "
                         "The stores fill whole 32-byte sectors too."], size=13, color=GOOD)
    svgfig.save(fig, "lanes")


# 3. v11 and v13: outputs as a Hankel matrix of inputs times a band of taps.
def hankel_band():
    fig = svgfig.Figure(820, 430, "v11: a Hankel matrix of inputs times a band of taps")
    header(fig, "v11 → v13: the convolution as a matrix product on the tensor cores",
           "Toy sizes: K = 3, 4 × 4 outputs (the lesson: 16 × 16 per mma pair, k-steps of 8).")
    size = 30
    ax, ay = 40, 110
    k = 3 + 3  # K + 4 - 1 columns of A, rows of B
    fig.text(ax, ay - 14, "A[m][u] = x[4m + u − r], r = 1", size=13)
    for m in range(4):
        labels = [f"x{4 * m + u - 1}".replace("-", "−") for u in range(k)]
        fills = [SHADES[(4 * m + u) % 8] for u in range(k)]
        fig.cells(ax, ay + m * size, k, size, fills, labels, label_size=11)
    fig.text(ax + k * size + 24, ay + 2 * size + 6, "×", size=22)
    bx = ax + k * size + 60
    fig.text(bx, ay - 14, "B[u][n] = w[u − n]: a band", size=13)
    for u in range(k):
        fills, labels = [], []
        for n in range(4):
            j = u - n
            inside = 0 <= j < 3
            # k-steps of 2 rows: step 0 = rows 0-1, step 1 = rows 2-3, step 2 = rows 4-5;
            # left half n < 2 is zero in step 2, right half n >= 2 zero in step 0
            skipped = (u >= 4 and n < 2) or (u < 2 and n >= 2)
            fills.append(ACTIVE_LIGHT if inside else (HOT_LIGHT if skipped else IDLE))
            labels.append(f"w{j}" if inside else "0")
        fig.cells(bx, ay + u * size, 4, size, fills, labels, label_size=11)
    for s in range(3):
        fig.text(bx + 4 * size + 8, ay + (2 * s + 1) * size + 4, f"k-step {s}", size=11,
                 color=MUTED)
    fig.line(bx + 2 * size, ay - 4, bx + 2 * size, ay + k * size + 4, color=INK, width=2, dash="4 3")
    dx = bx + 4 * size + 110
    fig.text(dx - 30, ay + 2 * size + 6, "=", size=22)
    fig.text(dx, ay - 14, "D[m][n] = y[4m + n]", size=13)
    for m in range(4):
        fig.cells(dx, ay + m * size, 4, size, GOOD_LIGHT, [f"y{4 * m + n}" for n in range(4)],
                  label_size=11)
    notes(fig, 40, ay + 6 * size + 30, [
        "Row m of A is the input window of outputs 4m … 4m + 3; consecutive rows start 4 apart, so A "
        "is read",
        "straight from the staged inputs, never copied. Column n of B holds the taps, shifted down "
        "by n.",
        "Each output costs K + 3 multiply-adds here (K + 15 in the lesson) instead of K: the zeros "
        "of the band.",
    ], size=13)
    notes(fig, 40, ay + 6 * size + 96, [
        "v13: each half of B (left of the dashed line, and right of it) is all zeros in one k-step "
        "(orange):",
        "no mma is issued there. In the lesson that is 1 k-step of 18 per half at K = 127.",
    ], size=13, color=HOT)
    svgfig.save(fig, "hankel_band")


# 4. v14: im2col turns the layer into a matrix product.
def im2col():
    fig = svgfig.Figure(820, 440, "v14: im2col, the layer as a matrix product")
    header(fig, "v14: im2col — the layer as one matrix product",
           "Toy sizes: C = 2 channels, K = 3 (r = 1), L = 6 positions, C_out = 2.")
    size = 28
    x0, y0 = 40, 100
    fig.text(x0, y0 - 12, "input x[ci][i]", size=13)
    for ci in range(2):
        fig.cells(x0, y0 + ci * size, 6, size, SHADES[ci * 2],
                  [f"{'ab'[ci]}{i}" for i in range(6)], label_size=11)
    fig.arrow(x0 + 6 * size + 12, y0 + size, x0 + 6 * size + 64, y0 + size)
    cx = x0 + 6 * size + 80
    fig.text(cx, y0 - 12, "columns: row (ci, j), column i holds x[ci][i + j − r]", size=13)
    for ci in range(2):
        for j in range(3):
            row = ci * 3 + j
            labels, fills = [], []
            for i in range(6):
                src = i + j - 1
                if 0 <= src < 6:
                    labels.append(f"{'ab'[ci]}{src}")
                    fills.append(SHADES[ci * 2])
                else:
                    labels.append("0")
                    fills.append(IDLE)
            fig.cells(cx, y0 + row * size, 6, size, fills, labels, label_size=11)
            fig.text(cx + 6 * size + 8, y0 + row * size + 18, f"ci = {ci}, j = {j}", size=11,
                     color=MUTED)
    wy = y0 + 6 * size + 40
    fig.text(x0, wy - 12, "weights W[co][ci·K + j]", size=13)
    for co in range(2):
        fig.cells(x0, wy + co * size, 6, size, ACTIVE_LIGHT,
                  [f"w{co}{k}" for k in range(6)], label_size=10)
    fig.text(x0, wy + 2 * size + 24, "y = W × columns", size=14, bold=True)
    notes(fig, cx, wy + 8, [
        "Each input appears K times in the columns:",
        "v14 writes K times the input, then lesson 02's",
        "kernel multiplies (C_out × C·K) by (C·K × L).",
        "v15 (implicit GEMM) copies each row of a B",
        "tile straight from its shifted input row instead.",
    ], size=13)
    svgfig.save(fig, "im2col")


# 5. v19: the tile height per layer, by the rows each height computes.
def tile_pick():
    fig = svgfig.Figure(820, 390, "v19: the tile height per layer")
    header(fig, "v18 → v19: a tile height per layer, by the rows it computes",
           "Blocks of output channels stacked over C_out: green rows are the layer's, orange rows "
           "multiply zeros.")
    layers = [16, 48, 96, 128]
    heights = [32, 64, 128]
    scale = 1.5  # units per row
    x0, base = 150, 330
    for li, c in enumerate(layers):
        gx = x0 + li * 170
        fig.text(gx + 55, base + 40, f"C_out = {c}" + (", K ≥ 3" if c == 128 else ""), size=13, anchor="middle", bold=True)
        rows = {h: (c + h - 1) // h * h for h in heights}
        best = min(rows.values())
        pick = max(h for h in heights if rows[h] == best)
        for hi, h in enumerate(heights):
            bx = gx + hi * 40
            total = rows[h]
            for blk in range(total // h):
                y_top = base - (blk + 1) * h * scale
                used = max(0, min(h, c - blk * h))
                fig.rect(bx, base - blk * h * scale - used * scale, 30, used * scale, fill=GOOD_LIGHT,
                         stroke="none")
                if used < h:
                    fig.rect(bx, y_top, 30, (h - used) * scale, fill=HOT_LIGHT, stroke="none")
                fig.rect(bx, y_top, 30, h * scale, fill="none", stroke=INK, width=1)
            fig.text(bx + 15, base + 18, f"{h}", size=11, anchor="middle",
                     color=GOOD if h == pick else MUTED, bold=h == pick)
    fig.text(16, base + 18, "tile height:", size=11, color=MUTED)
    notes(fig, 16, 80, ["Fewest rows computed wins; on a tie the taller tile (each input slice "
                        "copied for more rows).", "128 rows also needs C·K ≥ 384, else 64: the "
                        "block's pipeline fill is not repaid over a short k loop."], size=13)
    svgfig.save(fig, "tile_pick")


# 6. v7 -> v8: v7's resident grid, each block walking its tiles through a ring of three stages.
def pipeline():
    fig = svgfig.Figure(820, 420, "v8: a resident grid and a three-stage cp.async ring")
    header(fig, "v7 → v8: a ring of three stages per block in v7's resident grid",
           "Toy sizes: 16 tiles, a grid of 4 blocks (the lesson: as many blocks as the SMs hold, "
           "1024 outputs a tile).")
    x0, size = 40, 40
    blocks, tiles = 4, 16
    # the blocks' colours, apart from those of a copy and a computation
    block_fill = [SHADES[3], SHADES[4], SHADES[6], SHADES[7]]
    fig.text(x0, 84, f"The signal's {tiles} tiles: block b computes tiles b, b + 4, b + 8, b + 12 "
             "(colour: the block)", size=13)
    fig.cells(x0, 94, tiles, size, [block_fill[t % blocks] for t in range(tiles)],
              [f"{t}" for t in range(tiles)], label_size=12)
    mine = 1
    for t in range(mine, tiles, blocks):
        fig.rect(x0 + t * size, 94, size, size, stroke=ACTIVE, width=3)
    fig.text(x0 + tiles * size + 10, 110, "block 1's", size=12, color=ACTIVE)
    fig.text(x0 + tiles * size + 10, 125, "tiles are", size=12, color=ACTIVE)
    fig.text(x0 + tiles * size + 10, 140, "outlined", size=12, color=ACTIVE)
    # block 1's ring: stage k is tile mine + 4k, in buffer k % 3; step k computes stage k after
    # queueing the copy of stage k + 2 into the buffer that step k - 1 computed
    stages, steps = 3, tiles // blocks
    fig.text(x0, 172, "Block 1's three stage buffers in shared memory, step by step (time runs "
             "to the right)", size=13)
    cx, cw, ch, gap = 140, 128, 34, 4
    heads = ["before the loop"] + [f"step {k}" for k in range(steps)]
    for c, head in enumerate(heads):
        fig.text(cx + c * (cw + gap) + cw / 2, 198, head, size=12, anchor="middle",
                 bold=c > 0)
    top = 206
    for b in range(stages):
        fig.text(x0, top + b * (ch + gap) + 22, f"buffer {b}", size=12, color=MUTED)
    for c in range(len(heads)):
        for b in range(stages):
            label, fill, color = "—", IDLE, MUTED
            if c == 0:  # the prologue queues stages 0 and 1
                if b < stages - 1:
                    label, fill, color = f"copy tile {mine + blocks * b}", HOT_LIGHT, INK
            else:
                k = c - 1
                for stage in (k, k + 1, k + 2):
                    if stage < steps and stage % stages == b:
                        tile = mine + blocks * stage
                        if stage == k:
                            label, fill, color = f"compute tile {tile}", ACTIVE, "white"
                        elif stage == k + 1:
                            label, fill, color = f"tile {tile} in flight", HOT_LIGHT, INK
                        else:
                            label, fill, color = f"copy tile {tile}", HOT_LIGHT, INK
            bx, by = cx + c * (cw + gap), top + b * (ch + gap)
            fig.rect(bx, by, cw, ch, fill=fill, stroke=GRID)
            fig.text(bx + cw / 2, by + 22, label, size=12, anchor="middle", color=color,
                     bold=fill == ACTIVE)
        if c > 0:
            lx = cx + c * (cw + gap) - gap / 2
            fig.line(lx, top - 4, lx, top + stages * (ch + gap), color=INK, width=1.5, dash="4 3")
    fig.text(cx, top + stages * (ch + gap) + 18, "┆ each step begins with a wait for its tile's "
             "copies and one __syncthreads()", size=12, color=MUTED)
    notes(fig, x0, 362, [
        "A step queues the copy two tiles ahead into the buffer computed one step earlier: the "
        "barrier has just",
        "shown that every thread is done reading it. So two tiles' 16-byte cp.async stay in flight "
        "while a third",
        "is computed, in every block at once; v7 loaded a stage, waited and computed, nothing "
        "overlapping.",
    ], size=13)
    svgfig.save(fig, "pipeline")


# 7. v8 -> v9: the window of inputs turns through a ring of registers as the taps advance.
def register_ring():
    fig = svgfig.Figure(820, 400, "v9: the window of inputs as a ring of registers")
    header(fig, "v8 → v9: the window turns through a lane's registers",
           "Toy sizes: a lane owns 8 outputs, a ring of 12 registers, 3 steps of 4 taps a turn "
           "(the lesson: 28, 32 and 8).")
    outputs, ring, size = 8, 12, 40
    x0, lx = 210, 40
    fig.text(lx, 84, "Each cell: the input a register holds; output q at tap T reads x(q + T).",
             size=13)
    fig.text(lx, 114, "register", size=12, color=MUTED)
    for k in range(ring):
        fig.text(x0 + k * size + size / 2, 114, f"window[{k}]" if k == 0 else f"[{k}]", size=11,
                 anchor="middle", color=MUTED)
    rows = [(0, 0), (0, 1), (0, 2), (1, 0)]  # (turn, step)
    top = 124
    for r, (turn, s) in enumerate(rows):
        base = ring * turn + 4 * s  # the inputs base .. base + 11, from slot 4s on
        y = top + r * (size + 8)
        first_tap = ring * turn + 4 * s
        title = f"taps {first_tap}–{first_tap + 3}"
        fig.text(lx, y + 17, title, size=13, bold=True)
        fig.text(lx, y + 33, "next turn, step 0" if turn else f"step {s}", size=11, color=MUTED)
        fills, labels = [], []
        for k in range(ring):
            value = base + (k - 4 * s) % ring
            new = value >= base + outputs  # the 4 that this step's 16-byte load brought
            fills.append(GOOD_LIGHT if new else ACTIVE_LIGHT)
            labels.append(f"x{value}")
        fig.cells(x0, y, ring, size, fills, labels, label_size=12)
        head = (4 * s) % ring
        fig.rect(x0 + head * size, y, size, size, stroke=ACTIVE, width=3)
        if (turn, s) == (0, 1):  # output 7 at taps 4..7 reads slots 11, 0, 1, 2
            for t in range(4):
                slot = (4 * s + 7 + t) % ring
                fig.circle(x0 + slot * size + size - 6, y + 6, 4, fill=HOT, stroke="none")
    fig.rect(x0 + ring * size + 20, top + 4, 14, 14, fill=GOOD_LIGHT, stroke=GRID)
    fig.text(x0 + ring * size + 40, top + 16, "this step's", size=12)
    fig.text(x0 + ring * size + 40, top + 31, "16-byte load", size=12)
    fig.rect(x0 + ring * size + 20, top + 46, 14, 14, fill="white", stroke=ACTIVE, width=3)
    fig.text(x0 + ring * size + 40, top + 58, "output 0's", size=12)
    fig.text(x0 + ring * size + 40, top + 73, "first input", size=12)
    fig.circle(x0 + ring * size + 27, top + 96, 4, fill=HOT, stroke="none")
    fig.text(x0 + ring * size + 40, top + 100, "output 7's", size=12)
    fig.text(x0 + ring * size + 40, top + 115, "four inputs", size=12)
    notes(fig, lx, top + 4 * (size + 8) + 24, [
        "sum[q] += window[(4s + q + t) % 12] · w[4s + t]: at step 1, output 7 reads window[11], "
        "[0], [1], [2] (dots).",
        "No value moves: each step's load overwrites the 4 oldest inputs; after 3 steps the ring "
        "has turned once, and",
        "unrolled over a turn, every index is a constant. One 16-byte load feeds 4 × 8 FMAs here, "
        "4 × 28 in the lesson",
        "(v8: two loads for 32).",
    ], size=13)
    svgfig.save(fig, "register_ring")


# 8. v14 -> v15: each row of the GEMM's B tile is an input row, shifted by its tap.
def shifted_rows():
    fig = svgfig.Figure(820, 470, "v15: the B tile's rows are shifted input rows")
    header(fig, "v14 → v15: a tap's row of B is the input row, shifted",
           "Toy sizes: K = 3 (r = 1), one input channel, a B tile of 3 rows × 8 columns for "
           "outputs 4 to 11 (the lesson: 8 × 256).")
    size, x0, lx = 36, 150, 40
    n, first, cols, mask = 16, 4, 8, 3
    fig.text(lx, 84, "input row x[ci] in global memory; a thick line every 16 bytes (4 floats)",
             size=13)
    fig.text(lx, 116, "x[ci]", size=13, bold=True)
    fig.cells(x0, 94, n, size, ACTIVE_LIGHT, [f"a{i}" for i in range(n)], label_size=12)
    for g in range(n // 4 + 1):
        fig.line(x0 + 4 * g * size, 90, x0 + 4 * g * size, 134, color=INK, width=2.5)
    copy = [HOT_LIGHT, GOOD_LIGHT, HOT_LIGHT]  # tap j's row starts at first + j - r
    bar_colour = [HOT, GOOD, HOT]
    for j in range(mask):
        start = first + j - 1
        y = 142 + 15 * j
        fig.rect(x0 + start * size, y, cols * size, 8, fill=bar_colour[j], stroke="none")
        fig.text(lx, y + 9, f"tap {j}: a{start} … a{start + cols - 1}", size=12, color=MUTED)
    mid = x0 + (first + cols / 2) * size
    fig.arrow(mid, 190, mid, 222, width=2)
    fig.text(mid + 12, 211, "cp.async straight into shared memory: no workspace", size=12)
    fig.text(lx, 240, "B tile in shared memory: column c is output 4 + c", size=13)
    tx, top = x0 + first * size, 250
    for j in range(mask):
        start = first + j - 1
        fig.text(lx, top + j * size + 23, f"row ci·K + {j} (tap {j})", size=12)
        fig.cells(tx, top + j * size, cols, size, copy[j],
                  [f"a{start + c}" for c in range(cols)], label_size=12)
    gx = tx + cols * size + 24
    fig.rect(gx, top + 6, 14, 14, fill=GOOD_LIGHT, stroke=GRID)
    fig.text(gx + 20, top + 18, "start on a 16-byte", size=12)
    fig.text(gx + 20, top + 33, "boundary: 16-byte copies", size=12)
    fig.rect(gx, top + 54, 14, 14, fill=HOT_LIGHT, stroke=GRID)
    fig.text(gx + 20, top + 66, "start off it: four", size=12)
    fig.text(gx + 20, top + 81, "4-byte copies a group", size=12)
    # v14's path and v15's, side by side
    fy = 380
    def box(x, y, w, text, fill):
        fig.rect(x, y, w, 28, fill=fill, stroke=INK)
        fig.text(x + w / 2, y + 19, text, size=12, anchor="middle")
    fig.text(lx, fy + 19, "v14", size=13, bold=True)
    box(90, fy, 70, "x", ACTIVE_LIGHT)
    fig.arrow(164, fy + 14, 204, fy + 14)
    box(208, fy, 300, "im2col columns in DRAM: K times the input", HOT_LIGHT)
    fig.arrow(512, fy + 14, 552, fy + 14)
    box(556, fy, 150, "B tile (shared)", GOOD_LIGHT)
    fig.text(lx, fy + 57, "v15", size=13, bold=True)
    box(90, fy + 38, 70, "x", ACTIVE_LIGHT)
    fig.arrow(164, fy + 52, 552, fy + 52)
    fig.text(358, fy + 47, "each tile's rows, copied from x as the tile needs them", size=12,
             anchor="middle", color=MUTED)
    box(556, fy + 38, 150, "B tile (shared)", GOOD_LIGHT)
    svgfig.save(fig, "shifted_rows")


if __name__ == "__main__":
    window()
    lanes()
    hankel_band()
    im2col()
    tile_pick()
    pipeline()
    register_ring()
    shifted_rows()
