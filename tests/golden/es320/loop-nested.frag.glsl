#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    int vpl_r0;
    int vpl_r1;
    int vpl_r2;
    bool vpl_r3;
    int vpl_r4;
    float vpl_r5;
    vec4 vpl_r6;
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r0 = 0;
            vpl_r2 = 0;
            vpl_block = 1;
            continue;
        case 1:
            vpl_r3 = vpl_r0 < 3;
            vpl_block = vpl_r3 ? 2 : 7;
            continue;
        case 2:
            vpl_r1 = 0;
            vpl_block = 3;
            continue;
        case 3:
            vpl_r3 = vpl_r1 < 4;
            vpl_block = vpl_r3 ? 4 : 6;
            continue;
        case 4:
            vpl_r2 = vpl_r2 + 1;
            vpl_r4 = vpl_r0 * vpl_r1;
            vpl_r3 = vpl_r4 == 4;
            vpl_block = vpl_r3 ? 6 : 5;
            continue;
        case 5:
            vpl_r1 = vpl_r1 + 1;
            vpl_block = 3;
            continue;
        case 6:
            vpl_r0 = vpl_r0 + 1;
            vpl_block = 1;
            continue;
        case 7:
            vpl_r5 = float(vpl_r2);
            vpl_r5 = vpl_r5 / 255.0;
            vpl_r6 = vec4(vpl_r5, 1.0, 0.0, 1.0);
            vpl_output0 = vpl_r6;
            return;
        }
    }
}

void main() {
    vpl_ff0();
}
