"""Test support: OpenPBR's thin film over the dielectric specular, integrated by Monte Carlo in numpy.

Written from the physics, not from the shader: the film's reflectance is the
exact Airy sum of a dielectric film in air over a dielectric base (amplitude
Fresnel coefficients per polarisation, every order of the interference,
Born & Wolf), averaged over the two polarisations and integrated over the
visible spectrum (380-780 nm) against the CIE 1931 colour matching functions
(Wyman, Sloan & Shirley 2013's multi-lobe fit) under an equal-energy
illuminant, converted to linear Rec.709 and white-balanced so that a flat
reflectance of 1 is white. The film replaces the specular's Fresnel per
microfacet, at V·H (OpenPBR Surface 1.1, "Thin film"); the GGX lobe is
sampled by its visible normals (Heitz 2018) with height-correlated Smith
masking, against the full-resolution studio image, and the diffuse base
below receives 1 − the film-coated specular's directional albedo (OpenPBR's
albedo scaling).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping

import mtlx_reference
import numpy as np

from app.preview import ibl

ENVIRONMENT = "studio"
SAMPLES = 40000
#: The cases: OpenPBR Surface properties. "film on black" is MaterialX's standard_surface_thin_film as the import
#: maps it (no base: the specular alone); "film over diffuse" is the pearl without its coat and subsurface.
CASES: dict[str, dict[str, object]] = {
    "film on black": {"base_weight": 0.0, "base_color": (1.0, 1.0, 1.0, 1.0), "specular_roughness": 0.02,
                      "specular_ior": 2.5, "thin_film_weight": 1.0, "thin_film_thickness": 0.55, "thin_film_ior": 1.5},
    "film over diffuse": {"base_color": (0.8, 0.75, 0.7, 1.0), "specular_roughness": 0.35, "specular_ior": 1.5,
                          "thin_film_weight": 1.0, "thin_film_thickness": 0.42, "thin_film_ior": 2.0},
}
WAVELENGTHS = np.linspace(380.0, 780.0, 401)
#: XYZ -> linear Rec.709 (IEC 61966-2-1).
XYZ_TO_REC709 = np.array([[3.2404542, -1.5371385, -0.4985314], [-0.9692660, 1.8760108, 0.0415560],
                          [0.0556434, -0.2040259, 1.0572252]])


def _lobe(wavelength: np.ndarray, mean: float, below: float, above: float) -> np.ndarray:
    spread = np.where(wavelength < mean, below, above)
    return np.asarray(np.exp(-0.5 * ((wavelength - mean) / spread) ** 2))


def colour_matching(wavelength: np.ndarray) -> np.ndarray:
    """CIE 1931 x̄, ȳ, z̄ (..., 3) at `wavelength` nm: Wyman, Sloan & Shirley 2013's multi-lobe Gaussian fit."""
    w = wavelength
    x = 1.056 * _lobe(w, 599.8, 37.9, 31.0) + 0.362 * _lobe(w, 442.0, 16.0, 26.7) - 0.065 * _lobe(w, 501.1, 20.4, 26.2)
    y = 0.821 * _lobe(w, 568.8, 46.9, 40.5) + 0.286 * _lobe(w, 530.9, 16.3, 31.1)
    z = 1.217 * _lobe(w, 437.0, 11.8, 36.0) + 0.681 * _lobe(w, 459.0, 26.0, 13.8)
    return np.stack([x, y, z], axis=-1)


def _amplitudes(cos_i: np.ndarray, cos_t: np.ndarray, n_i: float, n_t: float) -> tuple[np.ndarray, np.ndarray]:
    """Fresnel amplitude reflection coefficients (r_s, r_p) from medium n_i into n_t."""
    r_s = (n_i * cos_i - n_t * cos_t) / (n_i * cos_i + n_t * cos_t)
    r_p = (n_t * cos_i - n_i * cos_t) / (n_t * cos_i + n_i * cos_t)
    return r_s, r_p


