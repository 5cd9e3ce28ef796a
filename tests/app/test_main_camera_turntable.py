"""`--preview-screenshot` with --camera, --light, --ground, --shadows; each mesh's three-quarter default view;
`--turntable OUT.gif|OUT.mp4 --frames N` (read back with imageio); the stage keeps the settings;
File > Export Turntable... in a real window. Real GL under Xvfb."""

from __future__ import annotations

import itertools
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

from app.main import main
from app.preview.camera import DEFAULT_DISTANCE, MESH_VIEWS
from app.preview.images import load_image_rgba
from app.preview.stage import Stage

#: The screenshots and turntables compare frames drawn alike (other options, other frames of one turntable):
#: few refined frames show the same (`few_refined_frames`, tests/conftest.py); no test here checks the refinement.
pytestmark = [pytest.mark.gl, pytest.mark.usefixtures("few_refined_frames")]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"
GOLD = EXAMPLES / "polished_gold.vpl"
PAINTED = EXAMPLES / "painted_metal.vpl"
SIZE = 64


def _shot(tmp_path: Path, name: str, *options: str, source: Path = GOLD) -> np.ndarray:
    png = tmp_path / f"{name}.png"
    assert main([str(source), "--preview-screenshot", str(png), "--size", f"{SIZE}x{SIZE}", *options]) == 0
    return load_image_rgba(str(png)).astype(int)


def _covered(image: np.ndarray, background: np.ndarray) -> np.ndarray:
    return (np.abs(image[..., :3] - background[:3]).sum(axis=2) > 6)


def test_each_mesh_has_a_three_quarter_default_camera_and_camera_sets_it(qapp, tmp_path: Path) -> None:
    d = repr(DEFAULT_DISTANCE)
    cube = _shot(tmp_path, "cube", "--mesh", "cube")
    yaw, pitch = MESH_VIEWS["cube"]
    assert (cube == _shot(tmp_path, "cube_explicit", "--mesh", "cube", "--camera", f"{yaw},{pitch},{DEFAULT_DISTANCE!r}")).all()
    front = _shot(tmp_path, "cube_front", "--mesh", "cube", "--camera", f"0,0,{d}")
    background = cube[0, 0]
    # Seen straight on, the cube is a square: every covered row is as wide as the widest. At three-quarters
    # its silhouette is a hexagon: the top and bottom rows are narrower than the middle.
    front_widths = _covered(front, background).sum(axis=1)
    widths = _covered(cube, background).sum(axis=1)
    rows = np.flatnonzero(front_widths)
    assert np.ptp(front_widths[rows[1:-1]]) <= 1
    rows = np.flatnonzero(widths)
    assert widths[rows[0]] < 0.5 * widths.max() and widths[rows[-1]] < 0.5 * widths.max()
    plane = _shot(tmp_path, "plane", "--mesh", "plane")
    plane_front = _shot(tmp_path, "plane_front", "--mesh", "plane", "--camera", f"0,0,{d}")
    assert _covered(plane, background).sum() < 0.9 * _covered(plane_front, background).sum()  # foreshortened
    # The sphere keeps the classic front view.
    assert (_shot(tmp_path, "sphere") == _shot(tmp_path, "sphere_front", "--camera", f"0,0,{d}")).all()
    # Farther is smaller; yaw turns the view.
    far = _shot(tmp_path, "far", "--mesh", "cube", "--camera", f"{yaw},{pitch},{2 * DEFAULT_DISTANCE}")
    assert _covered(far, background).sum() < 0.4 * _covered(cube, background).sum()
    assert (_shot(tmp_path, "turned", "--mesh", "cube", "--camera", f"{yaw + 20},{pitch},{d}") != cube).any()


