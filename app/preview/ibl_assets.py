"""Prefiltered image-based-lighting data, its on-disk cache, and a worker job that never blocks the UI.

`prepare_assets` turns an `Environment` into `IblAssets` (the specular mip
chain and the irradiance map as float16, the folded SH coefficients),
`load_brdf_lut` reads the shipped split-sum table, `IblCache` keeps them per
environment *content* (SHA-256 of the file) in the user's cache directory,
and `PrefilterJob` does load + cache lookup + prefilter + store with progress
and cancellation, on an `app.workers.Worker` (`start`, or the preview's own
worker). Nothing here imports Qt: the preview polls `PrefilterJob.progress`
(or passes `on_progress`, called on the worker's thread).

The numpy work runs in chunks of about 32k texels; numpy releases the GIL
inside each operation and the worker checks for cancellation between
chunks, so the UI thread keeps getting the interpreter every few
milliseconds (`benchmarks/bench_ibl.py` measures the longest gap a Qt timer
sees while a prefilter runs).

Cache entries are keyed by `ALGORITHM_VERSION`, the chain layout and the
content hash; a corrupt or foreign entry is treated as missing and
rewritten. Writes go to a temporary file renamed into place, so a reader
never sees half an entry. The cache keeps the `MAX_CACHE_ENTRIES` most
recently used environments.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from app.preview import ibl, ibl_prefilter
from app.preview.environment import BUNDLED_DIRECTORY, Environment, load_named_environment
from app.workers import Job, Worker

#: Bump whenever the prefiltered output changes (samples, mapping, filtering): old entries are then ignored.
ALGORITHM_VERSION = 1
MAX_CACHE_ENTRIES = 24
#: Overrides the cache directory (tests, CI, portable installs).
CACHE_DIRECTORY_VARIABLE = "VPL_CACHE_DIR"
APPLICATION_NAME = "vpl-material-editor"


class PrefilterCancelledError(Exception):
    """The job was cancelled before it finished."""


@dataclass(frozen=True, eq=False)
class IblAssets:
    """What the renderer uploads for one environment (layout: `app.preview.ibl`).

    `specular`: float16 (h_k, w_k, 3) levels, GL row order, values clamped to
    the half range; `irradiance`: float16 (ibl.IRRADIANCE_HEIGHT,
    ibl.IRRADIANCE_WIDTH, 3), irradiance / pi; `diffuse_sh`: float32 (9, 3)
    folded coefficients of the same.
    """

    specular: tuple[np.ndarray, ...]
    irradiance: np.ndarray
    diffuse_sh: np.ndarray
    content_hash: str

    @property
    def levels(self) -> int:
        return len(self.specular)

    @property
    def max_lod(self) -> float:
        """The largest level of detail the chain has (`texture_lod` is clamped to it)."""
        return float(self.levels - 1)


@dataclass(frozen=True, eq=False)
class PreparedEnvironment:
    """A loaded environment with its IBL data, ready for the renderer."""

    environment: Environment
    assets: IblAssets
    brdf_lut: np.ndarray
    from_cache: bool
    seconds: float
    notes: tuple[str, ...] = ()


ProgressCallback = Callable[[float], None]


def prepare_assets(environment: Environment, check: ProgressCallback | None = None) -> IblAssets:
    """Prefilter `environment` (`check(fraction)` between chunks; it may raise to stop)."""
    height, width = ibl_prefilter.base_size(environment.height, environment.width)
    base = ibl_prefilter.area_resample(environment.radiance, height, width)
    diffuse = ibl_prefilter.diffuse_sh(base).astype(np.float32)
    irradiance = _as_half(ibl_prefilter.irradiance_map(base))
    chain = ibl_prefilter.prefilter_specular(base, check=check or (lambda _fraction: None))
    return IblAssets(tuple(_as_half(level) for level in chain), irradiance, diffuse, environment.content_hash)


def _as_half(image: np.ndarray) -> np.ndarray:
    return np.minimum(image, ibl.HALF_MAX).astype(np.float16)


BRDF_LUT_PATH = BUNDLED_DIRECTORY / "brdf_lut.npy"
_brdf_lut: np.ndarray | None = None


def load_brdf_lut() -> np.ndarray:
    """The shipped split-sum table (ibl.BRDF_LUT_SIZE, ibl.BRDF_LUT_SIZE, 2) float32, read once.

    It depends on the BRDF only, so tools/make_environments.py computes it
    once (`ibl_prefilter.brdf_lut`, many samples) and the package ships it.
    """
    global _brdf_lut
    if _brdf_lut is None:
        table = np.load(BRDF_LUT_PATH, allow_pickle=False)
        expected = (ibl.BRDF_LUT_SIZE, ibl.BRDF_LUT_SIZE, 2)
        if table.shape != expected or table.dtype != np.float32:
            raise ValueError(f"{BRDF_LUT_PATH}: expected a float32 table of shape {expected}, found {table.dtype} {table.shape}")
        table.flags.writeable = False
        _brdf_lut = table
    return _brdf_lut


def default_cache_directory() -> Path:
    """`$VPL_CACHE_DIR/ibl` when set, else the platform's user cache directory for the application."""
    override = os.environ.get(CACHE_DIRECTORY_VARIABLE)
    if override:
        return Path(override) / "ibl"
    import platformdirs

    return Path(platformdirs.user_cache_dir(APPLICATION_NAME, appauthor=False)) / "ibl"


