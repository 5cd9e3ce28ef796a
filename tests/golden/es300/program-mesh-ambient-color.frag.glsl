#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

uniform mat4 vpl_u0;
uniform vec4 vpl_u1;
uniform vec4 vpl_u2;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    vec4 vpl_r0;
    vec4 vpl_r1;
    vpl_r0 = vpl_u2;
    vpl_r1 = vpl_u1;
    vpl_r0 = vpl_r0 * vpl_r1;
    vpl_output0 = vpl_r0;
    return;
}

void main() {
    vpl_ff0();
}
