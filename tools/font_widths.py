#!/usr/bin/env python3
"""Writes tools/svgfig_widths.py: the advance widths of the house fonts (DejaVu Sans, regular and
bold, and DejaVu Sans Mono), read from the fonts' own tables (head, hhea, hmtx, cmap format 4),
standard library only. Run it once where the fonts are installed (Debian: fonts-dejavu-core):
  python3 tools/font_widths.py > tools/svgfig_widths.py
"""
import struct, sys
def widths(path, ranges):
    data = open(path, 'rb').read()
    num = struct.unpack('>H', data[4:6])[0]
    tables = {}
    for i in range(num):
        tag, _, off, ln = struct.unpack('>4sIII', data[12 + 16*i: 28 + 16*i])
        tables[tag.decode()] = (off, ln)
    head = tables['head'][0]; upem = struct.unpack('>H', data[head+18:head+20])[0]
    hhea = tables['hhea'][0]; nhm = struct.unpack('>H', data[hhea+34:hhea+36])[0]
    hmtx = tables['hmtx'][0]
    adv = [struct.unpack('>H', data[hmtx+4*i:hmtx+4*i+2])[0] for i in range(nhm)]
    cmap = tables['cmap'][0]
    n = struct.unpack('>H', data[cmap+2:cmap+4])[0]
    sub = None
    for i in range(n):
        pid, eid, off = struct.unpack('>HHI', data[cmap+4+8*i: cmap+12+8*i])
        if pid == 3 and eid == 1: sub = cmap + off
    fmt, ln = struct.unpack('>HH', data[sub:sub+4]); assert fmt == 4
    segx2 = struct.unpack('>H', data[sub+6:sub+8])[0]; seg = segx2//2
    ends = struct.unpack(f'>{seg}H', data[sub+14:sub+14+segx2])
    starts = struct.unpack(f'>{seg}H', data[sub+16+segx2:sub+16+2*segx2])
    deltas = struct.unpack(f'>{seg}h', data[sub+16+2*segx2:sub+16+3*segx2])
    roff_pos = sub+16+3*segx2
    roffs = struct.unpack(f'>{seg}H', data[roff_pos:roff_pos+segx2])
    def glyph(c):
        for i in range(seg):
            if starts[i] <= c <= ends[i]:
                if roffs[i] == 0: return (c + deltas[i]) & 0xFFFF
                p = roff_pos + 2*i + roffs[i] + 2*(c - starts[i])
                g = struct.unpack('>H', data[p:p+2])[0]
                return (g + deltas[i]) & 0xFFFF if g else 0
        return 0
    out = {}
    for a, b in ranges:
        for c in range(a, b + 1):
            g = glyph(c)
            if g:
                out[c] = round(adv[min(g, nhm-1)] / upem, 4)
    return out
R = [(0x20,0x7E),(0xA0,0xFF),(0x391,0x3C9),(0x2010,0x2044),(0x2070,0x209F),(0x2190,0x21FF),(0x2200,0x22FF),(0x2300,0x23FF),(0x2500,0x259F),(0x25A0,0x25FF)]
base='/usr/share/fonts/truetype/dejavu/'
regular = widths(base+'DejaVuSans.ttf', R)
bold = widths(base+'DejaVuSans-Bold.ttf', R)
mono = widths(base+'DejaVuSansMono.ttf', [(0x20,0x20)])[0x20]
def fmt(d):
    # runs of equal widths compress poorly; write "codepoint:width" pairs, 8 to a line
    items = [f"0x{c:04X}: {w}" for c, w in sorted(d.items())]
    lines = ["    " + ", ".join(items[i:i+6]) + "," for i in range(0, len(items), 6)]
    return "{\n" + "\n".join(lines) + "\n}"
print('"""The advance widths of DejaVu Sans and DejaVu Sans Bold (the house font of tools/svgfig.py),\nin ems, for the characters figures use; read from the fonts\' hmtx and cmap tables by\ntools/font_widths.py (generated: do not edit). svgfig measures a text\'s extent with them."""\n')
print(f"MONO = {mono}  # DejaVu Sans Mono: every character\n")
print("REGULAR = " + fmt(regular) + "\n")
print("BOLD = " + fmt(bold))
