"""Fixtures for the graph tests: a shown MaterialNodeGraph with the whole node catalog.

`view` is the real NodeGraphQt widget, shown and exposed under Xvfb, checking
connections the way the editor does (`can_connect` on the current snapshot).
Teardown hides the node search and clears the session so no test leaves a
window or an undo stack behind. A test module may still define its own `view`
(a hidden one, say), which takes precedence over this one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.graph.adapter import snapshot
from app.graph.view import MaterialNodeGraph
from app.material.catalog import NODE_TYPES
from app.material.connections import can_connect


@pytest.fixture
def view(qtbot: Any) -> Iterator[MaterialNodeGraph]:
    graph = MaterialNodeGraph()
    graph.register_catalog(NODE_TYPES.values())
    graph.connection_check = lambda *ports: can_connect(snapshot(graph), *ports)
    graph.widget.resize(1200, 900)
    graph.widget.show()
    qtbot.waitExposed(graph.widget)
    yield graph
    graph.node_search.hide()
    graph.clear_session()
    graph.deleteLater()
