#!/usr/bin/env python3
"""tests/cli/png_check.py PNG - checks that a screenshot of an olc report
is not blank: decodes the PNG (8-bit RGB or RGBA, non-interlaced, as
Chromium writes them) with zlib alone and requires many distinct colours,
a share of non-white pixels, and pixels of the winner's green and the first
guess's blue from the report's CSS (so the plot itself was drawn).  Prints
the figures; exits 0 when they pass, 1 when not, 2 on a PNG it cannot read.
"""
import collections
import struct
import sys
import zlib

WINNER = (0x1A, 0x7F, 0x37)  # svg .winner .dot / .speedup b
FIRST = (0x09, 0x69, 0xDA)  # svg .first .dot


def unfilter(f, line, prev, bpp):
    """Sub (1), Average (3) and Paeth (4), in place."""
    for x in range(len(line)):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 3:
            line[x] = (line[x] + ((a + b) >> 1)) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[x] = (line[x] + pred) & 255
        else:
            raise ValueError("bad filter %d" % f)


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace != 0:
        raise ValueError("unsupported PNG: depth %d, colour type %d" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 2:  # Up, the most common: one pass in C
            line = bytearray((x + y) & 255 for x, y in zip(line, prev))
        elif f != 0:
            unfilter(f, line, prev, bpp)
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def near(px, ref, tol=40):
    return all(abs(px[k] - ref[k]) <= tol for k in range(3))


def main():
    try:
        width, height, bpp, rows = decode(sys.argv[1])
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        print("png_check: %s: %s" % (sys.argv[1], e))
        return 2
    counts = collections.Counter()
    for line in rows:
        if bpp == 3:
            it = iter(line)
            counts.update(zip(it, it, it))
        else:
            it = iter(line)
            counts.update((r, g, b) for r, g, b, _ in zip(it, it, it, it))
    ink = width * height - counts.get((255, 255, 255), 0)
    green = sum(n for px, n in counts.items() if near(px, WINNER))
    blue = sum(n for px, n in counts.items() if near(px, FIRST))
    colours = counts
    share = ink / float(width * height)
    print("png_check: %dx%d, %d colours, %.1f%% not white, %d green, %d blue pixels"
          % (width, height, len(colours), 100 * share, green, blue))
    ok = len(colours) >= 16 and share >= 0.01 and green >= 20 and blue >= 20
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
