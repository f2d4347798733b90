#!/usr/bin/env python3
"""Writes the navigation tests' levels (python3 make_levels.py, in this folder): glTF worlds that look
like game levels, for foothold-nav walk and the path follower's tests (tests/nav/).

rooms.gltf: a 40 m x 30 m house of four rooms behind 3 m walls, joined by doors (gaps of 1.6 m);
  north-west, stairs up to a mezzanine 1.5 m high and stairs down its other side; north-east, a 20
  degree ramp up to a platform 1.2 m high whose far edge drops to the floor (no way up there); south-
  west, a balcony 1 m high against the walls, with no stairs: reached by a jump; crates 0.5 m high and
  pillars in the rooms.
corridor.gltf: two halls of 12 m x 12 m joined by a corridor 30 m long and 3 m wide: where a crowd of
  32 passes each other.
platform.gltf: a 30 m x 20 m hall with a moving platform: a deck 5 m x 5 m and 0.3 m high (a step up)
  that slides 16 m across the middle and back every 8 s, through the walkers, who step onto it and are
  carried off their paths, are pushed by its edges, and walk on; pillars and crates about it.

Each is one unit cube mesh placed by node transforms (a ramp is a rotated slab), so a level designer
can read it in any glTF viewer and change it by hand."""

import base64
import json
import math
import struct
import sys

# A unit cube centred on the origin: 8 corners, 12 triangles, faces wound outward.
CORNERS = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
FACES = [
    (0, 1, 3), (0, 3, 2),  # -x
    (4, 6, 7), (4, 7, 5),  # +x
    (0, 4, 5), (0, 5, 1),  # -y
    (2, 3, 7), (2, 7, 6),  # +y
    (0, 2, 6), (0, 6, 4),  # -z
    (1, 5, 7), (1, 7, 3),  # +z
]
WALL = 3.0        # wall height, metres
THICK = 0.4       # wall thickness
DOOR = 1.6        # door width
HALF = 2.0        # half the corridor's width


def box(name, lo, hi):
    """An axis-aligned box from corner lo to corner hi."""
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    size = [b - a for a, b in zip(lo, hi)]
    return {"name": name, "mesh": 0, "translation": centre, "scale": size}


def ramp(name, x0, z0, z1, height, degrees, thickness=0.3):
    """A slab rising along +x from the floor at x = x0 to `height`, `degrees` steep, z0..z1 wide."""
    a = math.radians(degrees)
    length = height / math.sin(a)
    # The top face runs from (x0, 0) to (x0 + length cos a, height); the slab's centre is half its
    # thickness below the middle of it, along the slab's normal (-sin a, cos a).
    mid_x, mid_y = x0 + length * math.cos(a) / 2, height / 2
    centre = [mid_x + math.sin(a) * thickness / 2, mid_y - math.cos(a) * thickness / 2, (z0 + z1) / 2]
    return {"name": name, "mesh": 0, "translation": centre, "scale": [length, thickness, z1 - z0],
            "rotation": [0, 0, math.sin(a / 2), math.cos(a / 2)]}


def stairs(name, x0, z0, z1, steps, rise, tread, direction, top_x):
    """Steps climbing along x (direction +1 or -1) from x0, each `rise` higher, to a landing at top_x."""
    nodes = []
    for k in range(steps):
        start = x0 + direction * k * tread
        lo_x, hi_x = sorted((start, top_x))
        nodes.append(box(f"{name}_{k}", (lo_x, 0, z0), (hi_x, (k + 1) * rise, z1)))
    return nodes


def wall_x(name, z, x0, x1, gaps=(), width=DOOR):
    """A wall along x at z from x0 to x1, with gaps `width` wide centred at the x of `gaps`."""
    nodes, start = [], x0
    for i, g in enumerate(sorted(gaps) + [None]):
        end = x1 if g is None else g - width / 2
        if end > start:
            nodes.append(box(f"{name}_{i}", (start, 0, z - THICK / 2), (end, WALL, z + THICK / 2)))
        if g is not None:
            start = g + width / 2
    return nodes


def wall_z(name, x, z0, z1, gaps=(), width=DOOR):
    """A wall along z at x from z0 to z1, with gaps `width` wide centred at the z of `gaps`."""
    nodes, start = [], z0
    for i, g in enumerate(sorted(gaps) + [None]):
        end = z1 if g is None else g - width / 2
        if end > start:
            nodes.append(box(f"{name}_{i}", (x - THICK / 2, 0, start), (x + THICK / 2, WALL, end)))
        if g is not None:
            start = g + width / 2
    return nodes


def enclosure(hx, hz):
    """A floor of 2hx x 2hz metres at y = 0 inside walls."""
    nodes = [box("floor", (-hx, -1, -hz), (hx, 0, hz))]
    nodes += wall_x("wall_north", -hz - THICK / 2, -hx - THICK, hx + THICK)
    nodes += wall_x("wall_south", hz + THICK / 2, -hx - THICK, hx + THICK)
    nodes += wall_z("wall_west", -hx - THICK / 2, -hz, hz)
    nodes += wall_z("wall_east", hx + THICK / 2, -hz, hz)
    return nodes


