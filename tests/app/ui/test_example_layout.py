"""The example materials are laid out as an artist would leave them: no node covers another.

Each example is opened in the real window with node thumbnails on (the
editor's default, and the tallest the nodes get), and every pair of
NodeGraphQt node items is checked for overlap in the scene, with a small
margin so that nodes which merely touch also count; every frame holds its
members and covers no other node. The examples'
positions come from the generator in `app/material/examples.py`, which
stacks each column using the nodes' heights (`_stack_columns`); this test
measures the heights the real widget draws, so it fails when a node grows
(a new port, a taller thumbnail) and the generator was not told.
"""

from __future__ import annotations

import itertools

import pytest

from app.graph.nodes import FRAME_ID_PROPERTY, FrameNode
from app.material.examples import example_names
from app.ui.node_thumbnails import THUMBNAILS_SETTING

pytestmark = pytest.mark.gl

#: Scene units two nodes must keep between them (they may not touch).
MARGIN = 4.0


@pytest.fixture
def thumbnail_window(make_window, settings):
    settings.setValue(THUMBNAILS_SETTING, True)
    return make_window(load_example=False)


@pytest.mark.parametrize("name", example_names())
def test_no_node_of_an_example_covers_another(thumbnail_window, name: str) -> None:
    window = thumbnail_window
    assert window.files.load_example(name)
    window.flush()
    window.thumbnails.refresh()  # reserves each thumbnail's place: the node's final height
    items = [(node.name(), node.view.sceneBoundingRect()) for node in window.graph.material_nodes()]
    assert items
    overlapping = [
        f"{first} {first_rect.getRect()} and {second} {second_rect.getRect()}"
        for (first, first_rect), (second, second_rect) in itertools.combinations(items, 2)
        if first_rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN).intersects(second_rect)
    ]
    assert not overlapping, f"{name}: overlapping nodes: " + "; ".join(overlapping)
    # A frame holds its members and covers no other node (it would look as if the node belonged to it).
    frames = {node.get_property(FRAME_ID_PROPERTY): node.view.sceneBoundingRect()
              for node in window.graph.all_nodes() if isinstance(node, FrameNode)}
    assert len(frames) == len(window.session.graph.frames)
    views = {node.stable_id: node.view.sceneBoundingRect() for node in window.graph.material_nodes()}
    for frame in window.session.graph.frames:
        outline = frames[frame.id]
        for node_id, rect in views.items():
            if node_id in frame.node_ids:
                assert outline.contains(rect), f"{name}: frame {frame.title!r} does not hold its member {node_id}"
            else:
                assert not outline.intersects(rect), f"{name}: frame {frame.title!r} covers {node_id}, not a member"
