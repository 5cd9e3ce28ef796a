#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

struct vpl_R0 {
    vec4 vpl_m0;
    vec4 vpl_m1;
};

uniform vec4 vpl_u0;
layout(std140, binding = 0) uniform vpl_Block1 {
    vec4 vpl_m0;
    vec4 vpl_m1;
} vpl_u1;
uniform vec4 vpl_u2;

layout(location = 0) in vec3 vpl_attribute0;
layout(location = 0) out vec4 vpl_varying0;

void vpl_fv0();
vec4 vpl_fv1(vec4 vpl_p0);

void vpl_fv0() {
    vec3 vpl_r0;
    vec4 vpl_r1;
    vpl_r0 = vpl_attribute0;
    vpl_r1 = vec4(vpl_r0, 1.0);
    gl_Position = vpl_r1;
    vpl_r1 = vpl_fv1(vpl_r1);
    vpl_varying0 = vpl_r1;
    return;
}

vec4 vpl_fv1(vec4 vpl_p0) {
    vec4 vpl_r0;
    vpl_r0 = vpl_p0;
    return vpl_r0;
}

void main() {
    vpl_fv0();
}