def airy_reflectance(cosine: np.ndarray, thickness_nm: float, film_ior: float, base_ior: float,
                     wavelength: np.ndarray = WAVELENGTHS) -> np.ndarray:
    """Spectral reflectance (len(cosine), len(wavelength)) of a film in air over a dielectric base, unpolarised.

    No film (thickness 0) is the base's own Fresnel. Below the critical angle at the base (a base less dense than
    the film) the film-base amplitude becomes complex, which the complex square root carries.
    """
    cos1 = np.clip(np.asarray(cosine, dtype=np.float64), 1e-6, 1.0)[:, None].astype(np.complex128)
    sin2 = 1.0 - cos1 * cos1
    cos2 = np.sqrt(1.0 - sin2 / film_ior**2)
    cos3 = np.sqrt(1.0 - sin2 / base_ior**2)
    r12 = _amplitudes(cos1, cos2, 1.0, film_ior)
    r23 = _amplitudes(cos2, cos3, film_ior, base_ior)
    phase = np.exp(2j * (2.0 * math.pi / wavelength[None, :]) * film_ior * thickness_nm * cos2)
    total = np.zeros((cos1.shape[0], wavelength.shape[0]))
    for a, b in zip(r12, r23, strict=True):
        r = (a + b * phase) / (1.0 + a * b * phase)
        total += 0.5 * np.abs(r) ** 2
    return total


def spectral_to_rgb(reflectance: np.ndarray, wavelength: np.ndarray = WAVELENGTHS) -> np.ndarray:
    """Linear Rec.709 (..., 3) of spectral reflectances (..., len(wavelength)) under an equal-energy light, white
    balanced per channel (a flat reflectance r gives (r, r, r))."""
    cmf = colour_matching(wavelength)
    rgb = (reflectance @ cmf) @ XYZ_TO_REC709.T
    white = cmf.sum(axis=0) @ XYZ_TO_REC709.T
    return np.asarray(rgb / white)


@functools.cache
def film_table(thickness_nm: float, film_ior: float, base_ior: float, size: int = 1025) -> tuple[np.ndarray, np.ndarray]:
    """(cosines, RGB reflectance (size, 3)) of the film, to interpolate per sample; read-only, worked out once per
    film (every estimate of a case reads the same table)."""
    cosines = np.linspace(0.0, 1.0, size)
    reflectance = spectral_to_rgb(airy_reflectance(cosines, thickness_nm, film_ior, base_ior))
    cosines.flags.writeable = reflectance.flags.writeable = False
    return cosines, reflectance


def _basis(normal: np.ndarray, view: np.ndarray) -> np.ndarray:
    """Rows x, y, z of an orthonormal frame with z = normal and x along the view's tangential part."""
    hint = view - normal * (view @ normal)
    if np.linalg.norm(hint) < 1e-6:
        hint = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        hint = hint - normal * (hint @ normal)
    x = hint / np.linalg.norm(hint)
    return np.stack([x, np.cross(normal, x), normal])


def _smith_lambda(cosine: np.ndarray, alpha: float) -> np.ndarray:
    cosine = np.clip(cosine, 1e-6, 1.0)
    tan2 = (1.0 - cosine * cosine) / (cosine * cosine)
    return np.asarray((-1.0 + np.sqrt(1.0 + alpha * alpha * tan2)) / 2.0)


def sample_visible_normals(view_local: np.ndarray, alpha: float, rng: np.random.Generator, count: int) -> np.ndarray:
    """Heitz (2018): GGX microfacet normals (count, 3) distributed as the normals `view_local` sees."""
    stretched = np.array([alpha * view_local[0], alpha * view_local[1], view_local[2]])
    stretched /= np.linalg.norm(stretched)
    length2 = stretched[0] ** 2 + stretched[1] ** 2
    t1 = np.array([-stretched[1], stretched[0], 0.0]) / math.sqrt(length2) if length2 > 0.0 else np.array([1.0, 0.0, 0.0])
    t2 = np.cross(stretched, t1)
    u1, u2 = rng.random(count), rng.random(count)
    r, phi = np.sqrt(u1), 2.0 * math.pi * u2
    p1, p2 = r * np.cos(phi), r * np.sin(phi)
    s = 0.5 * (1.0 + stretched[2])
    p2 = (1.0 - s) * np.sqrt(np.maximum(1.0 - p1 * p1, 0.0)) + s * p2
    normal = (p1[:, None] * t1 + p2[:, None] * t2
              + np.sqrt(np.maximum(1.0 - p1 * p1 - p2 * p2, 0.0))[:, None] * stretched)
    unstretched = np.stack([alpha * normal[:, 0], alpha * normal[:, 1], np.maximum(normal[:, 2], 1e-6)], axis=1)
    return np.asarray(unstretched / np.linalg.norm(unstretched, axis=1, keepdims=True))


