#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

struct vpl_R0 {
    vec4 vpl_m0;
    vec4 vpl_m1;
};

uniform vec4 vpl_u0;
layout(std140) uniform vpl_Block1 {
    vec4 vpl_m0;
    vec4 vpl_m1;
} vpl_u1;
uniform vec4 vpl_u2;

in vec4 vpl_varying0;
layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();
vec4 vpl_ff1(vpl_R0 vpl_p0);

void vpl_ff0() {
    vec4 vpl_r0;
    vpl_R0 vpl_r1;
    vpl_r0 = vec4(0.0, 1.0, 0.0, 1.0);
    vpl_r1 = vpl_R0(vpl_r0, vpl_r0);
    vpl_r0 = vpl_ff1(vpl_r1);
    vpl_output0 = vpl_r0;
    return;
}

vec4 vpl_ff1(vpl_R0 vpl_p0) {
    vec4 vpl_r0;
    vpl_r0 = vpl_p0.vpl_m1;
    return vpl_r0;
}

void main() {
    vpl_ff0();
}
