"""The fill and rim lights: directional lights besides the key light, drawn as extra passes of the material.

The material's code has one directional light (the scene record's). Its
radiance is linear in that light, so a pass with the light set to the fill
(or rim) light and the environment's intensity at 0 holds emission + that
light's direct term; a pass with neither light nor environment holds the
emission alone. The frame is the key light's frame (with its shadows and
occlusion, `shadows.StagePasses`) plus, per extra light, its pass minus the
emission. Extra lights cast no shadows. The CPU renderer draws the key light
only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from OpenGL import GL

from app.preview.stage_geometry import MAX_EXTRA_LIGHTS

if TYPE_CHECKING:
    from app.preview.gl_objects import Framebuffer
    from app.preview.renderer import Renderer
    from app.preview.shadows import StagePasses


_ADD_FRAGMENT = """
uniform sampler2D u_base;      // the frame with the key light and the environment
uniform sampler2D u_emission;  // the material with no light and no environment
uniform sampler2D u_light0;    // the material lit by extra light 0 alone (no environment)
uniform sampler2D u_light1;
uniform int u_count;
layout(location = 0) out vec4 out_radiance;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 base = texelFetch(u_base, p, 0);
    vec3 emission = texelFetch(u_emission, p, 0).rgb;
    vec3 added = vec3(0.0);
    if (u_count > 0) added += texelFetch(u_light0, p, 0).rgb - emission;
    if (u_count > 1) added += texelFetch(u_light1, p, 0).rgb - emission;
    out_radiance = vec4(base.rgb + added, base.a);
}
"""


def add_extra_lights(passes: StagePasses, renderer: Renderer, width: int, height: int, location: int,
                     cleared: Sequence[float], base: Framebuffer) -> Framebuffer:
    """`base` (an RGBA32F radiance target) plus the direct light of each of `renderer.extra_lights`."""
    lights = renderer.extra_lights[:MAX_EXTRA_LIGHTS]
    if not lights:
        return base
    emission = passes._material_pass(renderer, "emission", width, height, location, False, cleared, 0.0, 0.0)
    lit = []
    saved = (renderer.light_direction, renderer.light_color, renderer.light_intensity, renderer.environment_intensity)
    try:
        for index, light in enumerate(lights):
            target = passes._target(f"extra{index}", width, height, location, GL.GL_RGBA32F)
            target.bind()
            renderer.light_direction, renderer.light_color = light.direction, light.color
            renderer.light_intensity, renderer.environment_intensity = light.intensity, 0.0
            renderer._draw(width, height, cleared, environment_background=False)
            lit.append(target)
    finally:
        (renderer.light_direction, renderer.light_color, renderer.light_intensity,
         renderer.environment_intensity) = saved
    result = passes._target("lights_added", width, height, 0, GL.GL_RGBA32F)
    result.bind()
    textures = [("u_base", base.texture), ("u_emission", emission.texture)]
    textures += [(f"u_light{index}", lit[min(index, len(lit) - 1)].texture) for index in range(MAX_EXTRA_LIGHTS)]
    passes._screen_pass(renderer, "add_lights", _ADD_FRAGMENT, width, height, tuple(textures),
                        integers=(("u_count", len(lit)),))
    return result