def rooms():
    nodes = enclosure(20, 15)
    # Four rooms: walls through the middle each way, two doors in each.
    nodes += wall_x("wall_middle", 0, -20, 20, gaps=(-10, 8))
    nodes += wall_z("wall_centre", 0, -15, 15, gaps=(-7, 7))
    # North-west: stairs up (6 x 0.25 m) to a mezzanine 1.5 m high, stairs down its other side.
    nodes += stairs("stairs_up", -18, -14, -11, 6, 0.25, 0.4, +1, -15.6)
    nodes.append(box("mezzanine", (-15.6, 0, -15), (-9, 1.5, -9)))
    nodes += stairs("stairs_down", -6.6, -14, -11, 6, 0.25, 0.4, -1, -9)
    # North-east: a 20 degree ramp up to a platform 1.2 m high; its east edge drops to the floor.
    nodes.append(ramp("ramp", 3, -14, -11, 1.2, 20))
    top = 3 + 1.2 / math.tan(math.radians(20))
    nodes.append(box("platform", (top, 0, -15), (top + 7, 1.2, -9)))
    # South-west: a balcony 1 m high in the corner, no stairs: a jump up, a drop down.
    nodes.append(box("balcony", (-20, 0, 10), (-14, 1.0, 15)))
    # Crates (0.5 m: a jump up) and pillars about the rooms.
    for i, (x, z) in enumerate(((-6, 6), (-4, 11), (12, 5), (14, 10), (6, -4))):
        nodes.append(box(f"crate_{i}", (x - 0.6, 0, z - 0.6), (x + 0.6, 0.5, z + 0.6)))
    for i, (x, z) in enumerate(((-10, 5), (10, 10), (15, -5), (-12, -5))):
        nodes.append(box(f"pillar_{i}", (x - 0.3, 0, z - 0.3), (x + 0.3, WALL, z + 0.3)))
    return nodes


def corridor():
    nodes = []
    for name, x0, x1 in (("hall_west", -27, -15), ("hall_east", 15, 27)):
        nodes.append(box(name + "_floor", (x0, -1, -6), (x1, 0, 6)))
        nodes += wall_x(name + "_north", -6 - THICK / 2, x0 - THICK, x1 + THICK)
        nodes += wall_x(name + "_south", 6 + THICK / 2, x0 - THICK, x1 + THICK)
    nodes += wall_z("hall_west_end", -27 - THICK / 2, -6, 6)
    nodes += wall_z("hall_east_end", 27 + THICK / 2, -6, 6)
    # The halls' inner walls, open at the corridor's mouths, and the corridor between them.
    nodes += wall_z("hall_west_inner", -15 + THICK / 2, -6, 6, gaps=(0,), width=2 * HALF)
    nodes += wall_z("hall_east_inner", 15 - THICK / 2, -6, 6, gaps=(0,), width=2 * HALF)
    nodes.append(box("corridor_floor", (-15, -1, -HALF), (15, 0, HALF)))
    nodes += wall_x("corridor_north", -HALF - THICK / 2, -15, 15)
    nodes += wall_x("corridor_south", HALF + THICK / 2, -15, 15)
    return nodes


def platform():
    nodes = enclosure(15, 10)
    for i, (x, z) in enumerate(((-9, -6), (9, 6), (-9, 6), (9, -6))):
        nodes.append(box(f"pillar_{i}", (x - 0.4, 0, z - 0.4), (x + 0.4, WALL, z + 0.4)))
    for i, (x, z) in enumerate(((0, -7), (0, 7))):
        nodes.append(box(f"crate_{i}", (x - 0.6, 0, z - 0.6), (x + 0.6, 0.5, z + 0.6)))
    deck = box("deck", (-2.5, 0, -2.5), (2.5, 0.3, 2.5))
    nodes.append(deck)
    return nodes


# The deck's slide (platform.gltf): its centre's x at each key time, seconds; y and z stay.
SLIDE = ((0.0, -8.0), (4.0, 8.0), (8.0, -8.0))


def animations(nodes, data):
    """The deck's slide as glTF data appended to `data`: (bufferViews, accessors, animations, data)."""
    deck = next((i for i, n in enumerate(nodes) if n["name"] == "deck"), None)
    if deck is None:
        return [], [], [], data
    y, z = nodes[deck]["translation"][1], nodes[deck]["translation"][2]
    times = b"".join(struct.pack("<f", t) for t, _ in SLIDE)
    values = b"".join(struct.pack("<3f", x, y, z) for _, x in SLIDE)
    views = [{"buffer": 0, "byteOffset": len(data), "byteLength": len(times)},
             {"buffer": 0, "byteOffset": len(data) + len(times), "byteLength": len(values)}]
    accessors = [{"bufferView": 2, "componentType": 5126, "count": len(SLIDE), "type": "SCALAR",
                  "min": [SLIDE[0][0]], "max": [SLIDE[-1][0]]},
                 {"bufferView": 3, "componentType": 5126, "count": len(SLIDE), "type": "VEC3"}]
    anims = [{"name": "slide", "samplers": [{"input": 2, "output": 3, "interpolation": "LINEAR"}],
              "channels": [{"sampler": 0, "target": {"node": deck, "path": "translation"}}]}]
    return views, accessors, anims, data + times + values


def gltf(nodes, generator):
    positions = b"".join(struct.pack("<3f", *c) for c in CORNERS)
    indices = b"".join(struct.pack("<3H", *f) for f in FACES)
    views, accessors, anims, data = animations(nodes, positions + indices)
    out = {
        "asset": {"version": "2.0", "generator": generator},
        "buffers": [{"byteLength": len(data),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(positions)},
                        {"buffer": 0, "byteOffset": len(positions), "byteLength": len(indices)}] + views,
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": len(CORNERS), "type": "VEC3",
                       "min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5]},
                      {"bufferView": 1, "componentType": 5123, "count": 3 * len(FACES), "type": "SCALAR"}] + accessors,
        "meshes": [{"name": "cube", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "nodes": nodes,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "scene": 0,
    }
    if anims:
        out["animations"] = anims
    return out


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    for name, nodes in (("rooms", rooms()), ("corridor", corridor()), ("platform", platform())):
        with open(f"{folder}/{name}.gltf", "w") as out:
            json.dump(gltf(nodes, "tests/nav/levels/make_levels.py"), out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main()
