#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    int vpl_r0;
    int vpl_r1;
    bool vpl_r2;
    float vpl_r3;
    vec4 vpl_r4;
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r0 = 1;
            vpl_r1 = 0;
            vpl_block = 1;
            continue;
        case 1:
            vpl_r2 = vpl_r0 <= 4;
            vpl_block = vpl_r2 ? 2 : 3;
            continue;
        case 2:
            vpl_r1 = vpl_r1 + vpl_r0;
            vpl_r0 = vpl_r0 + 1;
            vpl_block = 1;
            continue;
        case 3:
            vpl_r3 = float(vpl_r1);
            vpl_r3 = vpl_r3 / 255.0;
            vpl_r4 = vec4(vpl_r3, 1.0, 0.0, 1.0);
            vpl_output0 = vpl_r4;
            return;
        }
    }
}

void main() {
    vpl_ff0();
}
