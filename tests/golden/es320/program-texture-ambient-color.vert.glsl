#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

uniform mat4 vpl_u0;
uniform vec4 vpl_u1;
uniform sampler2D vpl_u2;

layout(location = 0) in vec3 vpl_attribute0;
layout(location = 2) in vec2 vpl_attribute2;
layout(location = 0) out vec2 vpl_varying0;

void vpl_fv0();

void vpl_fv0() {
    vec3 vpl_r0;
    vec4 vpl_r1;
    mat4 vpl_r2;
    vec2 vpl_r3;
    vpl_r0 = vpl_attribute0;
    vpl_r1 = vec4(vpl_r0, 1.0);
    vpl_r2 = vpl_u0;
    vpl_r1 = vpl_r2 * vpl_r1;
    gl_Position = vpl_r1;
    vpl_r3 = vpl_attribute2;
    vpl_varying0 = vpl_r3;
    return;
}

void main() {
    vpl_fv0();
}
