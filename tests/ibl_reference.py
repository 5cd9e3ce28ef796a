"""Test support: the split-sum prefiltered radiance by brute force, written from the formula.

Independent of app/preview/ibl_prefilter.py (which integrates with FFTs over
box-filtered copies): a plain weighted sum over every texel of the image.
Used by tests/app/preview/test_ibl_prefilter.py and benchmarks/bench_ibl.py.
"""

from __future__ import annotations

import functools

import numpy as np

from app.preview import ibl


@functools.lru_cache(maxsize=4)
def texel_grid(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Every texel centre's direction (height * width, 3) and solid angle (height * width,), read-only.

    The same for every normal and roughness summed over one image size, so
    worked out once per size (a full-size environment's grid costs more than
    one weighted sum over it).
    """
    directions = ibl.texel_directions(height, width).reshape(-1, 3)
    solid_angles = np.broadcast_to(ibl.texel_solid_angles(height, width), (height, width)).reshape(-1)
    directions.flags.writeable = False
    return directions, solid_angles


def brute_force_prefiltered(image: np.ndarray, normal: np.ndarray, roughness: float) -> np.ndarray:
    """sum L D(h) max(n.l, 0) dOmega / sum D(h) max(n.l, 0) dOmega over every texel centre l, h = normalize(n + l), n = v.

    D is GGX with alpha = roughness^2 (glTF 2.0 Appendix B); dOmega the
    texel's exact solid angle.
    """
    directions, solid_angles = texel_grid(*image.shape[:2])
    alpha = max(roughness * roughness, 1e-4)
    half = directions + normal
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    n_dot_h = half @ normal
    distribution = alpha**2 / (np.pi * (n_dot_h**2 * (alpha**2 - 1.0) + 1.0) ** 2)
    weights = distribution * np.maximum(directions @ normal, 0.0) * solid_angles
    return (image.reshape(-1, image.shape[2]) * weights[:, None]).sum(axis=0) / weights.sum()