class IblCache:
    """Prefiltered environments and the BRDF table on disk (one `.npz` per environment)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_directory()

    def entry_path(self, content_hash: str) -> Path:
        return self.directory / f"env-v{ALGORITHM_VERSION}-l{ibl.SPECULAR_LEVELS}-{content_hash}.npz"

    def load(self, content_hash: str) -> IblAssets | None:
        """The cached assets of an environment, or None (missing, unreadable or not what this version writes)."""
        path = self.entry_path(content_hash)
        try:
            with np.load(path, allow_pickle=False) as archive:
                stored_hash = str(archive["content_hash"])
                specular = tuple(archive[f"specular_{level}"] for level in range(ibl.SPECULAR_LEVELS))
                irradiance = archive["irradiance"]
                diffuse = archive["diffuse_sh"]
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None
        if stored_hash != content_hash or not _valid_assets(specular, irradiance, diffuse):
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # most recently used, for pruning
        return IblAssets(specular, irradiance, diffuse, content_hash)

    def store(self, assets: IblAssets) -> str | None:
        """Write `assets`; returns None, or a one-line reason when the cache cannot be written."""
        # Any: `np.savez(file, **arrays)` also has a keyword `allow_pickle: bool`, which a dict of arrays could name.
        arrays: dict[str, Any] = {f"specular_{level}": data for level, data in enumerate(assets.specular)}
        arrays["irradiance"] = assets.irradiance
        arrays["diffuse_sh"] = assets.diffuse_sh
        arrays["content_hash"] = np.array(assets.content_hash)
        try:
            self._write_atomically(self.entry_path(assets.content_hash), lambda handle: np.savez(handle, **arrays))
        except OSError as error:
            return f"the IBL cache {self.directory} is not writable ({error.strerror or error}); the environment will be prefiltered again next time"
        self.prune()
        return None

    def prune(self, keep: int = MAX_CACHE_ENTRIES) -> None:
        """Remove all but the `keep` most recently used environment entries."""
        try:
            entries = sorted(self.directory.glob("env-v*.npz"), key=lambda path: path.stat().st_mtime, reverse=True)
        except OSError:
            return
        for stale in entries[keep:]:
            with contextlib.suppress(OSError):
                stale.unlink()

    def _write_atomically(self, path: Path, write: Callable[[BinaryIO], None]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=path.stem + ".", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(handle, "wb") as stream:
                write(stream)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _valid_assets(specular: tuple[np.ndarray, ...], irradiance: np.ndarray, diffuse: np.ndarray) -> bool:
    if diffuse.shape != (ibl.SH_COEFFICIENT_COUNT, 3) or diffuse.dtype != np.float32:
        return False
    if irradiance.shape != (ibl.IRRADIANCE_HEIGHT, ibl.IRRADIANCE_WIDTH, 3) or irradiance.dtype != np.float16:
        return False
    height, width = specular[0].shape[:2]
    return all(data.dtype == np.float16 and data.shape == (height >> level, width >> level, 3) for level, data in enumerate(specular))


class PrefilterJob:
    """Load an environment, then take its IBL data from the cache or prefilter it, off the calling thread.

    `source` is a bundled environment's name, a file path or an
    `Environment`. `start()` runs the work on a worker of its own; `run()` does
    it in the calling thread (command-line screenshots, a worker's job). `future` resolves
    to a `PreparedEnvironment`, or to the `EnvironmentLoadError`,
    `PrefilterCancelledError` or other error that stopped it. `on_progress` is
    called from the worker thread with the fraction done (0..1).
    """

    #: Share of the progress bar for loading the file.
    _LOAD_SHARE = 0.05

    def __init__(
        self,
        source: str | Path | Environment,
        cache: IblCache | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> None:
        self.source = source
        self.cache = cache if cache is not None else IblCache()
        self.future: concurrent.futures.Future[PreparedEnvironment] = concurrent.futures.Future()
        self._on_progress = on_progress
        self._cancelled = False
        self._progress = 0.0
        self._worker: Worker[None] | None = None
        #: The worker job this runs as (`run(job)`): superseded there means cancelled here.
        self._job: Job | None = None

    @property
    def progress(self) -> float:
        return self._progress

    @property
    def cancelled(self) -> bool:
        return self._cancelled or (self._job is not None and self._job.superseded)

    def cancel(self) -> None:
        """Ask the job to stop at its next check (a few milliseconds); its future then raises `PrefilterCancelledError`."""
        self._cancelled = True

    def start(self) -> PrefilterJob:
        """Run on a worker of its own, which ends with the job; `future` says how it went."""
        if self._worker is not None:
            raise RuntimeError("the prefilter job was already started")

        def done(_: object) -> None:  # on the worker's thread: nothing more to run
            worker.close(0.0)

        worker: Worker[None] = Worker("ibl-prefilter", done, done)
        self._worker = worker
        worker.submit(lambda job: self._run_into_future(job))
        return self

    def run(self, job: Job | None = None) -> PreparedEnvironment:
        """Do the work in the calling thread (as worker job `job`, if given) and return its result (or raise its error)."""
        self._run_into_future(job)
        return self.future.result()

    def result(self, timeout: float | None = None) -> PreparedEnvironment:
        return self.future.result(timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """True when the job has finished (successfully or not) within `timeout` seconds."""
        try:
            self.future.exception(timeout)
        except concurrent.futures.TimeoutError:
            return False
        except concurrent.futures.CancelledError:
            pass
        return True

    def _report(self, fraction: float) -> None:
        if self.cancelled:
            raise PrefilterCancelledError("prefiltering was cancelled")
        self._progress = min(max(fraction, self._progress), 1.0)
        if self._on_progress is not None:
            self._on_progress(self._progress)

    def _run_into_future(self, job: Job | None = None) -> None:
        self._job = job
        if not self.future.set_running_or_notify_cancel():
            return
        try:
            result = self._work()
        except BaseException as error:  # the future carries whatever stopped the work to the UI thread
            self.future.set_exception(error)
            if not isinstance(error, Exception):
                raise
        else:
            self.future.set_result(result)

    def _work(self) -> PreparedEnvironment:
        started = time.perf_counter()
        self._report(0.0)
        environment = self.source if isinstance(self.source, Environment) else load_named_environment(self.source)
        self._report(self._LOAD_SHARE)
        lut = load_brdf_lut()
        first = self._LOAD_SHARE
        assets = self.cache.load(environment.content_hash)
        notes = list(environment.notes)
        from_cache = assets is not None
        if assets is None:
            assets = prepare_assets(environment, check=lambda fraction: self._report(first + (1.0 - first) * fraction))
            problem = self.cache.store(assets)
            if problem:
                notes.append(problem)
        self._report(1.0)
        return PreparedEnvironment(environment, assets, lut, from_cache, time.perf_counter() - started, tuple(notes))
