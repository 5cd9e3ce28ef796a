"""Where a new node goes: the free spot nearest to where it was asked for.

A node added from the palette, the node search or a dropped wire lands
where the artist looked (the view's centre, the cursor), but never on top
of a node already there: it moves to the nearest position, on a grid of
`STEP` scene units in widening square rings, where its rectangle with a
`MARGIN` around it meets no other node. Past `MAX_RINGS` it stays where it
was asked for (a view full of nodes; the artist moves it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

STEP = 20.0
MARGIN = 16.0
MAX_RINGS = 80

Rect = tuple[float, float, float, float]  # x, y (top left), width, height


def _rings(preferred: tuple[float, float], step: float, rings: int) -> Iterator[tuple[float, float]]:
    """Grid points around `preferred`, ring by ring, each ring nearest first."""
    px, py = preferred
    yield px, py
    for ring in range(1, rings + 1):
        points = [(dx, dy) for dx in range(-ring, ring + 1) for dy in range(-ring, ring + 1)
                  if max(abs(dx), abs(dy)) == ring]
        points.sort(key=lambda point: (math.hypot(point[0], point[1]), point[1], point[0]))
        for dx, dy in points:
            yield px + dx * step, py + dy * step


def nearest_free(size: tuple[float, float], preferred: tuple[float, float], occupied: Callable[[Rect], bool],
                 step: float = STEP, margin: float = MARGIN, rings: int = MAX_RINGS) -> tuple[float, float]:
    """The top-left position nearest `preferred` at which a node of `size` with `margin` around it is not
    `occupied` (a test of a scene rectangle against the other nodes); `preferred` when there is none."""
    width, height = size
    for x, y in _rings(preferred, step, rings):
        if not occupied((x - margin, y - margin, width + 2 * margin, height + 2 * margin)):
            return x, y
    return preferred


def overlaps(rect: Rect, others: list[Rect]) -> bool:
    """Whether `rect` meets any of `others` (touching edges do not count)."""
    x, y, width, height = rect
    return any(x < ox + ow and ox < x + width and y < oy + oh and oy < y + height for ox, oy, ow, oh in others)