def test_light_off_leaves_only_the_environment(qapp, tmp_path: Path) -> None:
    lit = _shot(tmp_path, "lit", "--environment", "none", source=PAINTED)
    dark = _shot(tmp_path, "dark", "--environment", "none", "--light", "off", source=PAINTED)
    assert (_shot(tmp_path, "on", "--environment", "none", "--light", "on", source=PAINTED) == lit).all()
    sphere = _covered(lit, lit[0, 0])
    assert dark[sphere, :3].sum() < 0.8 * lit[sphere, :3].sum()
    assert (dark[~sphere] == lit[~sphere]).all()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--mesh", "teapot"], "unknown mesh 'teapot'"),
        (["--camera", "10,20,-3"], "distance must be above 0"),
        (["--camera", "10,95,3"], "pitch (degrees) must be between -89 and 89"),
        (["--camera", "10,-90,3"], "pitch (degrees) must be between -89 and 89"),
        (["--camera", "10,20"], "three numbers"),
        (["--camera", "a,b,c"], "the camera"),
        (["--light", "dim"], "the light must be on or off"),
        (["--shadows", "yes"], "the shadows must be on or off"),
        (["--ground", "1"], "the ground must be on or off"),
        (["--occlusion", "some"], "the occlusion must be on or off"),
    ],
)
def test_a_wrong_stage_value_is_one_line_and_exit_2(qapp, tmp_path: Path, capsys, options: list[str], message: str) -> None:
    png = tmp_path / "never.png"
    assert main([str(GOLD), "--preview-screenshot", str(png), "--size", "32x32", *options]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and message in error[0], error
    assert not png.exists()
    movie = tmp_path / "never.gif"
    assert main([str(GOLD), "--turntable", str(movie), "--frames", "2", "--size", "32x32", *options]) == 2
    assert not movie.exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--turntable", "OUT.gif", "--frames", "0"], "--frames must be between 1 and"),
        (["--turntable", "OUT.gif", "--frames", "many"], "--frames must be a whole number"),
        (["--turntable", "OUT.avi"], "must end in .gif or .mp4"),
        (["--frames", "3"], "--frames goes with --turntable"),
    ],
)
def test_a_wrong_turntable_value_is_one_line_and_exit_2(qapp, tmp_path: Path, capsys, monkeypatch,
                                                       options: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([str(GOLD), "--size", "32x32", *options]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and message in error[0], error
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_a_turntable_has_n_frames_of_the_mesh_turning(qapp, tmp_path: Path, suffix: str) -> None:
    movie = tmp_path / f"cube{suffix}"
    assert main([str(GOLD), "--turntable", str(movie), "--frames", "6", "--size", "48x48", "--mesh", "cube"]) == 0
    frames = iio.imread(movie, index=None)
    assert frames.shape[:3] == (6, 48, 48)
    # Frame 0 is the still frame (GIF: palette-quantised; MP4: lossy, so compared on average).
    still = tmp_path / "still.png"
    assert main([str(GOLD), "--preview-screenshot", str(still), "--size", "48x48", "--mesh", "cube"]) == 0
    expected = load_image_rgba(str(still)).astype(int)[..., :3]
    assert np.mean(np.abs(frames[0].astype(int)[..., :3] - expected)) < 6
    # The cube turns: consecutive frames differ; a quarter turn of 6 frames is not a symmetry of the view.
    for a, b in itertools.pairwise(frames):
        assert np.mean(np.abs(a.astype(int) - b.astype(int))) > 1.0


def test_the_environment_turntable_keeps_the_camera(qapp, tmp_path: Path) -> None:
    movie = tmp_path / "env.gif"
    assert main([str(GOLD), "--turntable", str(movie), "--frames", "4", "--size", "48x48", "--turn", "environment",
                 "--mesh", "cube", "--environment", "none"]) == 0
    frames = iio.imread(movie, index=None).astype(int)
    background = frames[0, 0, 0]
    silhouettes = [_covered(frame, background) for frame in frames]
    assert all((s == silhouettes[0]).all() for s in silhouettes)  # the mesh stays put
    assert any(np.abs(frame - frames[0]).max() > 8 for frame in frames[1:])  # its lighting turns


def test_the_stage_keeps_camera_light_shadows_and_ground() -> None:
    stage = Stage()
    stage.set_camera("30,20,5")
    stage.set_switches(light="off", shadows="on", ground="on", occlusion="on")
    data = stage.to_dict()
    assert data["camera"] == [30.0, 20.0, 5.0] and data["light_enabled"] is False and data["shadows"] and data["ground"]
    assert data["occlusion"] is True
    notes: list[str] = []
    assert Stage.from_dict(data, notes) == stage and notes == []
    assert "camera" not in Stage().to_dict()  # no saved camera: the mesh's own view
    broken_notes: list[str] = []
    broken = Stage.from_dict({**data, "camera": [0, 120, 5], "shadows": "maybe", "mesh": "teapot"}, broken_notes)
    assert broken.camera is None and broken.shadows is False and broken.mesh == "sphere"
    assert broken.ground and not broken.light_enabled
    said = " | ".join(broken_notes)
    assert "camera" in said and "shadows" in said and "mesh" in said and len(broken_notes) == 3

