"""Imported MaterialX documents without node positions are laid out so that no node covers another.

Each document of tests/data/materialx (every one imports; a document of several materials with its
first) is opened through the window's import (the editor's
own path: `import_mtlx_from`) with node thumbnails on, the editor's default and the tallest the nodes
get, and every pair of NodeGraphQt node items is checked for overlap in the scene, with a small margin
so that nodes which merely touch also count. The importer places the nodes from a model-level estimate
of their size (`app/material/node_extent.py`); this test measures the real widget, so it fails when a
node grows (a new port, a wider value field) and the estimate was not told.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from app.export.mtlx_import import import_mtlx, mtlx_material_names
from app.ui.node_thumbnails import THUMBNAILS_SETTING

pytestmark = pytest.mark.gl

#: Scene units two nodes must keep between them (they may not touch).
MARGIN = 4.0
EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "materialx" / "Materials" / "Examples"


DOCUMENTS = sorted(EXAMPLES.rglob("*.mtlx"))


def test_the_tall_documents_are_checked() -> None:
    """The documents whose nodes are tallest (the hex-tiled onyx, the marble's noise chain, the chess set's
    and the boombox's textures) are among those checked below, and import."""
    names = {path.stem: path for path in DOCUMENTS}
    for name in ("standard_surface_onyx_hextiled", "standard_surface_marble_solid", "gltf_pbr_boombox",
                 "standard_surface_chess_set"):
        import_mtlx(names[name])


@pytest.fixture
def thumbnail_window(make_window, settings):
    settings.setValue(THUMBNAILS_SETTING, True)
    return make_window(load_example=False)


@pytest.mark.parametrize("path", DOCUMENTS, ids=[path.stem for path in DOCUMENTS])
def test_no_imported_node_covers_another(thumbnail_window, prompts, path: Path) -> None:
    prompts.mtlx_material = mtlx_material_names(path)[0]  # asked only when the document has several
    window = thumbnail_window
    assert window.exports.import_mtlx_from(path)
    window.flush()
    window.thumbnails.refresh()  # reserves each thumbnail's place: the node's final height
    items = [(node.name(), node.view.sceneBoundingRect()) for node in window.graph.material_nodes()]
    assert len(items) == len(window.session.graph.nodes)
    overlapping = [
        f"{first} {first_rect.getRect()} and {second} {second_rect.getRect()}"
        for (first, first_rect), (second, second_rect) in itertools.combinations(items, 2)
        if first_rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN).intersects(second_rect)
    ]
    assert not overlapping, f"{path.stem}: overlapping nodes: " + "; ".join(overlapping)
