"""Figures of lesson 04-histogram: `python3 04-histogram/figures/make.py` writes figures/*.svg."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import svgfig  # noqa: E402
from svgfig import ACTIVE, ACTIVE_LIGHT, GOOD, GOOD_LIGHT, GRID, HOT, HOT_LIGHT, IDLE, INK, MUTED, header, notes  # noqa: E402

def spread(x, width, k, j):
    """The x of the j-th of k arrow heads that share a target of this width."""
    return x + width * (j + 1) / (k + 1)


# 1. v1 -> v2: every thread on the global histogram, then a private one per block.
def privatization():
    fig = svgfig.Figure(820, 414, "Privatization: a histogram per block in shared memory")
    header(fig, "v1 → v2: privatization",
           "Toy sizes: 3 blocks of 4 threads, one value each, 6 bins (the lesson: 256 threads "
           "a block, up to 12288 bins).")
    values = [[2, 5, 2, 1], [2, 4, 3, 2], [5, 2, 0, 2]]
    flat = [v for blk in values for v in blk]
    total = [flat.count(b) for b in range(6)]

    def blocks(x0, width, gap, height):
        spots = []  # (x, y, value) of each thread
        for b, vals in enumerate(values):
            x = x0 + b * (width + gap)
            fig.rect(x, 92, width, height, fill="none", stroke=GRID, radius=6)
            fig.text(x + 8, 108, f"block {b}", size=12, color=MUTED)
            for t, v in enumerate(vals):
                cx = x + width * (t + 0.5) / 4
                fig.circle(cx, 126, 10, fill=ACTIVE)
                fig.text(cx, 130.5, str(v), size=12, anchor="middle", color="white", bold=True)
                spots.append((cx, 136, v))
        return spots

    def global_hist(x, fills):
        fig.cells(x, 262, 6, 44, fills, [str(c) for c in total], label_size=13)
        for b in range(6):
            fig.text(x + b * 44 + 22, 322, f"bin {b}", size=12, anchor="middle", color=MUTED)
        fig.text(x + 132, 340, "global histogram (L2), 64-bit counters", size=12,
                 anchor="middle", color=MUTED)

    # v1: 12 global atomics, converging on few addresses.
    fig.text(16, 76, "v1: one global atomicAdd per value", size=14, bold=True)
    spots = blocks(16, 116, 10, 56)
    gx = 63
    global_hist(gx, [HOT if c > 2 else HOT_LIGHT if c > 1 else "white" for c in total])
    seen = [0] * 6
    for cx, cy, v in spots:
        fig.arrow(cx, cy, spread(gx + v * 44, 44, total[v], seen[v]), 261, color=HOT, width=1.3)
        seen[v] += 1
    notes(fig, 16, 366, ["12 values: 12 atomics in L2; those on one bin",
                         "wait for each other (6 on bin 2)"], color=HOT)
    fig.line(410, 64, 410, 404, color=GRID)

    # v2: shared atomics inside the block, then one global atomic per non-zero bin.
    fig.text(426, 76, "v2: a private histogram per block, then a merge", size=14, bold=True)
    spots = blocks(426, 116, 11, 108)
    counts = [[vals.count(b) for b in range(6)] for vals in values]
    for b in range(3):
        px = 426 + b * 127 + 4
        fig.cells(px, 158, 6, 18, ACTIVE_LIGHT, [str(c) if c else "" for c in counts[b]])
        fig.text(px + 54, 192, "shared memory", size=12, anchor="middle", color=MUTED)
    seen = [[0] * 6 for _ in range(3)]
    for i, (cx, cy, v) in enumerate(spots):
        b = i // 4
        px = 426 + b * 127 + 4 + v * 18
        fig.arrow(cx, cy, spread(px, 18, counts[b][v], seen[b][v]), 157, color=ACTIVE, width=1.2)
        seen[b][v] += 1
    gx = 483
    global_hist(gx, "white")
    merged = sum(1 for c in counts for x in c if x)
    for b in range(3):
        for v in range(6):
            if counts[b][v]:
                px = 426 + b * 127 + 4 + v * 18 + 9
                fig.arrow(px, 200, gx + v * 44 + 8 + 14 * b, 261, color=GOOD, width=1.5)
    notes(fig, 426, 366, ["① count: atomicAdd in shared memory, in the SM",
                          "② __syncthreads(), then one global atomicAdd",
                          f"per non-zero bin: {merged} here, not 12"])
    svgfig.save(fig, "privatization")


# 2. v5: 32 interleaved copies, lane l in bank l, against v4's one copy.
LANE_VALUES = [2, 0, 5, 2, 1, 2, 3, 2, 4, 2, 0, 5, 2, 1, 3, 2,
               2, 5, 0, 2, 4, 1, 2, 3, 2, 0, 2, 5, 1, 2, 4, 2]
# uniform pixels seen by v4's one copy: the number under a bank counts the different words it serves
V4_VALUES = [3, 41, 35, 90, 12, 67, 7, 3, 58, 17, 99, 63, 44, 30, 60, 95,
             12, 27, 80, 35, 14, 26, 71, 99, 54, 33, 10, 5, 89, 72, 50, 21]


def lane_copies():
    fig = svgfig.Figure(820, 420, "Lane copies: copy l's bin v is word 32v + l, in bank l")
    header(fig, "v5: 32 copies per block, one per lane index, interleaved",
           "Copy l holds bin v in word 32·v + l: column l is bank l. One warp's 32 values, "
           "bins 0–5 of B shown.")
    cell, x0, y0 = 20, 140, 94
    cx = lambda col: x0 + col * cell + cell / 2
    fig.text(x0 - 8, 70, "lane", size=12, anchor="end", color=MUTED)
    fig.text(x0 - 8, 86, "its value", size=12, anchor="end")
    for l, v in enumerate(LANE_VALUES):
        fig.text(cx(l), 70, str(l), size=12, anchor="middle", color=MUTED)
        fig.text(cx(l), 86, str(v), size=12, anchor="middle", bold=True)
    for v in range(6):
        y = y0 + v * cell
        fig.text(x0 - 8, y + 15, f"bin {v}: words {32 * v}–{32 * v + 31}", size=12, anchor="end")
        fig.cells(x0, y, 32, cell, [ACTIVE if LANE_VALUES[l] == v else ACTIVE_LIGHT
                                    for l in range(32)])
    fig.text(x0 - 8, y0 + 6 * cell + 15, "bank", size=12, anchor="end", color=MUTED)
    for l in range(32):
        fig.text(cx(l), y0 + 6 * cell + 15, str(l), size=12, anchor="middle", color=MUTED)
    fig.text(16, y0 + 6 * cell + 40, "Lane l only ever touches bank l: a warp's 32 atomics "
             "take one pass through the banks, equal values or not.", size=13, color=GOOD)

    # v4: one copy, word v in bank v % 32: different bins 32 apart meet in one bank. Lanes adding
    # 1 to the same word are merged into one update (ATOMS.POPC.INC): no conflict.
    top = 284
    banks = [v % 32 for v in V4_VALUES]
    words = [len({v for v in V4_VALUES if v % 32 == b}) for b in range(32)]
    worst = max(words)
    fig.text(16, top, "v4, one copy of 256 bins: word v is in bank v % 32", size=14, bold=True)
    fig.text(16, top + 19, f"bins 32 apart share a bank: bank {words.index(worst)} serves {worst} "
             "different words one after another (equal values merge into one update)", size=13,
             color=HOT)
    fig.text(x0 - 8, top + 46, "value", size=12, anchor="end", color=MUTED)
    fig.text(x0 - 8, top + 118, "bank", size=12, anchor="end", color=MUTED)
    for l, v in enumerate(V4_VALUES):
        fig.text(cx(l), top + 46, str(v), size=12, anchor="middle", bold=True)
        fig.arrow(cx(l), top + 52, cx(banks[l]), top + 98,
                  color=HOT if words[banks[l]] == worst else GRID, width=1)
    fig.cells(x0, top + 100, 32, cell, [HOT if w == worst else HOT_LIGHT if w > 1 else ACTIVE_LIGHT
                                       if w else "white" for w in words],
              [str(w) if w else "" for w in words], label_size=12)
    svgfig.save(fig, "lane_copies")


# 3b. v8: one copy per warp (the textbook remedy), a loss.
WARP_VALUES = [2, 17, 34, 2, 200, 91, 2, 66, 45, 120, 150, 7, 250, 34, 163, 2,
               88, 29, 130, 201, 54, 111, 9, 77, 2, 181, 60, 143, 31, 222, 38, 101]


def warp_copies():
    fig = svgfig.Figure(820, 412, "Warp copies: one histogram per warp, bank conflicts return")
    header(fig, "v7 → v8: one copy per warp instead of per lane (a loss)",
           "512 threads = 16 warps, each with its own B counters, one copy after another "
           "(B = 256 bins here).")
    bx, by, bw, bh = 16, 84, 84, 16
    fig.text(bx, by - 8, "shared memory", size=12, color=MUTED)
    for w in range(16):
        on = w == 3
        fig.rect(bx, by + w * bh, bw, bh, fill=ACTIVE if on else ACTIVE_LIGHT, stroke=GRID)
        fig.text(bx + 6, by + w * bh + 12.5, f"warp {w}", size=12,
                 color="white" if on else INK)
    cell, x0, y0 = 19, 200, 84
    cx = lambda col: x0 + col * cell + cell / 2
    fig.line(bx + bw, by + 3 * bh, x0 - 48, y0, color=ACTIVE, dash="4 3", width=1)
    fig.line(bx + bw, by + 4 * bh, x0 - 48, y0 + 8 * cell, color=ACTIVE, dash="4 3", width=1)
    fig.text(x0, y0 - 8, "warp 3's copy (words 3B … 4B − 1): bins 0–255 as 8 rows of 32 "
             "words, column = bank", size=12, color=MUTED)
    word = {}
    for v in WARP_VALUES:
        word[v] = word.get(v, 0) + 1
    per_bank_of = lambda v: sum(1 for u in word if u % 32 == v % 32)
    for r in range(8):
        fills, labels = [], []
        for c in range(32):
            k = word.get(32 * r + c, 0)
            fills.append(HOT if k and per_bank_of(32 * r + c) > 1 else ACTIVE if k else ACTIVE_LIGHT)
            labels.append(str(k) if k else "")
        fig.text(x0 - 6, y0 + r * cell + 14, f"{32 * r}–{32 * r + 31}", size=12, anchor="end")
        fig.cells(x0, y0 + r * cell, 32, cell, fills, labels)
    # lanes adding 1 to one word merge into one update; a bank serves its different words in turn
    per_bank = [sum(1 for v in word if v % 32 == c) for c in range(32)]
    rows = [("bank", [str(c) for c in range(32)], MUTED),
            ("v8 per bank", [str(k) if k else "" for k in per_bank], INK),
            ("v7 per bank", ["1"] * 32, GOOD)]
    for i, (label, texts, color) in enumerate(rows):
        y = y0 + 8 * cell + 18 + 20 * i
        fig.text(x0 - 6, y, label, size=12, anchor="end", color=color)
        for c in range(32):
            hot = i == 1 and per_bank[c] > 1
            fig.text(cx(c), y, texts[c], size=12, anchor="middle", bold=hot or i == 2,
                     color=HOT if hot else color)
    notes(fig, 16, 364, [
        "Numbers: the warp's lanes adding to that word (in a cell); below, the different words a "
        "bank serves. Equal values",
        f"adding 1 merge into one update, but bins 32 apart share a bank again: bank "
        f"{per_bank.index(max(per_bank))} serves {max(per_bank)} words one after another.",
        "A run's add of 4 is not merged: on one-bin pixels all 32 lanes queue on one word, where "
        "v7's lanes each had their own."])
    svgfig.save(fig, "warp_copies")


# 3. v6 -> v7: a word of four equal pixels counted by one add of 4.
def merged_runs():
    fig = svgfig.Figure(820, 330, "Merged runs: a word of four equal pixels is one add of 4")
    header(fig, "v6 → v7: a run of four equal pixels, one atomic",
           "One thread's two 32-bit words, four pixels each; below, bins 0–9 of its lane's copy.")
    words = [[7, 7, 7, 7], [3, 9, 3, 1]]
    cell, bin_w = 30, 36

    def side(x0, merge):
        adds = 0
        bins_x = x0 + 10
        fig.cells(bins_x, 222, 10, bin_w, ACTIVE_LIGHT, [str(b) for b in range(10)])
        fig.text(bins_x + 5 * bin_w, 274, "the lane's copy: bins 0–9", size=12, anchor="middle",
                 color=MUTED)
        for w, word in enumerate(words):
            wx = x0 + 20 + w * 170
            run = merge and len(set(word)) == 1
            fig.cells(wx, 110, 4, cell, GOOD_LIGHT if run else "white",
                      [str(v) for v in word], label_size=13)
            fig.text(wx + 2 * cell, 100, f"word {w}" + (": a run" if run else ""), size=12,
                     anchor="middle", color=GOOD if run else MUTED)
            if run:
                tx = bins_x + word[0] * bin_w + bin_w / 2
                fig.arrow(wx + 2 * cell, 141, tx, 221, color=GOOD, width=3)
                fig.text((wx + 2 * cell + tx) / 2 - 6, 170, "+4", size=15, bold=True, color=GOOD)
                adds += 1
                continue
            for k, v in enumerate(word):
                tx = bins_x + v * bin_w + 6 + 8 * k
                fig.arrow(wx + k * cell + cell / 2, 141, tx, 221, color=ACTIVE, width=1.3)
                adds += 1
        return adds

    fig.text(16, 76, "v6: one atomicAdd per pixel", size=14, bold=True)
    n6 = side(16, False)
    fig.line(410, 64, 410, 290, color=GRID)
    fig.text(426, 76, "v7: equal neighbours merged first", size=14, bold=True)
    n7 = side(426, True)
    notes(fig, 16, 300, [
        f"v6: {n6} atomics for 8 pixels, whatever their values. v7: {n7}; its check, "
        "word == (word & 0xff) × 0x01010101,",
        "is a multiply, a compare and a branch on every word, paid where no word is a run too."],
        size=13)
    svgfig.save(fig, "merged_runs")


# 4. v10: the bins sliced over the 4 blocks of a cluster, counted through distributed shared memory.
def cluster_slices():
    fig = svgfig.Figure(820, 414, "Cluster slices: each block holds one slice of the bins")
    header(fig, "v10: the bins in slices over a thread-block cluster (cc 9.0)",
           "C = 4 blocks, one per SM, run at once; block r's shared memory holds slice r: 2^15 "
           "bins, 128 KB.")
    values = [[1000, 70000, 20000], [40000, 110000, 50000],
              [80000, 5000, 90000], [120000, 35000, 100000]]
    x0, w, gap, top, sy = 20, 180, 20, 64, 182
    bx = lambda r: x0 + r * (w + gap)
    for r in range(4):
        fig.rect(bx(r), top, w, 172, stroke=GRID, radius=6)
        fig.text(bx(r) + 8, top + 18, f"block {r} (rank {r})", size=13, bold=True)
        fig.rect(bx(r) + 8, sy, w - 16, 44, fill=ACTIVE_LIGHT, stroke=INK)
        fig.text(bx(r) + w / 2, sy + 18, f"slice {r}: bins", size=12, anchor="middle")
        fig.text(bx(r) + w / 2, sy + 35, f"{r * 32768}–{r * 32768 + 32767}", size=12,
                 anchor="middle")
    arrivals = [0] * 4
    for r in range(4):
        for t, v in enumerate(values[r]):
            x = bx(r) + 30 + t * 60
            owner = v >> 15
            fig.text(x, top + 40, str(v), size=12, anchor="middle")
            fig.circle(x, top + 56, 9, fill=ACTIVE)
            ex = bx(owner) + 30 + arrivals[owner] * 30
            arrivals[owner] += 1
            if owner == r:
                fig.arrow(x, top + 66, ex, sy - 1, color=ACTIVE, width=1.5)
            else:
                cy = top + 84 if owner > r else top + 104
                fig.path(f"M {x} {top + 66} Q {(x + ex) / 2} {cy} {ex} {sy - 1}", color=HOT,
                         width=2, arrow=True)
    fig.text(20, 258, "owner = v >> 15, offset = v & 32767", size=12, mono=True)
    fig.text(20, 276, "own slice:   atomicAdd(&slice[offset], 1)", size=12, mono=True,
             color=ACTIVE)
    fig.text(20, 294, "other slice: atomicAdd(__cluster_map_shared_rank(slice, owner) + offset, 1)"
             "  — crosses the SM-to-SM network", size=12, mono=True, color=HOT)
    y = 314
    phases = [(20, 130, IDLE, "zero own slice"), (180, 262, ACTIVE_LIGHT,
              "count each value in its owner's slice"),
              (472, 328, GOOD_LIGHT, "merge own slice: a global atomic per non-zero bin")]
    for x, width, fill, label in phases:
        fig.rect(x, y, width, 34, fill=fill, stroke=INK, radius=4)
        fig.text(x + width / 2, y + 22, label, size=12, anchor="middle")
    for x, label in [(157, "cluster barrier: all slices zeroed"),
                     (449, "cluster barrier: all counts landed")]:
        fig.rect(x, y - 6, 14, 46, fill=INK, stroke=INK)
        fig.text(x + 7, y + 62, label, size=12, anchor="middle", color=INK)
    fig.text(16, 402, "A count for another block's slice costs far more than a local one: v11 "
             "makes 65536 bins fit one block instead.", size=13, color=MUTED)
    svgfig.save(fig, "cluster_slices")


# 5. v11: two 16-bit counters in a word; 2^15 handed to global memory.
def packed_counters():
    fig = svgfig.Figure(820, 388, "Packed counters: two 16-bit counters per word, hand-off at 2^15")
    header(fig, "v11: two 16-bit counters in one 32-bit word",
           "Bin v is half v % 2 of word v / 2: 65536 bins in 128 KB, one block. Its add is "
           "1 << 16·(v % 2), that is 1 or 2^16.")
    x0, wy = 150, 84
    fig.text(x0 - 10, wy + 22, "pairs[k]", size=13, anchor="end", mono=True)
    for half, (label, fill) in enumerate([("bin 2k + 1 (high half)", svgfig.SHADES[3]),
                                          ("bin 2k (low half)", ACTIVE_LIGHT)]):
        fig.rect(x0 + half * 256, wy, 256, 34, fill=fill, stroke=INK)
        fig.text(x0 + half * 256 + 128, wy + 22, label, size=13, anchor="middle")
    for x, bit in [(x0, 31), (x0 + 256, 16), (x0 + 256, 15), (x0 + 512, 0)]:
        fig.text(x + (6 if bit in (31, 15) else -6), wy + 50, f"bit {bit}", size=12,
                 anchor="start" if bit in (31, 15) else "end", color=MUTED)
    fig.path(f"M {x0 + 290} {wy - 2} Q {x0 + 256} {wy - 22} {x0 + 222} {wy - 2}", color=HOT,
             width=1.5, arrow=True)
    fig.text(x0 + 300, wy - 8, "a carry out of bit 15 would land in bin 2k + 1: never allowed",
             size=12, color=HOT)

    # One counter's value, 0 to 2^16.
    ax, aw, ay = 150, 512, 210
    fig.text(ax - 10, ay + 21, "one counter", size=13, anchor="end")
    fig.rect(ax, ay, aw / 2, 32, fill=ACTIVE_LIGHT, stroke=INK)
    fig.text(ax + aw / 4, ay + 21, "every round starts below 2^15", size=12, anchor="middle")
    fig.rect(ax + aw / 2, ay, aw / 2, 32, fill=IDLE, stroke=INK)
    fig.text(ax + 3 * aw / 4, ay + 21, "only until the atomicSub lands", size=12, anchor="middle")
    fig.rect(ax + aw, ay, 72, 32, fill=HOT, stroke=INK)
    fig.text(ax + aw + 36, ay + 21, "2^16", size=13, anchor="middle", color="white", bold=True)
    for x, label, anchor in [(ax, "0", "middle"), (ax + aw / 2 + 4, "2^15", "start"),
                             (ax + aw - 2, "65535", "end")]:
        fig.text(x, ay + 48, label, size=12, anchor=anchor, color=MUTED)
    fig.text(ax + aw + 8, ay + 48, "overflow", size=12, color=HOT)
    hx = ax + aw / 2
    fig.line(hx, ay - 12, hx, ay + 34, color=GOOD, width=3)
    fig.path(f"M {hx - 4} {ay - 6} Q {ax + aw / 4} {ay - 44} {ax + 12} {ay - 3}", color=GOOD,
             width=2, arrow=True)
    fig.text(ax + aw / 4, ay - 30, "atomicSub: − 2^15", size=12, anchor="middle", color=GOOD,
             bold=True)
    fig.text(hx + 10, ay - 20, "the add whose old value is 2^15 − 1 (old == HANDOFF − 1)",
             size=12, color=GOOD)
    fig.rect(ax + 10, ay + 72, 220, 30, fill=GOOD_LIGHT, stroke=GOOD)
    fig.text(ax + 120, ay + 91, "hist[v] += 2^15 (global, 64-bit)", size=12, anchor="middle")
    fig.arrow(hx - 3, ay + 35, ax + 232, ay + 86, color=GOOD, width=2)
    fig.line(hx + 2, ay + 60, ax + aw, ay + 60, color=MUTED, width=1)
    for x in (hx + 2, ax + aw):
        fig.line(x, ay + 55, x, ay + 65, color=MUTED, width=1)
    notes(fig, hx + 16, ay + 78, ["until then the others add at most 1024",
                                 "threads × 32 values = 2^15 a round:",
                                 "≤ 2^15 − 1 + 2^15 = 65535"], size=12, step=16, color=MUTED)
    notes(fig, 16, 352, [
        "The one thread whose atomicAdd returns 2^15 − 1 hands 2^15 over: atomicSub on the word, "
        "atomicAdd on hist[v].",
        "Rounds of 32 values a thread between __syncthreads() cap what the others add before "
        "that, so no carry, on any data."])
    svgfig.save(fig, "packed_counters")


# 6. v14: a direct-mapped cache of bins, claimed by a sample; hits in shared, misses in global.
def bin_cache():
    fig = svgfig.Figure(820, 414, "Bin cache: slots of (bin, count) in shared memory")
    header(fig, "v14: a cache of bins instead of cluster slices, past 116224 bins",
           "16384 slots of (tag, count), 128 KB a block; bin v may only sit in slot v & 16383. "
           "2^18 bins here.")
    slots = ["0", "1", "2", "3", "4", "5", "6", "7", "…", "16383"]
    tags, counts = {2: 131074, 3: 3, 5: 5, 7: 7}, {2: 1, 3: 2, 5: 0, 7: 1}
    x0, cw, hy = 150, 62, 122  # hy: the top of the slot-number row
    col = lambda s: x0 + s * cw + cw / 2

    # 1: the sample claims the slots (dashed: the slot was taken already).
    sample = [(131074, True), (3, True), (16387, False), (5, True), (7, True), (3, False)]
    fig.text(x0 - 10, 80, "① sample", size=13, anchor="end", bold=True)
    for i, (v, won) in enumerate(sample):
        x = x0 + 10 + i * 100
        fig.rect(x, 64, 64, 22, fill="white", stroke=INK)
        fig.text(x + 32, 80, str(v), size=12, anchor="middle")
        fig.arrow(x + 32, 87, col(v & 16383) + (0 if won else 8 * (i % 3 - 1)), hy - 1,
                  color=ACTIVE if won else MUTED, width=1.5 if won else 1,
                  dash=None if won else "3 3")

    # The cache: slot numbers, tags and counts.
    fig.text(x0 - 10, hy + 15, "slot s", size=12, anchor="end", color=MUTED)
    fig.text(x0 - 10, hy + 37, "tags[ ]", size=13, anchor="end", mono=True)
    fig.text(x0 - 10, hy + 63, "counts[ ]", size=13, anchor="end", mono=True)
    for s, label in enumerate(slots):
        x, held = x0 + s * cw, s in tags
        fig.rect(x, hy, cw, 20, fill="white", stroke=GRID)
        fig.text(x + cw / 2, hy + 15, label, size=12,
                 anchor="middle", color=MUTED)
        fig.rect(x, hy + 20, cw, 26, fill=ACTIVE_LIGHT if held else IDLE, stroke=GRID)
        fig.rect(x, hy + 46, cw, 26, fill=ACTIVE_LIGHT if held else IDLE, stroke=GRID)
        tag = str(tags[s]) if held else ("…" if label == "…" else "free")
        fig.text(x + cw / 2, hy + 37, tag, size=12, anchor="middle",
                 color=INK if held or label == "…" else MUTED)
        fig.text(x + cw / 2, hy + 63, str(counts[s]) if held else "", size=12, anchor="middle")
    by = hy + 90
    fig.line(x0, by, x0 + 10 * cw, by, color=INK, width=2, dash="6 4")
    fig.text(x0 - 10, by + 4, "__syncthreads()", size=12, anchor="end", mono=True)
    fig.text(x0 - 10, by + 20, "tags frozen", size=12, anchor="end", color=MUTED)

    # 2: counting, hits in shared memory and misses in global memory.
    stream = [131074, 3, 16387, 3, 4, 65541, 7]
    vy, gy, offsets = 250, 310, {}
    fig.text(x0 - 10, vy + 16, "② count", size=13, anchor="end", bold=True)
    for i, v in enumerate(stream):
        x, s = x0 + 20 + i * 88, v & 16383
        hit = tags.get(s) == v
        fig.rect(x, vy, 64, 22, fill="white", stroke=GOOD if hit else HOT, width=1.5)
        fig.text(x + 32, vy + 16, str(v), size=12, anchor="middle")
        if hit:
            k = offsets[s] = offsets.get(s, -1) + 1
            fig.arrow(x + 32, vy - 1, col(s) - 8 + 16 * k, hy + 73, color=GOOD, width=2)
        else:
            fig.arrow(x + 32, vy + 23, x + 32, gy - 1, color=HOT, width=2)
    fig.rect(x0, gy, 10 * cw, 26, fill=HOT_LIGHT, stroke=INK)
    fig.text(x0 + 5 * cw, gy + 17, "hist[0 … 2^18) in global memory, 64-bit", size=12,
             anchor="middle")
    fig.text(x0 - 10, gy + 17, "global", size=13, anchor="end")
    notes(fig, 16, 362, [
        "① Each thread's first vector (4096 values a block) claims free slots: "
        "atomicCAS(&tags[s], FREE, v), first bin wins.",
        "② Hit (tags[s] == v): atomicAdd on counts[s], in the SM. Miss: atomicAdd on hist[v] in "
        "global memory, as in v1.",
        "③ At the end each held slot adds its count to hist[tag], once."], size=13, step=18)
    svgfig.save(fig, "bin_cache")


privatization()
lane_copies()
warp_copies()
merged_runs()
cluster_slices()
packed_counters()
bin_cache()
