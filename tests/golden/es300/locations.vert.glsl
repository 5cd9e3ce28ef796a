#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

struct vpl_R0 {
    vec3 vpl_m0;
    vec3 vpl_m1;
};

layout(location = 0) in vec2 vpl_attribute0;
layout(location = 1) in mat3 vpl_attribute1;
layout(location = 4) in vec4 vpl_attribute4;
layout(location = 7) in ivec3 vpl_attribute7;
layout(location = 5) in mat2 vpl_attribute5;
layout(location = 8) in float vpl_attribute8;
out vpl_R0 vpl_varying0;
out vec4 vpl_varying2;
out vec2 vpl_varying3[3];
out float vpl_varying6;

void vpl_fv0();

void vpl_fv0() {
    vec4 vpl_r0;
    vec2 vpl_r1;
    vec3 vpl_r2;
    vpl_R0 vpl_r3;
    vec2 vpl_r4[3];
    mat3 vpl_r5;
    ivec3 vpl_r6;
    mat2 vpl_r7;
    float vpl_r8;
    vec4 vpl_r9;
    int vpl_r10;
    vpl_r1 = vpl_attribute0;
    vpl_r0 = vec4(vpl_r1, 0.0, 1.0);
    vpl_r5 = vpl_attribute1;
    vpl_r2 = vec3(1.0);
    vpl_r2 = vpl_r5 * vpl_r2;
    vpl_r9 = vec4(vpl_r2, 0.0);
    vpl_r0 = vpl_r0 + vpl_r9;
    vpl_r7 = vpl_attribute5;
    vpl_r1 = vec2(1.0);
    vpl_r1 = vpl_r7 * vpl_r1;
    vpl_r9 = vec4(vpl_r1, 0.0, 0.0);
    vpl_r0 = vpl_r0 + vpl_r9;
    vpl_r6 = vpl_attribute7;
    vpl_r10 = vpl_r6.z;
    vpl_r8 = float(vpl_r10);
    vpl_r9 = vec4(vpl_r8, 0.0, 0.0, 0.0);
    vpl_r0 = vpl_r0 + vpl_r9;
    vpl_r8 = vpl_attribute8;
    vpl_r9 = vec4(0.0, vpl_r8, 0.0, 0.0);
    vpl_r0 = vpl_r0 + vpl_r9;
    gl_Position = vpl_r0;
    vpl_r1 = vpl_attribute0;
    vpl_r2 = vec3(0.5);
    vpl_r3 = vpl_R0(vpl_r2, vpl_r2);
    vpl_varying0 = vpl_r3;
    vpl_r0 = vpl_attribute4;
    vpl_varying2 = vpl_r0;
    vpl_r4 = vec2[3](vpl_r1, vpl_r1, vpl_r1);
    vpl_varying3 = vpl_r4;
    vpl_varying6 = vpl_r8;
    return;
}

void main() {
    vpl_fv0();
}
