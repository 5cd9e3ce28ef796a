#version 420 core

struct vpl_R0 {
    vec4 vpl_m0;
    int vpl_m1;
};

layout(location = 5) flat in ivec2 vpl_varying5;
layout(location = 0) flat in int vpl_varying0;
layout(location = 1) flat in vpl_R0 vpl_varying1;
layout(location = 8) in vec4 vpl_varying8;
layout(location = 6) in mat2 vpl_varying6;
layout(location = 3) in float vpl_varying3[2];
layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    int vpl_r0;
    bool vpl_r1;
    ivec2 vpl_r2;
    vec4 vpl_r3;
    float vpl_r4;
    mat2 vpl_r5;
    vec2 vpl_r6;
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r0 = vpl_varying0;
            vpl_r1 = vpl_r0 == 7;
            vpl_block = vpl_r1 ? 1 : 7;
            continue;
        case 1:
            vpl_r2 = vpl_varying5;
            vpl_r0 = vpl_r2.y;
            vpl_r1 = vpl_r0 == (-4);
            vpl_block = vpl_r1 ? 2 : 7;
            continue;
        case 2:
            vpl_r0 = vpl_varying1.vpl_m1;
            vpl_r1 = vpl_r0 == 42;
            vpl_block = vpl_r1 ? 3 : 7;
            continue;
        case 3:
            vpl_r4 = vpl_varying3[1];
            vpl_r1 = vpl_r4 > 0.74000001;
            vpl_block = vpl_r1 ? 4 : 7;
            continue;
        case 4:
            vpl_r1 = vpl_r4 < 0.75999999;
            vpl_block = vpl_r1 ? 5 : 7;
            continue;
        case 5:
            vpl_r5 = vpl_varying6;
            vpl_r6 = vec2(1.0);
            vpl_r6 = vpl_r5 * vpl_r6;
            vpl_r4 = vpl_r6.y;
            vpl_r1 = vpl_r4 > 1.99000001;
            vpl_block = vpl_r1 ? 6 : 7;
            continue;
        case 6:
            vpl_r3 = vpl_varying8;
            vpl_output0 = vpl_r3;
            return;
        case 7:
            vpl_r3 = vec4(1.0, 0.0, 0.0, 1.0);
            vpl_output0 = vpl_r3;
            return;
        }
    }
}

void main() {
    vpl_ff0();
}
