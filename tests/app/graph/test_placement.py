"""Where a new node goes: the nearest free spot, never on a node."""

from __future__ import annotations

from app.graph.placement import nearest_free, overlaps


def test_a_free_preferred_spot_is_kept() -> None:
    assert nearest_free((100, 50), (0, 0), lambda rect: False) == (0, 0)


def test_a_taken_spot_moves_to_the_nearest_free_one_clear_of_the_node() -> None:
    taken = [(0.0, 0.0, 200.0, 120.0)]
    x, y = nearest_free((100, 50), (20, 20), lambda rect: overlaps(rect, taken), margin=10)
    assert not overlaps((x - 10, y - 10, 120, 70), taken)
    # The nearest: above the node (the new one is short), not somewhere far away.
    assert (x, y) == (20, -60)
