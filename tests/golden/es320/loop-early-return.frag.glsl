#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();
int vpl_ff1(int vpl_p0);

void vpl_ff0() {
    int vpl_r0;
    int vpl_r1;
    float vpl_r2;
    float vpl_r3;
    vec4 vpl_r4;
    vpl_r0 = vpl_ff1(5);
    vpl_r1 = vpl_ff1(9);
    vpl_r1 = vpl_r1 * 20;
    vpl_r2 = float(vpl_r0);
    vpl_r2 = vpl_r2 / 255.0;
    vpl_r3 = float(vpl_r1);
    vpl_r3 = vpl_r3 / 255.0;
    vpl_r4 = vec4(vpl_r2, vpl_r3, 0.0, 1.0);
    vpl_output0 = vpl_r4;
    return;
}

int vpl_ff1(int vpl_p0) {
    int vpl_r0;
    int vpl_r1;
    bool vpl_r2;
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r1 = vpl_p0;
            vpl_r0 = 0;
            vpl_block = 1;
            continue;
        case 1:
            vpl_r0 = vpl_r0 + 1;
            vpl_r2 = vpl_r0 == vpl_r1;
            vpl_block = vpl_r2 ? 2 : 3;
            continue;
        case 2:
            return vpl_r0;
        case 3:
            vpl_r2 = vpl_r0 < 1000;
            vpl_block = vpl_r2 ? 1 : 4;
            continue;
        case 4:
            return -1;
        }
    }
    return 0;
}

void main() {
    vpl_ff0();
}
