#version 420 core

uniform int vpl_u0;
uniform int vpl_u1;
uniform int vpl_u2;
uniform int vpl_u3;
uniform int vpl_u4;
uniform int vpl_u5;
uniform float vpl_u6;
uniform float vpl_u7;
uniform float vpl_u8;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    int vpl_r0;
    int vpl_r1;
    bool vpl_r2;
    float vpl_r3;
    float vpl_r4;
    vec4 vpl_r5;
    int vpl_r6;
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r6 = 1;
            vpl_r0 = vpl_u0;
            vpl_r0 = vpl_r0 + 1;
            vpl_r2 = vpl_r0 == (-2147483647 - 1);
            vpl_block = vpl_r2 ? 1 : 13;
            continue;
        case 1:
            vpl_r6 = 2;
            vpl_r0 = vpl_u1;
            vpl_r0 = vpl_r0 - 1;
            vpl_r2 = vpl_r0 == 2147483647;
            vpl_block = vpl_r2 ? 2 : 13;
            continue;
        case 2:
            vpl_r6 = 3;
            vpl_r0 = vpl_u2;
            vpl_r0 = vpl_r0 * vpl_r0;
            vpl_r2 = vpl_r0 == 0;
            vpl_block = vpl_r2 ? 3 : 13;
            continue;
        case 3:
            vpl_r6 = 4;
            vpl_r0 = vpl_u3;
            vpl_r1 = vpl_u4;
            vpl_r0 = vpl_r0 / vpl_r1;
            vpl_r2 = vpl_r0 == (-3);
            vpl_block = vpl_r2 ? 4 : 13;
            continue;
        case 4:
            vpl_r6 = 5;
            vpl_r0 = vpl_u3;
            vpl_r0 = 0 - vpl_r0;
            vpl_r1 = vpl_u4;
            vpl_r1 = 0 - vpl_r1;
            vpl_r0 = vpl_r0 / vpl_r1;
            vpl_r2 = vpl_r0 == (-3);
            vpl_block = vpl_r2 ? 5 : 13;
            continue;
        case 5:
            vpl_r6 = 6;
            vpl_r0 = vpl_u1;
            vpl_r3 = float(vpl_r0);
            vpl_r2 = vpl_r3 == (-2.14748365e9);
            vpl_block = vpl_r2 ? 6 : 13;
            continue;
        case 6:
            vpl_r6 = 7;
            vpl_r0 = vpl_u5;
            vpl_r3 = float(vpl_r0);
            vpl_r2 = vpl_r3 == 16777216.0;
            vpl_block = vpl_r2 ? 7 : 13;
            continue;
        case 7:
            vpl_r6 = 8;
            vpl_r3 = vpl_u6;
            vpl_r4 = vpl_u7;
            vpl_r3 = vpl_r3 + vpl_r4;
            vpl_r2 = vpl_r3 == 0.75;
            vpl_block = vpl_r2 ? 8 : 13;
            continue;
        case 8:
            vpl_r6 = 9;
            vpl_r3 = vpl_u6;
            vpl_r3 = vpl_r3 * 3.0;
            vpl_r2 = vpl_r3 == 1.5;
            vpl_block = vpl_r2 ? 9 : 13;
            continue;
        case 9:
            vpl_r6 = 10;
            vpl_r3 = vpl_u7;
            vpl_r4 = vpl_u6;
            vpl_r3 = vpl_r3 / vpl_r4;
            vpl_r2 = vpl_r3 == 0.5;
            vpl_block = vpl_r2 ? 10 : 13;
            continue;
        case 10:
            vpl_r6 = 11;
            vpl_r3 = vpl_u8;
            vpl_r2 = vpl_r3 == 0.0;
            vpl_block = vpl_r2 ? 11 : 13;
            continue;
        case 11:
            vpl_r6 = 12;
            vpl_r3 = vpl_u8;
            vpl_r2 = vpl_r3 < 0.0;
            vpl_block = vpl_r2 ? 13 : 12;
            continue;
        case 12:
            vpl_r5 = vec4(0.0, 1.0, 0.0, 1.0);
            vpl_output0 = vpl_r5;
            return;
        case 13:
            vpl_r3 = float(vpl_r6);
            vpl_r3 = vpl_r3 / 255.0;
            vpl_r5 = vec4(vpl_r3, 0.0, 0.0, 1.0);
            vpl_output0 = vpl_r5;
            return;
        }
    }
}

void main() {
    vpl_ff0();
}
