#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

struct vpl_R0 {
    vec4 vpl_m0;
    int vpl_m1;
};

layout(location = 0) in vec3 vpl_attribute0;
flat out int vpl_varying0;
flat out vpl_R0 vpl_varying1;
out float vpl_varying3[2];
flat out ivec2 vpl_varying5;
out mat2 vpl_varying6;
out vec4 vpl_varying8;
out vec2 vpl_varying9;

void vpl_fv0();

void vpl_fv0() {
    vec3 vpl_r0;
    vec4 vpl_r1;
    vpl_R0 vpl_r2;
    float vpl_r3[2];
    ivec2 vpl_r4;
    mat2 vpl_r5;
    vec2 vpl_r6;
    vpl_r0 = vpl_attribute0;
    vpl_r1 = vec4(vpl_r0, 1.0);
    gl_Position = vpl_r1;
    vpl_varying0 = 7;
    vpl_r1 = vec4(0.0, 1.0, 0.0, 1.0);
    vpl_r2 = vpl_R0(vpl_r1, 42);
    vpl_varying1 = vpl_r2;
    vpl_r3 = float[2](0.25, 0.75);
    vpl_varying3 = vpl_r3;
    vpl_r4 = ivec2(3, -4);
    vpl_varying5 = vpl_r4;
    vpl_r5 = mat2(2.0);
    vpl_varying6 = vpl_r5;
    vpl_varying8 = vpl_r1;
    vpl_r6 = vec2(0.5);
    vpl_varying9 = vpl_r6;
    return;
}

void main() {
    vpl_fv0();
}
