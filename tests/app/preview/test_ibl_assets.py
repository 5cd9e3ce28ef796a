"""The IBL cache and the worker job: cache hits by content, bad entries, cancellation, errors, progress, the UI thread."""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from app.preview import ibl, ibl_assets
from app.preview.environment import EnvironmentLoadError, environment_from_array, uniform_environment
from app.preview.ibl_assets import IblCache, PrefilterCancelledError, PrefilterJob


def small_environment(seed: int = 0, height: int = 64) -> object:
    rng = np.random.default_rng(seed)
    return environment_from_array(f"random-{seed}", rng.uniform(0.0, 3.0, size=(height, 2 * height, 3)))


def test_the_second_job_for_the_same_content_comes_from_the_cache(tmp_path: Path) -> None:
    cache = IblCache(tmp_path)
    first = PrefilterJob(small_environment(), cache).run()
    second = PrefilterJob(small_environment(), cache).run()
    assert not first.from_cache and second.from_cache
    assert cache.entry_path(first.environment.content_hash).is_file()
    for a, b in zip(first.assets.specular, second.assets.specular):
        assert a.dtype == np.float16 and np.array_equal(a, b)
    assert np.array_equal(first.assets.irradiance, second.assets.irradiance)
    assert np.array_equal(first.assets.diffuse_sh, second.assets.diffuse_sh)
    assert first.brdf_lut.shape == (ibl.BRDF_LUT_SIZE, ibl.BRDF_LUT_SIZE, 2)


def test_assets_have_the_documented_layout(tmp_path: Path) -> None:
    prepared = PrefilterJob(small_environment(height=256), IblCache(tmp_path)).run()
    assets = prepared.assets
    assert assets.levels == ibl.SPECULAR_LEVELS and assets.max_lod == ibl.SPECULAR_LEVELS - 1
    assert [level.shape for level in assets.specular] == [(256 >> k, 512 >> k, 3) for k in range(ibl.SPECULAR_LEVELS)]
    assert assets.irradiance.shape == (ibl.IRRADIANCE_HEIGHT, ibl.IRRADIANCE_WIDTH, 3)
    assert assets.diffuse_sh.shape == (9, 3) and assets.diffuse_sh.dtype == np.float32


def test_values_beyond_the_half_range_are_clamped_not_infinite(tmp_path: Path) -> None:
    image = np.ones((64, 128, 3))
    image[40, 10] = 1e9  # a sun far brighter than a half float holds
    prepared = PrefilterJob(environment_from_array("sun", image), IblCache(tmp_path)).run()
    assert all(np.isfinite(level.astype(np.float32)).all() for level in prepared.assets.specular)
    assert prepared.assets.specular[0].max() == np.float16(ibl.HALF_MAX)


def test_a_corrupt_cache_entry_is_recomputed_and_rewritten(tmp_path: Path) -> None:
    cache = IblCache(tmp_path)
    environment = small_environment(1)
    path = cache.entry_path(environment.content_hash)
    tmp_path.mkdir(exist_ok=True)
    path.write_bytes(b"not a zip file")
    prepared = PrefilterJob(environment, cache).run()
    assert not prepared.from_cache
    assert cache.load(environment.content_hash) is not None


def test_an_entry_stored_under_another_hash_is_not_trusted(tmp_path: Path) -> None:
    cache = IblCache(tmp_path)
    first = PrefilterJob(small_environment(2), cache).run()
    other = small_environment(3)
    cache.entry_path(first.environment.content_hash).rename(cache.entry_path(other.content_hash))
    assert cache.load(other.content_hash) is None


