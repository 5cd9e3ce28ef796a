#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

struct vpl_R0 {
    int vpl_m0[3];
    float vpl_m1;
};
struct vpl_R1 {
    vpl_R0 vpl_m0[2];
    int vpl_m1;
};

uniform vpl_R0 vpl_u0[2];

layout(location = 0) out vec4 vpl_output0;
layout(location = 1) out vec4 vpl_output1[2];

void vpl_ff0();
int vpl_ff1(vpl_R1 vpl_p0[2], int vpl_p1);

void vpl_ff0() {
    int vpl_r0[3];
    vpl_R0 vpl_r1;
    vpl_R0 vpl_r2[2];
    vpl_R1 vpl_r3;
    vpl_R1 vpl_r4[2];
    int vpl_r5;
    int vpl_r6;
    int vpl_r7;
    bool vpl_r8;
    vec4 vpl_r9;
    float vpl_r10;
    vec4 vpl_r11[2];
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r0 = int[3](1, 2, 3);
            vpl_r1 = vpl_R0(vpl_r0, 1.0);
            vpl_r2 = vpl_R0[2](vpl_r1, vpl_r1);
            vpl_r3 = vpl_R1(vpl_r2, 0);
            vpl_r4 = vpl_R1[2](vpl_r3, vpl_r3);
            vpl_r5 = 1;
            vpl_r6 = 0;
            vpl_r7 = 2;
            vpl_r4[vpl_r5].vpl_m0[vpl_r6].vpl_m0[vpl_r7] = 40;
            vpl_r4[vpl_r6].vpl_m1 = 7;
            vpl_r7 = vpl_r4[vpl_r5].vpl_m0[vpl_r6].vpl_m0[vpl_r7];
            vpl_r8 = vpl_r7 == 40;
            vpl_block = vpl_r8 ? 1 : 6;
            continue;
        case 1:
            vpl_r7 = vpl_r4[vpl_r6].vpl_m0[vpl_r6].vpl_m0[2];
            vpl_r8 = vpl_r7 == 3;
            vpl_block = vpl_r8 ? 2 : 6;
            continue;
        case 2:
            vpl_r7 = vpl_ff1(vpl_r4, vpl_r5);
            vpl_r8 = vpl_r7 == 40;
            vpl_block = vpl_r8 ? 3 : 6;
            continue;
        case 3:
            vpl_r7 = vpl_r4[vpl_r5].vpl_m1;
            vpl_r8 = vpl_r7 == 0;
            vpl_block = vpl_r8 ? 4 : 6;
            continue;
        case 4:
            vpl_r7 = vpl_u0[vpl_r5].vpl_m0[vpl_r7];
            vpl_r6 = 2;
            vpl_r6 = vpl_u0[vpl_r5].vpl_m0[vpl_r6];
            vpl_r7 = vpl_r7 + vpl_r6;
            vpl_r10 = vpl_u0[vpl_r5].vpl_m1;
            vpl_r9 = vec4(vpl_r10, vpl_r10, vpl_r10, vpl_r10);
            vpl_output1[0] = vpl_r9;
            vpl_output1[1] = vpl_r9;
            vpl_r9 = vpl_output1[1];
            vpl_r8 = vpl_r7 == 9;
            vpl_block = vpl_r8 ? 5 : 6;
            continue;
        case 5:
            vpl_r9 = vec4(0.0, 1.0, 0.0, 1.0);
            vpl_output0 = vpl_r9;
            return;
        case 6:
            vpl_r9 = vec4(1.0, 0.0, 0.0, 1.0);
            vpl_output0 = vpl_r9;
            vpl_r9 = vec4(0.0);
            vpl_r11 = vec4[2](vpl_r9, vpl_r9);
            vpl_output1 = vpl_r11;
            return;
        }
    }
}

int vpl_ff1(vpl_R1 vpl_p0[2], int vpl_p1) {
    int vpl_r0;
    int vpl_r1;
    vpl_r0 = vpl_p1;
    vpl_p0[vpl_r0].vpl_m1 = 99;
    vpl_r1 = vpl_p0[vpl_r0].vpl_m0[0].vpl_m0[2];
    return vpl_r1;
}

void main() {
    vpl_ff0();
}
