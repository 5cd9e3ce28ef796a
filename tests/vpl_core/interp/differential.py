"""Comparing a frame the interpreter rendered (with precision tracking) with the driver's float read-back.

Per pixel and output component:

- pixels the interpreter marks `unstable` (a branch, index, discard or
  derivative whose outcome GLSL's precision lets go either way) are not
  compared at all;
- elsewhere both sides must agree on whether the fragment was discarded;
- float components whose radius is finite must satisfy |gpu - cpu| <= radius
  (a NaN on the GPU side fails); components with an infinite radius
  (undefined results, overflow, unbounded functions) are not compared;
- int components with radius 0 must be equal.

`Agreement` counts what was compared and excluded, so a test can also
check that the comparison was not vacuous.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from gl_float import FLOAT_SENTINEL, INT_SENTINEL

from vpl_core.backends.glsl.artifact import ProgramArtifact
from vpl_core.interp import Program, RenderResult
from vpl_core.interp.lanes import leaves
from vpl_core.ir.module import Direction
from vpl_core.ir.types import ArrayType


@dataclass
class Agreement:
    compared: int = 0          # components compared
    excluded: int = 0          # components not compared: infinite radius
    unstable_pixels: int = 0
    discarded_pixels: int = 0
    pixels: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, other: Agreement) -> None:
        self.compared += other.compared
        self.excluded += other.excluded
        self.unstable_pixels += other.unstable_pixels
        self.discarded_pixels += other.discarded_pixels
        self.pixels += other.pixels
        self.failures += other.failures

    def summary(self) -> str:
        return (f"{self.compared} components compared, {self.excluded} excluded (undefined or unbounded), "
                f"{self.unstable_pixels} of {self.pixels} pixels unstable, {self.discarded_pixels} discarded")


def _output_locations(artifact: ProgramArtifact) -> dict[str, int]:
    return {binding.name: binding.location for binding in artifact.fragment_interface if binding.direction is Direction.OUT}


def compare_frames(program: Program, artifact: ProgramArtifact, result: RenderResult, gpu: dict[int, np.ndarray]) -> Agreement:
    assert result.errors is not None and result.unstable is not None, "render with tracked=True"
    agreement = Agreement()
    stable = ~result.unstable
    agreement.pixels = int(stable.size)
    agreement.unstable_pixels = int(result.unstable.sum())
    locations = _output_locations(artifact)
    color_location = artifact.fragment_color_location
    primary = gpu[color_location]
    sentinel = FLOAT_SENTINEL if primary.dtype.kind == "f" else INT_SENTINEL
    gpu_written = ~np.all(primary == sentinel, axis=-1)
    cpu_written = result.written
    agreement.discarded_pixels = int((stable & ~cpu_written).sum())
    differ = stable & (gpu_written != cpu_written)
    for y, x in list(zip(*np.nonzero(differ)))[:5]:
        agreement.failures.append(f"pixel ({x}, {y}) from the top: discarded by {'the GPU' if cpu_written[y, x] else 'the interpreter'} only")
    compare = stable & cpu_written & gpu_written
    for variable in program.fragment.stage.interface:
        if variable.direction is not Direction.OUT:
            continue
        location = locations[variable.name]
        data_leaves = leaves(result.outputs[variable.name])
        error_leaves = leaves(result.errors[variable.name])
        assert len(data_leaves) == 1, "outputs are scalars, vectors or arrays of them (spec 12.4)"
        data, error = np.asarray(data_leaves[0]), np.asarray(error_leaves[0])
        count = variable.type.count if isinstance(variable.type, ArrayType) else 1
        for element in range(count):
            cpu = data[:, :, element] if isinstance(variable.type, ArrayType) else data
            radius = error[:, :, element] if isinstance(variable.type, ArrayType) else error
            if cpu.ndim == 2:
                cpu, radius = cpu[..., None], radius[..., None]
            components = cpu.shape[-1]
            gpu_values = gpu[location + element][..., :components]
            _compare_components(agreement, f"{variable.name}{f'[{element}]' if count > 1 else ''}", cpu, radius, gpu_values, compare)
    return agreement


def _compare_components(agreement: Agreement, name: str, cpu: np.ndarray, radius: np.ndarray, gpu: np.ndarray, mask: np.ndarray) -> None:
    selected = np.broadcast_to(mask[..., None], cpu.shape)
    finite = np.isfinite(radius) & selected
    agreement.excluded += int((selected & ~finite).sum())
    agreement.compared += int(finite.sum())
    if cpu.dtype.kind == "f":
        with np.errstate(invalid="ignore", over="ignore"):
            good = np.abs(gpu.astype(np.float64) - cpu.astype(np.float64)) <= radius
    else:
        good = gpu.astype(np.int64) == cpu.astype(np.int64)
    bad = finite & ~good
    for y, x, component in list(zip(*np.nonzero(bad)))[:8]:
        agreement.failures.append(
            f"{name}.{'xyzw'[component]} at pixel ({x}, {y}) from the top: gpu {gpu[y, x, component]!r}, "
            f"interpreter {cpu[y, x, component]!r} +- {radius[y, x, component]:.3g}")
