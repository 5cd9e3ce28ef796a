"""`PreviewState.set_values`: the preview keeps the snapshot it is given and uploads only what changed (no GL)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.preview.preview_state import PreviewState
from app.session.parameters import ParameterValues
from app.session.textures import TextureImage


def test_the_state_keeps_the_snapshot_as_given_and_marks_only_changed_names() -> None:
    state = PreviewState()
    first = ParameterValues({"roughness": 0.5, "tint": (1.0, 0.0, 0.0, 1.0)})
    state.set_values(first)
    assert state.parameters is first  # held, not copied
    state._dirty_parameters.clear()
    second = first.replaced({"roughness": 0.25})
    state.set_values(second)
    assert state.parameters is second and state._dirty_parameters == {"roughness"}


def test_a_texture_image_value_is_the_samplers_image_until_it_is_gone() -> None:
    state = PreviewState()
    pixels = np.full((2, 2, 4), 200, dtype=np.uint8)
    image = TextureImage(pixels, Path("albedo.png"))
    state.set_values({"albedo": image, "roughness": 0.5})
    assert np.array_equal(state._images["albedo"], pixels) and "albedo" in state._dirty_textures
    state._dirty_textures.clear()
    state.set_values(state.parameters.replaced({"roughness": 0.75}))  # the same image object: not uploaded again
    assert not state._dirty_textures
    state.set_values(state.parameters.replaced({"albedo": None}))  # the checker again
    assert "albedo" not in state._images and "albedo" in state._dirty_textures


def test_one_value_for_a_tool_without_a_session_makes_a_new_snapshot() -> None:
    state = PreviewState()
    state.set_values({"a": 1.0, "b": 2.0})
    before = state.parameters
    state.set_parameter("a", 3.0)
    assert before == {"a": 1.0, "b": 2.0} and state.parameters == {"a": 3.0, "b": 2.0}
