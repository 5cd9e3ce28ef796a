"""A stage read from a document or the settings: a value that cannot be used keeps its default, with a note."""

from __future__ import annotations

import os

import pytest

from app.preview.stage import DEFAULT_LIGHT_COLOR, DEFAULT_LIGHT_INTENSITY, Stage


def test_huge_and_non_finite_numbers_fall_back_to_the_default_with_a_note() -> None:
    notes: list[str] = []
    stage = Stage.from_dict({"exposure": 10 ** 400, "light_intensity": int("7" * 400), "light_color": [1e39, 0, 0],
                             "environment_intensity": "inf", "background_color": [0.1, 0.2], "tone_mapper": "aces"},
                            notes)
    default = Stage()
    assert (stage.exposure, stage.light_intensity, stage.light_color) == (default.exposure, DEFAULT_LIGHT_INTENSITY,
                                                                          DEFAULT_LIGHT_COLOR)
    assert stage.environment_intensity == default.environment_intensity
    assert stage.background_color == default.background_color
    assert stage.tone_mapper == "aces"  # the values that make sense are kept
    fields = [note.split(":")[0] for note in notes]
    assert fields == ["the stage's environment_intensity", "the stage's background_color", "the stage's exposure",
                      "the stage's light_color", "the stage's light_intensity"]
    assert all(note.endswith("; using the default") for note in notes)


def test_a_light_colour_within_range_is_kept() -> None:
    assert Stage.from_dict({"light_color": [2.0, 1.0, 0.5]}).light_color == (2.0, 1.0, 0.5)


def test_a_null_value_is_noted_too() -> None:
    # The setters read None as "unchanged": a stored null was dropped without a word.
    notes: list[str] = []
    stage = Stage.from_dict({"environment_rotation": None, "exposure": 1.0}, notes)
    assert stage.environment_rotation == 0.0 and stage.exposure == 1.0
    assert notes == ["the stage's environment_rotation: no value (null); using the default"]


def test_a_huge_camera_falls_back_with_a_note() -> None:
    # The camera field reads three numbers too: a 400-digit yaw raised OverflowError out of from_dict.
    notes: list[str] = []
    assert Stage.from_dict({"camera": [10 ** 400, 0, 5]}, notes).camera is None
    assert notes == ["the stage's camera: the camera yaw (degrees) must be a finite number, not 1000000000000000000000000000000000000...; "
                     "using the default"]
    assert Stage.from_dict({"camera": "30, 10, 4"}).camera == (30.0, 10.0, 4.0)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_stage_file_that_is_not_a_readable_regular_file_says_why(tmp_path) -> None:
    # "unknown environment 'zero.exr': expected ... or the path of an .hdr/.exr file" said nothing of what
    # was wrong with a path that was one: a link to /dev/zero, a FIFO, a name the platform refuses.
    (tmp_path / "zero.exr").symlink_to(os.devnull)
    os.mkfifo(tmp_path / "pipe.obj")
    long_name = str(tmp_path / ("m" * 300 + ".glb"))
    with pytest.raises(ValueError, match=r"zero\.exr' \(a device, not a regular file\): expected "):
        Stage().set_environment(str(tmp_path / "zero.exr"))
    with pytest.raises(ValueError, match=r"pipe\.obj' \(a pipe \(FIFO\), not a regular file\): expected "):
        Stage().set_mesh(str(tmp_path / "pipe.obj"))
    with pytest.raises(ValueError, match=r"\.glb' \(the path of the glTF binary file is longer than this system allows\)"):
        Stage().set_mesh(long_name)
    with pytest.raises(ValueError, match=r"^unknown mesh 'teapot': expected "):  # a mistyped name: no reason added
        Stage().set_mesh("teapot")
