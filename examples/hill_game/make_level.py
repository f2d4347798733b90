#!/usr/bin/env python3
"""Writes hill.gltf, the hill game's level (python3 make_level.py > hill.gltf).

The level is one unit cube mesh placed by node transforms, so a level designer can read it in any
glTF viewer and change it by hand: a 40 m floor inside walls; the hill in the middle, two 0.3 m
tiers a character climbs as stairs, with the trigger `hill` over its top; two jump pads, each with a
trigger `pad_west` / `pad_east` over it, which launch a character onto the ledge beside it (3 m up,
out of reach of a jump); a wall across the south end with a door in it (a mover the game drives,
`extras.foothold.driven`: it slides up out of the way while anyone stands on the switch before or
behind it, the triggers `switch_north` and `switch_south`); four spawn corners, two of them behind
the door. Every number is exact in float32."""

import base64
import json
import struct

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


# The door: shut at 0 s, open (2.9 m up) at 1 s, shut again at 2 s. The game sends it to key 1 to
# open it and to key 2 to shut it (GameControl::mover; keys are the animation's key times).
DOOR_CENTRE = (0, 1.5, 12)
DOOR_TIMES = (0.0, 1.0, 2.0)
DOOR_TRANSLATIONS = ((0, 1.5, 12), (0, 4.4, 12), (0, 1.5, 12))


def cube_buffer():
    positions = b"".join(struct.pack("<3f", *c) for c in CORNERS)
    indices = b"".join(struct.pack("<3H", *f) for f in FACES)
    return positions, indices


def door_buffer():
    times = b"".join(struct.pack("<f", t) for t in DOOR_TIMES)
    translations = b"".join(struct.pack("<3f", *v) for v in DOOR_TRANSLATIONS)
    return times, translations


def box(name, centre, size, extras=None):
    node = {"name": name, "mesh": 0, "translation": list(centre), "scale": list(size)}
    if extras:
        node["extras"] = {"foothold": extras}
    return node


def level_nodes():
    nodes = [box("floor", (0, -0.5, 0), (40, 1, 40))]
    for name, centre, size in (("wall_north", (0, 1.5, -20.5), (42, 3, 1)), ("wall_south", (0, 1.5, 20.5), (42, 3, 1)),
                               ("wall_west", (-20.5, 1.5, 0), (1, 3, 40)), ("wall_east", (20.5, 1.5, 0), (1, 3, 40))):
        nodes.append(box(name, centre, size))
    # The hill: a 10 m tier 0.3 m high, a 6 m tier on it (0.6 m): both climbed as stairs.
    nodes.append(box("hill_low", (0, 0.15, 0), (10, 0.3, 10)))
    nodes.append(box("hill_top", (0, 0.45, 0), (6, 0.3, 6)))
    # Whoever stands on the top tier is in the trigger (a capsule overlapping its box).
    nodes.append(box("hill", (0, 1.5, 0), (6, 1.5, 6), {"trigger": "hill"}))
    for side, x in (("west", -12), ("east", 12)):
        nodes.append(box("pad_" + side + "_plate", (x, 0.05, 8), (2, 0.1, 2)))
        nodes.append(box("pad_" + side, (x, 0.75, 8), (2, 1.5, 2), {"trigger": "pad_" + side}))
        # The ledge a pad throws a character onto: 3 m up, towards the wall.
        nodes.append(box("ledge_" + side, (x + (-4 if x < 0 else 4), 1.5, 8), (4, 3, 6)))
    # The south wall with its doorway (3 m wide, at x = 0), the door in it, the switches either side.
    nodes.append(box("south_wall_west", (-10.75, 1.5, 12), (18.5, 3, 1)))
    nodes.append(box("south_wall_east", (10.75, 1.5, 12), (18.5, 3, 1)))
    nodes.append(box("door", DOOR_CENTRE, (3, 3, 0.5), {"driven": True}))
    # The switches: the floor 4 m deep and 10 m wide before the wall and behind it.
    nodes.append(box("switch_north", (0, 0.75, 9.5), (10, 1.5, 4), {"trigger": "switch_north"}))
    nodes.append(box("switch_south", (0, 0.75, 14.5), (10, 1.5, 4), {"trigger": "switch_south"}))
    return nodes


def main():
    positions, indices = cube_buffer()
    times, translations = door_buffer()
    data = positions + indices + times + translations
    nodes = level_nodes()
    door = next(i for i, n in enumerate(nodes) if n["name"] == "door")
    gltf = {
        "asset": {"version": "2.0", "generator": "examples/hill_game/make_level.py"},
        "buffers": [{"byteLength": len(data),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(positions)},
                        {"buffer": 0, "byteOffset": len(positions), "byteLength": len(indices)},
                        {"buffer": 0, "byteOffset": len(positions) + len(indices), "byteLength": len(times)},
                        {"buffer": 0, "byteOffset": len(positions) + len(indices) + len(times),
                         "byteLength": len(translations)}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": len(CORNERS), "type": "VEC3",
                       "min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5]},
                      {"bufferView": 1, "componentType": 5123, "count": 3 * len(FACES), "type": "SCALAR"},
                      {"bufferView": 2, "componentType": 5126, "count": len(DOOR_TIMES), "type": "SCALAR",
                       "min": [DOOR_TIMES[0]], "max": [DOOR_TIMES[-1]]},
                      {"bufferView": 3, "componentType": 5126, "count": len(DOOR_TRANSLATIONS), "type": "VEC3"}],
        "meshes": [{"name": "cube", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "animations": [{"name": "door", "samplers": [{"input": 2, "output": 3, "interpolation": "LINEAR"}],
                        "channels": [{"sampler": 0, "target": {"node": door, "path": "translation"}}]}],
        "nodes": nodes,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "scene": 0,
    }
    print(json.dumps(gltf, indent=1))


if __name__ == "__main__":
    main()
