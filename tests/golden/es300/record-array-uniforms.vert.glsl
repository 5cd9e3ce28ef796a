#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

struct vpl_R0 {
    vec3 vpl_m0;
    float vpl_m1;
};
struct vpl_R1 {
    vec4 vpl_m0;
    float vpl_m1[3];
    vpl_R0 vpl_m2;
    mat4 vpl_m3;
    ivec2 vpl_m4;
};
struct vpl_R2 {
    vec4 vpl_m0;
};

layout(std140) uniform vpl_Block0 {
    vec4 vpl_m0;
    float vpl_m1[3];
    vpl_R0 vpl_m2;
    mat4 vpl_m3;
    ivec2 vpl_m4;
} vpl_u0;
uniform vec4 vpl_u1[4];
uniform vpl_R0 vpl_u2[2];
uniform float vpl_u3;
layout(std140) uniform vpl_Block4 {
    vec4 vpl_m0;
} vpl_u4;

layout(location = 0) in vec3 vpl_attribute0;

void vpl_fv0();

void vpl_fv0() {
    vec3 vpl_r0;
    vec4 vpl_r1;
    mat4 vpl_r2;
    vpl_r0 = vpl_attribute0;
    vpl_r1 = vec4(vpl_r0, 1.0);
    vpl_r2 = vpl_u0.vpl_m3;
    vpl_r1 = vpl_r2 * vpl_r1;
    gl_Position = vpl_r1;
    return;
}

void main() {
    vpl_fv0();
}
