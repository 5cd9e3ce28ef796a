"""MaterialX's `fractal3d` noise in numpy, operation for operation as its GLSL library computes it
(MaterialX/libraries/stdlib/genglsl/lib/mx_noise.glsl: `mx_fractal3d_noise_float` and `_vec3`, over
`mx_perlin_noise_float` / `_vec3` with Bob Jenkins' lookup3 hash on 32-bit unsigned integers).

The reference a node computing MaterialX's fractal3d is checked against (the editor's own noises use another
hash and gradient set, so they do not reproduce a MaterialX document's pattern); it is itself checked against
MaterialX's GLSL run on the GPU (tests/app/export/test_mtlx_noise_reference.py).
"""

from __future__ import annotations

import numpy as np

_U32 = np.uint32


def _rotl(x: np.ndarray, k: int) -> np.ndarray:
    return (x << _U32(k)) | (x >> _U32(32 - k))


def _bjfinal(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    c = c ^ b
    c = c - _rotl(b, 14)
    a = a ^ c
    a = a - _rotl(c, 11)
    b = b ^ a
    b = b - _rotl(a, 25)
    c = c ^ b
    c = c - _rotl(b, 16)
    a = a ^ c
    a = a - _rotl(c, 4)
    b = b ^ a
    b = b - _rotl(a, 14)
    c = c ^ b
    c = c - _rotl(b, 24)
    return c


def hash_int(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """`mx_hash_int(int x, int y, int z)`: lookup3's final mix of the three lattice coordinates."""
    seed = _U32(0xDEADBEEF + (3 << 2) + 13)
    with np.errstate(over="ignore"):
        return _bjfinal(seed + x.astype(np.int32).view(_U32), seed + y.astype(np.int32).view(_U32),
                        seed + z.astype(np.int32).view(_U32))


def _gradient(h: np.ndarray, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """`mx_gradient_float(uint hash, float x, float y, float z)`: one of the 12 cube-edge directions (16 cases)."""
    h = h & _U32(15)
    u = np.where(h < 8, x, y)
    v = np.where(h < 4, y, np.where((h == 12) | (h == 14), x, z))
    return np.where((h & 1) != 0, -u, u) + np.where((h & 2) != 0, -v, v)


def _fade(t: np.ndarray) -> np.ndarray:
    return t * t * t * (t * (t * np.float32(6.0) - np.float32(15.0)) + np.float32(10.0))


def _trilerp(v: list[np.ndarray], s: np.ndarray, t: np.ndarray, r: np.ndarray) -> np.ndarray:
    one = np.float32(1.0)
    s1, t1, r1 = one - s, one - t, one - r
    return (r1 * (t1 * (v[0] * s1 + v[1] * s) + t * (v[2] * s1 + v[3] * s))
            + r * (t1 * (v[4] * s1 + v[5] * s) + t * (v[6] * s1 + v[7] * s)))


_CORNERS = [(dx, dy, dz) for dz in (0, 1) for dy in (0, 1) for dx in (0, 1)]  # mx_trilerp's v0..v7


def perlin_float(p: np.ndarray) -> np.ndarray:
    """`mx_perlin_noise_float(vec3 p)` of points (..., 3): about [-1, 1]."""
    p = np.asarray(p, np.float32)
    cell = np.floor(p)
    f = p - cell
    cell = cell.astype(np.int32)
    values = [_gradient(hash_int(cell[..., 0] + dx, cell[..., 1] + dy, cell[..., 2] + dz),
                        f[..., 0] - dx, f[..., 1] - dy, f[..., 2] - dz) for dx, dy, dz in _CORNERS]
    return np.float32(0.9820) * _trilerp(values, _fade(f[..., 0]), _fade(f[..., 1]), _fade(f[..., 2]))


def perlin_vec3(p: np.ndarray) -> np.ndarray:
    """`mx_perlin_noise_vec3(vec3 p)`: three channels from the hash's low three bytes (`mx_hash_vec3`)."""
    p = np.asarray(p, np.float32)
    cell = np.floor(p)
    f = p - cell
    cell = cell.astype(np.int32)
    channels = []
    for shift in (0, 8, 16):
        values = [_gradient((hash_int(cell[..., 0] + dx, cell[..., 1] + dy, cell[..., 2] + dz) >> _U32(shift)) & _U32(0xFF),
                            f[..., 0] - dx, f[..., 1] - dy, f[..., 2] - dz) for dx, dy, dz in _CORNERS]
        channels.append(_trilerp(values, _fade(f[..., 0]), _fade(f[..., 1]), _fade(f[..., 2])))
    return np.float32(0.9820) * np.stack(channels, axis=-1)


def fractal3d(p: np.ndarray, octaves: int = 3, lacunarity: float = 2.0, diminish: float = 0.5,
              amplitude: float | np.ndarray = 1.0, channels: int = 1) -> np.ndarray:
    """MaterialX's `fractal3d` node (`mx_fractal3d_float` / `_vector3`): the sum of `octaves` Perlin octaves,
    each `diminish` times the last's weight at `lacunarity` times its frequency, times `amplitude`."""
    p = np.asarray(p, np.float32)
    result = np.zeros(p.shape[:-1] + ((3,) if channels == 3 else ()), np.float32)
    weight = np.float32(1.0)
    for _ in range(octaves):
        result = result + weight * (perlin_vec3(p) if channels == 3 else perlin_float(p))
        weight = weight * np.float32(diminish)
        p = p * np.float32(lacunarity)
    return result * np.asarray(amplitude, np.float32)
