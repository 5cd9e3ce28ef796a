#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

struct vpl_R0 {
    vec3 vpl_m0;
    vec3 vpl_m1;
};

layout(location = 3) in vec2 vpl_varying3[3];
layout(location = 2) in vec4 vpl_varying2;
layout(location = 0) in vpl_R0 vpl_varying0;
layout(location = 0) out vec4 vpl_output0;
layout(location = 1) out vec4 vpl_output1[2];
layout(location = 3) out int vpl_output3;

void vpl_ff0();

void vpl_ff0() {
    vec4 vpl_r0;
    vec4 vpl_r1[2];
    vpl_r0 = vpl_varying2;
    vpl_output0 = vpl_r0;
    vpl_r1 = vec4[2](vpl_r0, vpl_r0);
    vpl_output1 = vpl_r1;
    vpl_output3 = 3;
    return;
}

void main() {
    vpl_ff0();
}
