"""Figures of lesson 03-reduction: `python3 03-reduction/figures/make.py` writes figures/*.svg."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import ACTIVE, ACTIVE_LIGHT, GOOD, GOOD_LIGHT, GRID, HOT, HOT_LIGHT, IDLE, INK, MUTED, header  # noqa: E402

# 1. Interleaved (v1) and sequential (v3) trees over a toy block of 16.
def tree_panel(fig, x, title, test, strides, active, notes):
    cell, x0, y0, gap = 19, x + 62, 104, 56
    cx = lambda t: x0 + t * cell + cell / 2
    fig.text(x + 8, 76, title, size=15, bold=True)
    fig.text(x + 150, 76, test, size=12, mono=True, color=MUTED)
    for w in range(4):  # toy warps of 4 threads
        fig.line(x0 + w * 4 * cell + 2, 98, x0 + (w + 1) * 4 * cell - 2, 98, color=MUTED, width=1)
        fig.text(x0 + (w * 4 + 2) * cell, 93, f"warp {w}", size=12, anchor="middle", color=MUTED)
    fig.text(x + 386, 88, "busy", size=12, anchor="middle", color=MUTED)
    fig.text(x + 386, 102, "warps", size=12, anchor="middle", color=MUTED)
    fig.text(x + 8, y0 + 14, "loaded", size=13)
    fig.cells(x0, y0, 16, cell, ACTIVE_LIGHT, [str(t) for t in range(16)])
    for k, s in enumerate(strides, start=1):
        y = y0 + k * gap
        on = [t for t in range(16) if active(t, s)]
        fig.text(x + 8, y + 14, f"stride {s}", size=13)
        fig.cells(x0, y, 16, cell, [ACTIVE if t in on else IDLE for t in range(16)],
                  [str(t) if t in on else "" for t in range(16)])
        for t in on:  # thread t: partial[t] += partial[t + s]
            fig.arrow(cx(t), y - gap + cell, cx(t), y - 1, color=INK, width=1)
            fig.arrow(cx(t + s), y - gap + cell, cx(t) + 2, y - 1, color=ACTIVE, width=1.2)
        fig.text(x + 386, y + 14, str(len({t // 4 for t in on})), size=13, anchor="middle", bold=True)
    for i, line in enumerate(notes):
        fig.text(x + 8, y0 + 4 * gap + 48 + 18 * i, line, size=13)


def trees():
    fig = svgfig.Figure(820, 404, "Interleaved and sequential reduction trees")
    header(fig, "Two trees over one block: which threads work at each step",
           "A toy block of 16 elements in warps of 4 (a real block has 256–512 threads, "
           "in warps of 32).")
    tree_panel(fig, 0, "interleaved (v1)", "if (t % (2*stride) == 0)", [1, 2, 4, 8],
               lambda t, s: t % (2 * s) == 0,
               ["active threads scattered: every warp stays", "busy (divergent) until the end"])
    fig.line(400, 64, 400, 396, color=GRID)
    tree_panel(fig, 404, "sequential (v3)", "if (t < stride)", [8, 4, 2, 1], lambda t, s: t < s,
               ["active threads contiguous: whole warps", "retire (from stride 4 on, only warp 0 works)"])
    svgfig.save(fig, "trees")


# 2. Bank conflicts: v2 at stride 16 against v3.
def bank_panel(fig, y, title, lanes_on, bank_of, bank_fills, notes, color):
    cell, x0 = 23, 60
    cx = lambda i: x0 + i * cell + cell / 2
    fig.text(16, y, title, size=14, bold=True)
    fig.text(16, y + 30, "lanes", size=13)
    fig.cells(x0, y + 14, 32, cell, [ACTIVE if i in lanes_on else IDLE for i in range(32)],
              [str(i) for i in range(32)])
    fig.text(16, y + 100, "banks", size=13)
    fig.cells(x0, y + 84, 32, cell, bank_fills, [str(b) for b in range(32)])
    for i in lanes_on:
        if bank_of(i) == i:
            fig.arrow(cx(i), y + 38, cx(i), y + 83, color=color, width=1.3)
        else:  # many lanes, one bank: plain lines, spread along the bank's edge
            fig.line(cx(i), y + 38, x0 + 3 + 2.4 * i, y + 84, color=color, width=1.3)
    for k, line in enumerate(notes):
        fig.text(16, y + 126 + 17 * k, line, size=13, color=INK if k else color, bold=not k)


def banks():
    fig = svgfig.Figure(820, 418, "Shared-memory bank conflicts in v2 and v3")
    header(fig, "Shared memory: 32 banks, word w lives in bank w mod 32",
           "In one access, a warp's lanes that hit different words of the same bank are served "
           "one after another.")
    bank_panel(fig, 78, "v2 strided index, stride 16: lane t reads word 2·16·t = 32t",
               range(8), lambda i: 0, [HOT] + [IDLE] * 31,
               ["8 lanes, 1 bank: 8 turns instead of 1 (an 8-way conflict)",
                "Lanes 8–31 are idle (32t ≥ 256). The second read, word 32t + 16, piles on bank 16 "
                "the same way;", "strides 4, 8 and 16 are all 8-way in a block of 256."], HOT)
    fig.text(300, 146, "words 0, 32, 64, …, 224: all in bank 0", size=13, color=HOT)
    bank_panel(fig, 272, "v3 sequential addressing: lane t reads word t (and word t + stride)",
               range(32), lambda i: i, [GOOD_LIGHT] * 32,
               ["32 lanes, 32 banks: one lane per bank, served at once"], GOOD)
    svgfig.save(fig, "banks")


# 3. One warp's sum with __shfl_down_sync.
def warp_shuffle():
    cell, x0, y0, gap = 22, 96, 80, 50
    cx = lambda i: x0 + i * cell + cell / 2
    fig = svgfig.Figure(820, 416, "A warp sum with __shfl_down_sync")
    header(fig, "__shfl_down_sync(mask, x, offset): lane i adds the x of lane i + offset",
           "32 lanes, one register each. The number in a cell: how many of the 32 values it "
           "holds so far.")
    for i in range(32):
        fig.text(cx(i), y0 - 6, str(i), size=12, anchor="middle", color=MUTED)
    fig.text(12, y0 - 6, "lane", size=12, color=MUTED)
    fig.text(12, y0 + 15, "x", size=13, mono=True)
    fig.cells(x0, y0, 32, cell, ACTIVE_LIGHT, "1")
    for k, off in enumerate([16, 8, 4, 2, 1], start=1):
        y = y0 + k * gap
        last = off == 1
        fills = [(GOOD if last else ACTIVE) if i < off else IDLE for i in range(32)]
        fig.text(12, y + 15, f"offset {off}", size=13)
        fig.cells(x0, y, 32, cell, fills, [str(32 // off) if i < off else "" for i in range(32)])
        for i in (range(off) if off <= 4 else (0, 1, off - 1)):  # a few lanes at 16 and 8
            fig.arrow(cx(i + off), y - gap + cell, cx(i) + 2, y - 1, color=ACTIVE, width=1.2)
    y = y0 + 5 * gap + cell
    fig.text(x0 + 40, y + 10, "← lane 0 holds the warp's sum", size=13, color=GOOD, bold=True)
    fig.text(16, y + 36, "Registers only: no shared memory, no barrier. Grey lanes add too (the "
             "whole warp runs each step),", size=13)
    fig.text(16, y + 54, "but their results are never used.", size=13)
    svgfig.save(fig, "warp_shuffle")


# 4. v6: the whole block in shuffles, one barrier.
def block_shuffle():
    fig = svgfig.Figure(820, 410, "A block sum in shuffles with one barrier")
    header(fig, "v6: the whole block sum in shuffles, one barrier",
           "A block of 256 threads is 8 warps of 32 lanes; warp_sums[8] is the only shared memory.")
    top, row = 96, 28
    fig.text(80, top - 12, "8 warps × 32 lanes", size=13, color=MUTED)
    fig.text(332, top - 12, "lane 0", size=13, color=MUTED, anchor="middle")
    fig.text(446, top - 26, "shared", size=13, color=MUTED, anchor="middle")
    fig.text(446, top - 10, "warp_sums", size=13, anchor="middle", mono=True)
    fig.text(590, top - 12, "warp 0", size=13, color=MUTED, anchor="middle")
    for w in range(8):
        y = top + w * row
        fig.text(16, y + 16, f"warp {w}", size=13)
        for lane in range(32):
            fig.rect(80 + 5 * lane, y + 1, 5, 20, fill=ACTIVE_LIGHT, stroke="#8fb0d8", width=0.5)
        fig.arrow(246, y + 11, 302, y + 11, color=ACTIVE)
        fig.rect(306, y, 52, 22, fill=ACTIVE, stroke=INK)
        fig.text(332, y + 16, f"sum {w}", size=12, anchor="middle", color="white")
        fig.arrow(358, y + 11, 414, y + 11, color=ACTIVE)
        fig.rect(418, y, 56, 22, fill=ACTIVE_LIGHT, stroke=INK)
        fig.text(446, y + 16, f"[{w}]", size=12, anchor="middle", mono=True)
        fig.arrow(474, y + 11, 560, y + 11, color=ACTIVE)
        fig.rect(564, y, 52, 22, fill=ACTIVE, stroke=INK)
        fig.text(590, y + 16, f"lane {w}", size=12, anchor="middle", color="white")
    fig.text(274, top - 12, "shuffle", size=12, anchor="middle", color=ACTIVE)
    fig.text(386, top - 12, "write", size=12, anchor="middle", color=ACTIVE)
    fig.text(522, top - 12, "read", size=12, anchor="middle", color=ACTIVE)
    bottom = top + 8 * row
    fig.line(500, top - 40, 500, bottom + 6, color=HOT, width=3, dash="7 4")
    fig.text(500, bottom + 20, "__syncthreads()", size=13, anchor="middle", color=HOT, mono=True)
    fig.text(500, bottom + 36, "the only barrier", size=13, anchor="middle", color=HOT)
    mid = top + 4 * row - 5
    fig.path(f"M 620 {top + 11} C 650 {top + 11} 640 {mid} 670 {mid}", color=ACTIVE, width=1.5)
    fig.path(f"M 620 {bottom - 21} C 650 {bottom - 21} 640 {mid} 668 {mid}", color=ACTIVE,
             width=1.5, arrow=True)
    fig.text(740, mid - 26, "warp 0 shuffles", size=12, anchor="middle", color=ACTIVE)
    fig.rect(672, mid - 18, 136, 36, fill=GOOD, stroke=INK, radius=4)
    fig.text(740, mid + 5, "block sum", size=14, anchor="middle", color="white", bold=True)
    fig.text(740, mid + 36, "(lanes 8–31 read 0)", size=12, anchor="middle", color=MUTED)
    y = bottom + 64
    fig.rect(16, y - 11, 12, 12, fill=HOT, stroke=INK)
    fig.text(36, y, "v5: 3 barriers over shared memory (after the load, strides 128 and 64), "
             "then one warp shuffles", size=13)
    fig.rect(16, y + 9, 12, 12, fill=GOOD, stroke=INK)
    fig.text(36, y + 20, "v6: every warp shuffles at once, 1 barrier, then warp 0 shuffles "
             "the 8 warp sums", size=13)
    svgfig.save(fig, "block_shuffle")


# 5. v7: a grid that fits the GPU once, a grid-stride loop per thread.
def grid_stride():
    G, B, n, cell, x0, y0 = 4, 4, 44, 16, 40, 118
    cx = lambda i: x0 + i * cell + cell / 2
    fig = svgfig.Figure(820, 352, "A grid-stride loop over the input")
    header(fig, "v7: a small grid walks the whole input (grid-stride loop)",
           "Toy sizes: G = 4 blocks of B = 4 threads, n = 44. In the lesson B = 512 and G is "
           "what the GPU holds at once.")
    for i in range(n):
        fig.rect(x0 + i * cell, y0, cell, cell + 4, fill=svgfig.SHADES[(i // B) % G], stroke=GRID)
        fig.text(cx(i), y0 + 15, str(i % B), size=12, anchor="middle")
    for i in range(0, n, G * B):  # the elements of thread 0 of block 0
        fig.rect(x0 + i * cell, y0, cell, cell + 4, stroke=ACTIVE, width=2.5)
    for a in range(0, 32, G * B):  # thread 0 of block 0 jumps by G·B
        fig.path(f"M {cx(a)} {y0 - 2} Q {cx(a + 8)} {y0 - 46} {cx(a + 16)} {y0 - 3}",
                 color=ACTIVE, width=2, arrow=True)
        fig.text(cx(a + 8), y0 - 30, "+ G·B = 16", size=13, anchor="middle", color=ACTIVE)
    for k, (a, b, label) in enumerate([(0, 16, "sweep 1: the first G·B"),
                                       (16, 32, "sweep 2: the next G·B"),
                                       (32, n, "sweep 3: the rest (i < n)")]):
        fig.line(x0 + a * cell + 2, y0 + 30, x0 + b * cell - 2, y0 + 30, color=MUTED)
        fig.text((cx(a) + cx(b - 1)) / 2, y0 + 47, label, size=12, anchor="middle", color=MUTED)
    fig.text(x0 + n * cell + 8, y0 + 16, "n = 44", size=13)
    y = y0 + 76
    for b in range(G):
        fig.rect(x0 + b * 96, y - 12, 14, 14, fill=svgfig.SHADES[b], stroke=GRID)
        fig.text(x0 + b * 96 + 20, y, f"block {b}", size=13)
    fig.text(x0 + 400, y, "number in a cell: threadIdx.x", size=13, color=MUTED)
    fig.text(x0, y + 26, "block 0, thread 0:  x = in[0] + in[16] + in[32]    "
             "(i = blockIdx.x·B + threadIdx.x;  i += gridDim.x·B)", size=12, mono=True)
    steps = [("each thread:", "a running sum"), ("each block:", "one tree"),
             ("G block sums", "in memory"), ("2nd launch:", "1 block adds them"), ("the sum", "")]
    y += 52
    for k, (a, b) in enumerate(steps):
        x = x0 + k * 152
        last = k == len(steps) - 1
        fig.rect(x, y, 126, 42, fill=GOOD if last else ACTIVE_LIGHT, stroke=INK, radius=4)
        fig.text(x + 63, y + (26 if last else 18), a, size=13, anchor="middle",
                 color="white" if last else INK, bold=last)
        fig.text(x + 63, y + 35, b, size=12, anchor="middle")
        if not last:
            fig.arrow(x + 128, y + 21, x + 150, y + 21)
    fig.text(16, y + 70, "The grid is what the GPU holds at once (SMs × resident blocks): the "
             "tree runs once per block,", size=13)
    fig.text(16, y + 88, "not once per 512 inputs.", size=13)
    svgfig.save(fig, "grid_stride")


# 6. v9: one launch; the block that draws the last ticket finishes.
def one_pass():
    G, x0, top, row = 4, 110, 118, 40
    finish = {1: 260, 3: 320, 0: 380, 2: 440}  # x where each block's own sum is done
    order = sorted(finish, key=finish.get)  # ticket k goes to order[k]
    fig = svgfig.Figure(820, 410, "One pass: the last block adds the block sums")
    header(fig, "v9: one launch; the block that draws the last ticket adds the block sums",
           "G = 4 blocks finish in any order. When its sum is done, thread 0 of each block runs:")
    fig.text(16, 76, "block_sums[b] = x;  __threadfence();  ticket = atomicAdd(&blocks_done, 1);",
             size=13, mono=True)
    for b in range(G):
        y, f = top + b * row, finish[b]
        ticket = order.index(b)
        fig.text(16, y + 17, f"block {b}", size=13)
        fig.rect(x0, y, f - x0, 24, fill=ACTIVE_LIGHT, stroke=INK)
        fig.text(x0 + 8, y + 17, "sums its share", size=12)
        fig.rect(f, y, 12, 24, fill=HOT_LIGHT, stroke=INK)
        fig.circle(f + 30, y + 12, 12, fill=GOOD if ticket == G - 1 else "white")
        fig.text(f + 30, y + 17, str(ticket), size=13, anchor="middle", bold=True,
                 color="white" if ticket == G - 1 else INK)
        if ticket < G - 1:
            fig.text(f + 50, y + 17, f"ticket {ticket} < {G - 1}: exit", size=13, color=MUTED)
        else:
            fig.rect(f + 48, y, 740 - f - 48, 24, fill=GOOD_LIGHT, stroke=GOOD)
            fig.text(f + 56, y + 17, "adds all block_sums, writes the sum", size=12)
    fig.text(x0, top - 10, "ticket", size=12, color=MUTED)
    fig.circle(x0 + 48, top - 14, 8, fill="white")
    fig.text(x0 + 66, top - 10, "= what atomicAdd returned", size=12, color=MUTED)
    fig.rect(x0 + 260, top - 22, 12, 16, fill=HOT_LIGHT, stroke=INK)
    fig.text(x0 + 280, top - 10, "= the three lines above", size=12, color=MUTED)
    y = top + G * row + 10  # the counter over time
    fig.text(16, y + 17, "blocks_done", size=12, mono=True)
    marks = [x0] + [finish[b] + 6 for b in order] + [740]
    for k, x in enumerate(marks):
        end = marks[k + 1] if k + 1 < len(marks) else 800
        value = k if k <= G else 0
        fig.rect(x, y, end - x, 24, fill=GOOD_LIGHT if k == G + 1 else IDLE, stroke=GRID)
        fig.text((x + end) / 2, y + 17, str(value), size=13, anchor="middle", mono=True)
    fig.text(800, y + 40, "the last block resets it to 0 for the next call", size=12,
             anchor="end", color=GOOD)
    fig.arrow(x0, y + 52, 800, y + 52)
    fig.text(x0, y + 68, "time", size=13, color=MUTED)
    fig.text(16, y + 92, "The fence makes a block's sum visible to every block before it draws "
             "its ticket, so whoever", size=13)
    fig.text(16, y + 110, "draws ticket G − 1 knows that all sums are written; the ticket, not "
             "blockIdx.x, decides who is last.", size=13)
    svgfig.save(fig, "one_pass")


trees()
banks()
warp_shuffle()
block_shuffle()
grid_stride()
one_pass()
