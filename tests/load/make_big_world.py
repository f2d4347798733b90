#!/usr/bin/env python3
"""Writes a glTF binary (.glb) of a large world, for start-up figures (time to Ready on a big level).

    tests/load/make_big_world.py OUT.glb [TRIANGLES]   (default 1,000,000)

A square of gentle hills, 1 m quads, two triangles each, welded vertices, Y up, metres, centred on
the origin; the side is chosen so the triangle count is the smallest square grid reaching TRIANGLES.
Heights come from integer arithmetic only, so the file is the same byte for byte on every machine.
"""
import json
import math
import struct
import sys


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    out = sys.argv[1]
    try:
        wanted = int(sys.argv[2]) if len(sys.argv) == 3 else 1_000_000
    except ValueError:
        print(f"make_big_world: TRIANGLES '{sys.argv[2]}' is not a number", file=sys.stderr)
        sys.exit(2)
    if not 2 <= wanted <= 50_000_000:
        print("make_big_world: TRIANGLES must be 2 to 50000000", file=sys.stderr)
        sys.exit(2)
    quads = math.isqrt((wanted + 1) // 2)
    if 2 * quads * quads < wanted:
        quads += 1
    n = quads + 1  # vertices per side
    half = quads / 2.0
    positions = bytearray()
    ys = []
    for z in range(n):
        for x in range(n):
            # Hills of up to 2 m from a triangle wave in x and z (integers, then one division).
            h = (abs((x % 40) - 20) + abs((z % 56) - 28)) * 2.0 / 48.0
            ys.append(h)
            positions += struct.pack("<fff", x - half, h, z - half)
    indices = bytearray()
    for z in range(quads):
        for x in range(quads):
            a = z * n + x
            b, c, d = a + 1, a + n, a + n + 1
            indices += struct.pack("<6I", a, c, b, b, c, d)  # counter-clockwise seen from above
    triangles = 2 * quads * quads
    pos_len, idx_len = len(positions), len(indices)
    binary = bytes(positions) + bytes(indices)
    doc = {
        "asset": {"version": "2.0", "generator": "foothold tests/load/make_big_world.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": "terrain"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": 4}]}],
        "buffers": [{"byteLength": len(binary)}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": pos_len, "target": 34962},
            {"buffer": 0, "byteOffset": pos_len, "byteLength": idx_len, "target": 34963},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n * n, "type": "VEC3",
             "min": [-half, min(ys), -half], "max": [half, max(ys), half]},
            {"bufferView": 1, "componentType": 5125, "count": 3 * triangles, "type": "SCALAR"},
        ],
    }
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    binary += b"\0" * (-len(binary) % 4)
    total = 12 + 8 + len(js) + 8 + len(binary)
    with open(out, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, total))
        f.write(struct.pack("<II", len(js), 0x4E4F534A) + js)
        f.write(struct.pack("<II", len(binary), 0x004E4942) + binary)
    print(f"{out}: {triangles} triangles, {n * n} vertices, {total} bytes")


main()