def _number(properties: Mapping[str, object], name: str, default: float | None = None) -> float:
    value = properties.get(name, default)
    assert isinstance(value, int | float), (name, value)
    return float(value)


def _film(properties: Mapping[str, object]) -> tuple[float, Callable[[np.ndarray], np.ndarray]]:
    """(GGX alpha, the RGB reflectance (..., 3) at cosines (...)) of the case's film-coated specular: the film's table
    blended with the bare base's Fresnel by `thin_film_weight`."""
    roughness = _number(properties, "specular_roughness")
    weight, base_ior = _number(properties, "thin_film_weight"), _number(properties, "specular_ior")
    cosines, table = film_table(1000.0 * _number(properties, "thin_film_thickness"), _number(properties, "thin_film_ior"),
                                base_ior)
    _, bare = film_table(0.0, 1.0, base_ior)
    blended = (1.0 - weight) * bare + weight * table

    def reflectance(cosine: np.ndarray) -> np.ndarray:
        return np.stack([np.interp(cosine, cosines, blended[:, c]) for c in range(3)], axis=-1)

    return max(roughness * roughness, 1e-4), reflectance


def estimate(properties: Mapping[str, object], radiance: np.ndarray, normal: np.ndarray, view: np.ndarray,
             rng: np.random.Generator, samples: int = SAMPLES, film_at_view: bool = False) -> np.ndarray:
    """Linear radiance towards `view` of the film-coated dielectric over its diffuse base at a point with `normal`,
    lit by the equirect `radiance` alone. `film_at_view` takes the film's reflectance at N·V for every microfacet
    (the split sum's assumption) instead of at its V·H, to tell the approximations apart."""
    alpha, film = _film(properties)
    frame = _basis(normal, view)
    view_local = frame @ view
    halfway = sample_visible_normals(view_local, alpha, rng, samples)
    v_dot_h = np.clip(halfway @ view_local, 0.0, 1.0)
    light_local = 2.0 * v_dot_h[:, None] * halfway - view_local
    n_dot_l = light_local[:, 2]
    # G2 / G1(V), height-correlated Smith.
    lambda_v = _smith_lambda(np.full(samples, view_local[2]), alpha)
    masking = np.where(n_dot_l > 0.0, (1.0 + lambda_v) / (1.0 + lambda_v + _smith_lambda(n_dot_l, alpha)), 0.0)
    fresnel_cosine = np.full(samples, view_local[2]) if film_at_view else v_dot_h
    throughput = film(fresnel_cosine) * masking[:, None]
    seen = ibl.background_radiance(radiance, light_local @ frame).astype(np.float64)
    specular = (seen * throughput).mean(axis=0)
    albedo = throughput.mean(axis=0)
    base = _number(properties, "base_weight", 1.0) * np.asarray(properties["base_color"], dtype=np.float64)[:3]
    if not base.any():
        return np.asarray(specular)
    u1, u2 = rng.random(samples), rng.random(samples)
    local = np.stack([np.sqrt(u1) * np.cos(2.0 * math.pi * u2), np.sqrt(u1) * np.sin(2.0 * math.pi * u2), np.sqrt(1.0 - u1)], axis=1)
    diffuse = ibl.background_radiance(radiance, local @ frame).astype(np.float64).mean(axis=0) * base
    return np.asarray(specular + (1.0 - albedo) * diffuse)


