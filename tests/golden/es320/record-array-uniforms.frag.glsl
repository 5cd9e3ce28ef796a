#version 320 es
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

layout(std140, binding = 0) uniform vpl_Block0 {
    vec4 vpl_m0;
    float vpl_m1[3];
    vpl_R0 vpl_m2;
    mat4 vpl_m3;
    ivec2 vpl_m4;
} vpl_u0;
uniform vec4 vpl_u1[4];
uniform vpl_R0 vpl_u2[2];
uniform float vpl_u3;
layout(std140, binding = 1) uniform vpl_Block4 {
    vec4 vpl_m0;
} vpl_u4;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    vpl_R1 vpl_r0;
    vec4 vpl_r1;
    float vpl_r2;
    ivec2 vpl_r3;
    int vpl_r4;
    vpl_R0 vpl_r5;
    float vpl_r6;
    vec4 vpl_r7;
    vec4 vpl_r8;
    float vpl_r9;
    vpl_R0 vpl_r10;
    float vpl_r11;
    vpl_r0 = vpl_R1(vpl_u0.vpl_m0, vpl_u0.vpl_m1, vpl_u0.vpl_m2, vpl_u0.vpl_m3, vpl_u0.vpl_m4);
    vpl_r1 = vpl_r0.vpl_m0;
    vpl_r2 = vpl_u0.vpl_m1[1];
    vpl_r3 = vpl_u0.vpl_m4;
    vpl_r4 = vpl_r3.y;
    vpl_r5 = vpl_u2[vpl_r4];
    vpl_r6 = vpl_r5.vpl_m1;
    vpl_r7 = vpl_u1[2];
    vpl_r8 = vpl_u4.vpl_m0;
    vpl_r10 = vpl_r0.vpl_m2;
    vpl_r11 = vpl_r10.vpl_m1;
    vpl_r9 = vpl_u3;
    vpl_r2 = vpl_r2 * vpl_r6;
    vpl_r2 = vpl_r2 * vpl_r11;
    vpl_r2 = vpl_r2 * vpl_r9;
    vpl_r1 = vpl_r1 * vpl_r7;
    vpl_r1 = vpl_r1 * vpl_r8;
    vpl_r1 = vpl_r1 * vpl_r2;
    vpl_output0 = vpl_r1;
    return;
}

void main() {
    vpl_ff0();
}
