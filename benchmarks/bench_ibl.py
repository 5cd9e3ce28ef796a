"""Image-based lighting: prefilter time (first load and cached), the choice of method, and UI responsiveness.

1. The product path (`PrefilterJob`: read the file, hash, cache lookup,
   prefilter, store) on a 1024x512 HDR (the bundled outdoor sky with its
   sun): first load with an empty cache, then cached. Mean of N runs each.

2. The choice, measured side by side on the same 1024x512 image, each
   compared with a brute-force sum over every texel (the reference of
   tests/app/preview/test_ibl_prefilter.py) at 12 texels per level:
   - numpy, exact quadrature along rows with FFTs (the product:
     `ibl_prefilter.prefilter_specular`);
   - numpy, filtered importance sampling (Karis 2013 estimator, Křivánek &
     Colbert 2008 level of detail; Hammersley points, 64..2048 per texel);
   - the GPU: the same filtered importance sampling as a GLSL 4.20 fragment
     shader on the preview's OpenGL context (here Mesa llvmpipe, which runs
     on the same two CPU cores), including upload, mipmap generation and
     read-back.
   Prints seconds and the mean and largest relative error (luminance).

3. UI responsiveness: a 16 ms QTimer on the main thread, first alone
   (baseline), then while a `PrefilterJob` prefilters a 1024x512 image in its
   worker thread. Prints the longest gap between two ticks and the 99th
   percentile; a gap much above 16 ms is a frame the UI could not draw.

Run under X (Mesa has no GL on Qt's offscreen platform):
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" \\
        .venv/bin/python benchmarks/bench_ibl.py [--runs N] [--skip-gpu]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from ibl_reference import brute_force_prefiltered

from app.preview import ibl, ibl_prefilter
from app.preview.environment import load_named_environment, resolve_environment
from app.preview.ibl_assets import IblCache, PrefilterJob

LUMINANCE = np.array([0.2126, 0.7152, 0.0722])
FIS_SAMPLES = (0, 64, 256, 512, 1024, 2048)
FIS_LOD_BIAS = 0.5


# --- references and the alternatives ---------------------------------------------------------------


def chain_errors(image: np.ndarray, chain: list[np.ndarray]) -> tuple[float, float]:
    rng = np.random.default_rng(1)
    errors = []
    for level in range(1, ibl.SPECULAR_LEVELS):
        data = chain[level]
        directions = ibl.texel_directions(*data.shape[:2])
        roughness = float(ibl.level_roughnesses()[level])
        for _ in range(12):
            row, column = rng.integers(data.shape[0]), rng.integers(data.shape[1])
            expected = brute_force_prefiltered(image, directions[row, column], roughness) @ LUMINANCE
            errors.append(abs(float(np.asarray(data[row, column], dtype=np.float64) @ LUMINANCE) - expected) / expected)
    return float(np.mean(errors)), float(np.max(errors))


def _fis_sample_setup(pyramid_width: int, pyramid_height: int, levels: int, roughness: float, count: int):
    alpha = max(roughness * roughness, 1e-4)
    half, distribution = ibl_prefilter.ggx_half_vectors(alpha, count)
    light = 2.0 * half[:, 2:3] * half - np.array([0.0, 0.0, 1.0])
    keep = light[:, 2] > 0.0
    light, distribution = light[keep], distribution[keep]
    sample_solid_angle = 1.0 / (count * distribution / 4.0)
    texel_solid_angle = (2.0 * np.pi / pyramid_width) * (np.pi / pyramid_height)
    lod = np.clip(0.5 * np.log2(sample_solid_angle / texel_solid_angle) + FIS_LOD_BIAS, 0.0, levels - 1)
    return light, lod


def _read_rows(level_image: np.ndarray, t: np.ndarray, u_offsets: np.ndarray, u_texels: np.ndarray) -> np.ndarray:
    """Bilinear reads for a block of rows: row r at (u_texels + u_offsets[r], t[r]) (REPEAT in u, CLAMP in t)."""
    height, width = level_image.shape[:2]
    flat = level_image.reshape(-1, 3)
    y = t * height - 0.5
    y0 = np.floor(y)
    fy = (y - y0)[:, None, None]
    y0 = y0.astype(np.int64)
    lower = (np.clip(y0, 0, height - 1) * width)[:, None]
    upper = (np.clip(y0 + 1, 0, height - 1) * width)[:, None]
    x = (u_texels[None, :] + u_offsets[:, None]) * width - 0.5
    x0 = np.floor(x)
    fx = (x - x0)[..., None]
    x0 = np.mod(x0.astype(np.int64), width)
    x1 = np.mod(x0 + 1, width)
    bottom = flat[lower + x0] * (1 - fx) + flat[lower + x1] * fx
    top = flat[upper + x0] * (1 - fx) + flat[upper + x1] * fx
    return bottom * (1 - fy) + top * fy


def numpy_filtered_importance_sampling(base: np.ndarray) -> list[np.ndarray]:
    """The alternative measured against the product: Karis's estimator with filtered importance sampling, in numpy.

    Vectorised like the product: the sample pattern of every texel of a row
    is the same up to a shift in u, so each sample is one gather per row block.
    """
    pyramid = [level.astype(np.float32) for level in ibl_prefilter.mip_pyramid(base)]
    height, width = base.shape[:2]
    chain = [base]
    for level in range(1, ibl.SPECULAR_LEVELS):
        out_height, out_width = height >> level, width >> level
        light, lod = _fis_sample_setup(width, height, len(pyramid), float(ibl.level_roughnesses()[level]), FIS_SAMPLES[level])
        elevation = ((np.arange(out_height) + 0.5) / out_height - 0.5) * np.pi
        normal = np.stack([np.zeros(out_height), np.sin(elevation), -np.cos(elevation)], axis=-1)
        bitangent = np.cross(normal, np.array([1.0, 0.0, 0.0]))
        world = light[None, :, 0:1] * np.array([1.0, 0.0, 0.0]) + light[None, :, 1:2] * bitangent[:, None] + light[None, :, 2:3] * normal[:, None]
        sample_t = 0.5 + np.arcsin(np.clip(world[..., 1], -1.0, 1.0)) / np.pi
        sample_u = np.arctan2(world[..., 0], -world[..., 2]) / (2.0 * np.pi)
        u_texels = (np.arange(out_width) + 0.5) / out_width
        total = np.zeros((out_height, out_width, 3), dtype=np.float32)
        for sample in range(len(light)):
            lower = int(np.floor(lod[sample]))
            fraction = lod[sample] - lower
            value = _read_rows(pyramid[lower], sample_t[:, sample], sample_u[:, sample], u_texels)
            if fraction > 0.0:
                value = value + (_read_rows(pyramid[lower + 1], sample_t[:, sample], sample_u[:, sample], u_texels) - value) * fraction
            total += value * light[sample, 2]
        chain.append(total.astype(np.float64) / light[:, 2].sum())
    return chain


GPU_VERTEX = """#version 420 core
const vec2 corners[4] = vec2[4](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0), vec2(1.0, 1.0));
void main() { gl_Position = vec4(corners[gl_VertexID], 0.0, 1.0); }
"""
GPU_FRAGMENT = """#version 420 core
uniform sampler2D source;
uniform float roughness;
uniform int sample_count;
uniform vec2 base_size;
uniform vec2 output_size;
uniform float lod_bias;
uniform float max_lod;
layout(location = 0) out vec4 color;
const float PI = 3.14159265358979;
float radical_inverse(uint bits) {
    bits = (bits << 16u) | (bits >> 16u);
    bits = ((bits & 0x55555555u) << 1u) | ((bits & 0xAAAAAAAAu) >> 1u);
    bits = ((bits & 0x33333333u) << 2u) | ((bits & 0xCCCCCCCCu) >> 2u);
    bits = ((bits & 0x0F0F0F0Fu) << 4u) | ((bits & 0xF0F0F0F0u) >> 4u);
    bits = ((bits & 0x00FF00FFu) << 8u) | ((bits & 0xFF00FF00u) >> 8u);
    return float(bits) * 2.3283064365386963e-10;
}
vec3 direction(vec2 uv) {
    float azimuth = (uv.x - 0.5) * 2.0 * PI;
    float elevation = (uv.y - 0.5) * PI;
    return vec3(cos(elevation) * sin(azimuth), sin(elevation), -cos(elevation) * cos(azimuth));
}
vec2 coordinates(vec3 d) {
    return vec2(0.5 + atan(d.x, -d.z) / (2.0 * PI), 0.5 + asin(clamp(d.y, -1.0, 1.0)) / PI);
}
void main() {
    vec2 uv = gl_FragCoord.xy / output_size;
    vec3 n = direction(uv);
    float azimuth = (uv.x - 0.5) * 2.0 * PI - PI;
    vec3 t = vec3(cos(azimuth), 0.0, sin(azimuth));
    vec3 b = cross(n, t);
    float alpha = max(roughness * roughness, 1e-4);
    float a2 = alpha * alpha;
    float texel = (2.0 * PI / base_size.x) * (PI / base_size.y);
    vec3 total = vec3(0.0);
    float weight = 0.0;
    for (int i = 0; i < sample_count; ++i) {
        float first = float(i) / float(sample_count);
        float second = radical_inverse(uint(i));
        float cos_h = sqrt((1.0 - first) / (1.0 + (a2 - 1.0) * first));
        float sin_h = sqrt(max(1.0 - cos_h * cos_h, 0.0));
        float phi = 2.0 * PI * second;
        vec3 h = t * (sin_h * cos(phi)) + b * (sin_h * sin(phi)) + n * cos_h;
        vec3 l = 2.0 * dot(n, h) * h - n;
        float n_dot_l = dot(n, l);
        if (n_dot_l <= 0.0) continue;
        float d = cos_h * cos_h * (a2 - 1.0) + 1.0;
        float pdf = a2 / (PI * d * d) / 4.0;
        float lod = clamp(0.5 * log2(1.0 / (float(sample_count) * pdf) / texel) + lod_bias, 0.0, max_lod);
        total += textureLod(source, coordinates(l), lod).rgb * n_dot_l;
        weight += n_dot_l;
    }
    color = vec4(total / weight, 1.0);
}
"""


def gpu_filtered_importance_sampling(base: np.ndarray) -> tuple[list[np.ndarray], float]:
    """The same estimator on the GPU; returns the chain and the seconds (upload to read-back), context excluded."""
    from gl_programs import compile_shader
    from OpenGL import GL

    height, width = base.shape[:2]
    started = time.perf_counter()
    program = GL.glCreateProgram()
    for code, kind in ((GPU_VERTEX, GL.GL_VERTEX_SHADER), (GPU_FRAGMENT, GL.GL_FRAGMENT_SHADER)):
        GL.glAttachShader(program, compile_shader(kind, code))
    GL.glLinkProgram(program)
    source = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, source)
    rgba = np.concatenate([base, np.ones((height, width, 1))], axis=2).astype(np.float32)
    GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, width, height, 0, GL.GL_RGBA, GL.GL_FLOAT, np.ascontiguousarray(rgba))
    GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_REPEAT)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)
    framebuffer = int(GL.glGenFramebuffers(1))
    vertex_array = int(GL.glGenVertexArrays(1))
    GL.glUseProgram(program)
    GL.glUniform1i(GL.glGetUniformLocation(program, "source"), 0)
    GL.glUniform2f(GL.glGetUniformLocation(program, "base_size"), width, height)
    GL.glUniform1f(GL.glGetUniformLocation(program, "lod_bias"), FIS_LOD_BIAS)
    GL.glUniform1f(GL.glGetUniformLocation(program, "max_lod"), float(int(np.log2(width))))
    GL.glBindVertexArray(vertex_array)
    chain = [base]
    for level in range(1, ibl.SPECULAR_LEVELS):
        out_height, out_width = height >> level, width >> level
        target = int(GL.glGenRenderbuffers(1))
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, target)
        GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_RGBA32F, out_width, out_height)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, framebuffer)
        GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_RENDERBUFFER, target)
        GL.glViewport(0, 0, out_width, out_height)
        GL.glUniform1f(GL.glGetUniformLocation(program, "roughness"), float(ibl.level_roughnesses()[level]))
        GL.glUniform1i(GL.glGetUniformLocation(program, "sample_count"), FIS_SAMPLES[level])
        GL.glUniform2f(GL.glGetUniformLocation(program, "output_size"), out_width, out_height)
        GL.glDrawArrays(GL.GL_TRIANGLE_STRIP, 0, 4)
        pixels = GL.glReadPixels(0, 0, out_width, out_height, GL.GL_RGBA, GL.GL_FLOAT)
        chain.append(np.frombuffer(pixels, dtype=np.float32).reshape(out_height, out_width, 4)[..., :3].astype(np.float64))
        GL.glDeleteRenderbuffers(1, [target])
    GL.glFinish()
    seconds = time.perf_counter() - started
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
    GL.glDeleteFramebuffers(1, [framebuffer])
    GL.glDeleteTextures(1, [source])
    GL.glDeleteVertexArrays(1, [vertex_array])
    GL.glDeleteProgram(program)
    return chain, seconds


# --- sections -------------------------------------------------------------------------------------


def product_path(runs: int) -> None:
    print("1. PrefilterJob on a 1024x512 HDR (bundled outdoor, a 30000-radiance sun)")
    path = resolve_environment("outdoor")
    first, cached = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as directory:
            cache = IblCache(Path(directory))
            started = time.perf_counter()
            prepared = PrefilterJob(path, cache).run()
            first.append(time.perf_counter() - started)
            assert not prepared.from_cache
            started = time.perf_counter()
            prepared = PrefilterJob(path, cache).run()
            cached.append(time.perf_counter() - started)
            assert prepared.from_cache
            size = cache.entry_path(prepared.environment.content_hash).stat().st_size
    print(f"   first load (empty cache): mean {statistics.mean(first):.3f} s, min {min(first):.3f} s over {runs}")
    print(f"   cached:                   mean {statistics.mean(cached) * 1000:.1f} ms, min {min(cached) * 1000:.1f} ms")
    print(f"   cache entry: {size / 1e6:.2f} MB")


def method_choice(skip_gpu: bool, step: int = 1) -> None:
    image = load_named_environment("outdoor").radiance.astype(np.float64)[::step, ::step]
    print(f"2. Prefiltering methods on the same {image.shape[1]}x{image.shape[0]} image, vs a brute-force sum over all texels")
    started = time.perf_counter()
    chain = ibl_prefilter.prefilter_specular(image)
    seconds = time.perf_counter() - started
    mean, worst = chain_errors(image, chain)
    print(f"   numpy exact quadrature (product): {seconds:6.2f} s   error mean {mean:.2%}  max {worst:.2%}")
    started = time.perf_counter()
    chain = numpy_filtered_importance_sampling(image)
    seconds = time.perf_counter() - started
    mean, worst = chain_errors(image, chain)
    print(f"   numpy filtered importance sampl.: {seconds:6.2f} s   error mean {mean:.2%}  max {worst:.2%}")
    if skip_gpu:
        return
    from PySide6.QtGui import QGuiApplication

    from app.preview.context import OffscreenContext

    QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    context = OffscreenContext()
    from OpenGL import GL

    renderer = GL.glGetString(GL.GL_RENDERER).decode()
    chain, seconds = gpu_filtered_importance_sampling(image)
    mean, worst = chain_errors(image, chain)
    print(f"   GPU filtered importance sampling: {seconds:6.2f} s   error mean {mean:.2%}  max {worst:.2%}   ({renderer})")
    context.done()


def responsiveness(step: int = 1) -> None:
    from PySide6.QtCore import QCoreApplication, QTimer

    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    print("3. UI responsiveness: gaps between ticks of a 16 ms QTimer on the main thread")

    def gaps_while(job: PrefilterJob | None, seconds: float) -> list[float]:
        ticks: list[float] = []
        timer = QTimer()
        timer.setInterval(16)
        timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
        timer.start()
        started = time.perf_counter()
        if job is not None:
            job.start()
        while (job is not None and not job.future.done()) or (job is None and time.perf_counter() - started < seconds):
            app.processEvents()
            time.sleep(0.001)
        timer.stop()
        if job is not None:
            job.result()
        return list(np.diff(ticks) * 1000.0)

    baseline = gaps_while(None, 2.0 / step)
    print(f"   idle:             longest gap {max(baseline):6.1f} ms, 99th percentile {np.percentile(baseline, 99):6.1f} ms")
    image = np.random.default_rng(0).uniform(0.0, 4.0, size=(max(128, 512 // step), max(256, 1024 // step), 3))
    from app.preview.environment import environment_from_array

    with tempfile.TemporaryDirectory() as directory:
        job = PrefilterJob(environment_from_array("random", image), IblCache(Path(directory)))
        started = time.perf_counter()
        busy = gaps_while(job, 0.0)
        seconds = time.perf_counter() - started
    print(
        f"   while prefiltering ({seconds:.2f} s): longest gap {max(busy):6.1f} ms, "
        f"99th percentile {np.percentile(busy, 99):6.1f} ms, {len(busy)} ticks"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-gpu", action="store_true")
    parser.add_argument("--step", type=int, default=1,
                        help="sections 2 and 3 on every STEP-th texel of the 1024x512 images (the smallest setting: 16)")
    arguments = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)")
    product_path(arguments.runs)
    method_choice(arguments.skip_gpu, arguments.step)
    responsiveness(arguments.step)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