def key_light(properties: Mapping[str, object], normal: np.ndarray, view: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Radiance (..., 3) the film-coated specular reflects towards `view` (..., 3) per unit radiance of a directional
    light along `light` (3): GGX D, height-correlated Smith G2 and the film's reflectance at V·H, times N·L (the
    base, which the light also reaches, is left out: use the cases without one)."""
    alpha, film = _film(properties)
    halfway = view + light
    halfway /= np.linalg.norm(halfway, axis=-1, keepdims=True)
    n_dot_v, n_dot_l = np.sum(normal * view, axis=-1), normal @ light
    n_dot_h, v_dot_h = np.sum(normal * halfway, axis=-1), np.clip(np.sum(view * halfway, axis=-1), 0.0, 1.0)
    distribution = alpha * alpha / (math.pi * (n_dot_h * n_dot_h * (alpha * alpha - 1.0) + 1.0) ** 2)
    masking = 1.0 / (1.0 + _smith_lambda(n_dot_v, alpha) + _smith_lambda(n_dot_l, alpha))
    lit = (n_dot_l > 0.0) & (n_dot_v > 0.0) & (n_dot_h > 0.0)
    value = distribution * masking / (4.0 * np.maximum(n_dot_v, 1e-6))
    return np.asarray(np.where(lit, value, 0.0)[..., None] * film(v_dot_h))


def _document(properties: Mapping[str, object]) -> str:
    """An open_pbr_surface material of `properties` (MaterialX 1.39)."""
    inputs = []
    for name, value in properties.items():
        if isinstance(value, tuple):
            inputs.append(f'<input name="{name}" type="color3" value="{value[0]}, {value[1]}, {value[2]}" />')
        else:
            inputs.append(f'<input name="{name}" type="float" value="{value}" />')
    return ('<?xml version="1.0"?>\n<materialx version="1.39" colorspace="lin_rec709">\n'
            '  <surfacematerial name="Film" type="material">\n'
            '    <input name="surfaceshader" type="surfaceshader" nodename="film_surface" />\n  </surfacematerial>\n'
            '  <open_pbr_surface name="film_surface" type="surfaceshader">\n    ' + "\n    ".join(inputs)
            + "\n  </open_pbr_surface>\n</materialx>\n")


def main() -> int:
    """Prints, per case, the mean 8-bit difference from the estimate of MaterialX's render of the case as an
    open_pbr_surface and of the preview's (its import, `mtlx_reference.render_editor`), on the same pixels."""
    import argparse
    import tempfile
    from pathlib import Path

    from app.preview.environment import load_named_environment

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--samples", type=int, default=256, help="MaterialX's samples per pixel")
    parser.add_argument("--pixels", type=int, default=48)
    parser.add_argument("cases", nargs="*", default=sorted(CASES))
    arguments = parser.parse_args()
    environment = load_named_environment(ENVIRONMENT)
    pixels, normals, views = mtlx_reference.sphere_points(arguments.size)
    chosen = np.random.default_rng(3).choice(len(pixels), arguments.pixels, replace=False)
    print(f"size {arguments.size}, MaterialX {arguments.samples} samples, {arguments.pixels} pixels, "
          f"environment {ENVIRONMENT}, environment light only")
    for case in arguments.cases:
        with tempfile.TemporaryDirectory() as scratch:
            document = Path(scratch) / "film.mtlx"
            document.write_text(_document(CASES[case]))
            materialx = mtlx_reference.srgb_8bit(mtlx_reference.render_materialx(document, arguments.size, arguments.samples))
            preview = np.round(mtlx_reference.render_editor(document, arguments.size))
        rng = np.random.default_rng(7)
        errors: dict[str, list[float]] = {"MaterialX": [], "preview": [], "rim MaterialX": [], "rim preview": []}
        for (row, column), normal, view in zip(pixels[chosen], normals[chosen], views[chosen], strict=True):
            expected = mtlx_reference.srgb_8bit(estimate(CASES[case], environment.radiance, normal, view, rng))
            rim = float(normal @ view) < 0.4
            for label, image in (("MaterialX", materialx), ("preview", preview)):
                error = float(np.abs(image[row, column] - expected).mean())
                errors[label].append(error)
                if rim:
                    errors[f"rim {label}"].append(error)
        figures = ", ".join(f"{label} {np.mean(values):.2f}" for label, values in errors.items() if values)
        print(f"{case:20s} levels from the estimate: {figures} (rim: N·V < 0.4, {len(errors['rim preview'])} pixels)",
              flush=True)
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