def test_an_unwritable_cache_still_gives_the_result_with_a_note(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache directory cannot be created below a file")
    prepared = PrefilterJob(small_environment(), IblCache(blocker / "ibl")).run()
    assert not prepared.from_cache
    assert len(prepared.notes) == 1 and "is not writable" in prepared.notes[0]


def test_the_cache_keeps_only_the_most_recently_used_entries(tmp_path: Path) -> None:
    cache = IblCache(tmp_path)
    hashes = []
    for seed in range(4):
        prepared = PrefilterJob(small_environment(seed), cache).run()
        hashes.append(prepared.environment.content_hash)
        time.sleep(0.01)  # distinct modification times
    cache.prune(keep=2)
    assert [cache.entry_path(h).exists() for h in hashes] == [False, False, True, True]


def test_the_cache_directory_follows_the_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ibl_assets.CACHE_DIRECTORY_VARIABLE, str(tmp_path))
    assert IblCache().directory == tmp_path / "ibl"
    monkeypatch.delenv(ibl_assets.CACHE_DIRECTORY_VARIABLE)
    assert IblCache().directory.name == "ibl" and ibl_assets.APPLICATION_NAME in str(IblCache().directory)


def test_a_started_job_reports_rising_progress_from_its_thread(tmp_path: Path) -> None:
    seen: list[tuple[float, str]] = []
    job = PrefilterJob(small_environment(height=128), IblCache(tmp_path), on_progress=lambda f: seen.append((f, threading.current_thread().name)))
    job.start()
    prepared = job.result(timeout=120)
    assert prepared.environment.name == "random-0"
    fractions = [fraction for fraction, _ in seen]
    assert fractions[-1] == 1.0 and all(b >= a for a, b in itertools.pairwise(fractions)) and len(fractions) > 5
    assert {name for _, name in seen} == {"ibl-prefilter"}
    assert job.progress == 1.0 and job.wait(0)
    with pytest.raises(RuntimeError, match="already started"):
        job.start()


def test_cancelling_stops_the_job_and_writes_nothing(tmp_path: Path) -> None:
    started = threading.Event()
    cache = IblCache(tmp_path)
    environment = small_environment(4, height=512)
    job = PrefilterJob(environment, cache, on_progress=lambda fraction: started.set() if fraction > 0.06 else None)
    job.start()
    assert started.wait(60)
    job.cancel()
    assert job.wait(30)
    with pytest.raises(PrefilterCancelledError):
        job.result()
    assert job.cancelled and not cache.entry_path(environment.content_hash).exists()


def test_a_bad_file_fails_the_future_with_the_load_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.hdr"
    bad.write_bytes(b"#?RADIANCE\nnonsense")
    job = PrefilterJob(bad, IblCache(tmp_path / "cache")).start()
    assert job.wait(30)
    assert isinstance(job.future.exception(), EnvironmentLoadError)
    with pytest.raises(EnvironmentLoadError, match=r"broken\.hdr"):
        job.result()


def test_bundled_names_are_accepted_as_sources(tmp_path: Path) -> None:
    prepared = PrefilterJob("neutral", IblCache(tmp_path)).run()
    assert prepared.environment.name == "neutral" and prepared.environment.path is not None
    # The neutral gradient: a white Lambertian surface facing up sees about 0.95, facing down about 0.45.
    up, down = ibl.diffuse_radiance(prepared.assets.irradiance.astype(np.float64), np.array([[0.0, 1.0, 0.0], [0.0, -1.0, 0.0]]))
    assert 0.85 < up.mean() < 1.0 and 0.3 < down.mean() < 0.55


def test_the_white_furnace_environment_prefilters_to_one_everywhere(tmp_path: Path) -> None:
    prepared = PrefilterJob(uniform_environment(1.0), IblCache(tmp_path)).run()
    for level in prepared.assets.specular:
        assert np.all(level == np.float16(1.0))
    assert np.all(prepared.assets.irradiance == np.float16(1.0))


def test_the_ui_thread_keeps_running_while_a_job_works(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The job works in a thread of its own: held until the main thread's event loop has run an event (which
    it could not if `start` did the work), it then finishes (benchmarks/bench_ibl.py measures the loop's gaps)."""
    from PySide6.QtCore import QTimer

    turned = threading.Event()
    work = PrefilterJob._work

    def held_work(job: PrefilterJob) -> object:
        assert turned.wait(60), "the main thread's event loop did not run while the job worked"
        return work(job)

    monkeypatch.setattr(PrefilterJob, "_work", held_work)
    job = PrefilterJob(small_environment(5, height=64), IblCache(tmp_path))
    job.start()
    QTimer.singleShot(0, turned.set)
    qtbot.waitUntil(lambda: job.future.done(), timeout=120_000)
    job.result()
