#version 420 core

struct vpl_R0 {
    vec4 vpl_m0;
    int vpl_m1;
};

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    vec4 vpl_r0;
    vpl_R0 vpl_r1;
    vpl_R0 vpl_r2[2];
    int vpl_r3;
    vpl_r0 = vec4(1.0, 0.0, 0.0, 1.0);
    vpl_r1 = vpl_R0(vpl_r0, 1);
    vpl_r2 = vpl_R0[2](vpl_r1, vpl_r1);
    vpl_r3 = 1;
    vpl_r0 = vec4(0.0, 1.0, 0.0, 1.0);
    vpl_r2[vpl_r3].vpl_m0 = vpl_r0;
    vpl_r0 = vpl_r2[vpl_r3].vpl_m0;
    vpl_output0 = vpl_r0;
    return;
}

void main() {
    vpl_ff0();
}
