#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();
void vpl_ff1();
float vpl_ff2();

void vpl_ff0() {
    vec4 vpl_r0;
    float vpl_r1;
    bool vpl_r2;
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r0 = gl_FragCoord;
            vpl_r1 = vpl_r0.x;
            vpl_r2 = vpl_r1 < 2.0;
            vpl_block = vpl_r2 ? 1 : 2;
            continue;
        case 1:
            discard;
        case 2:
            vpl_r1 = vpl_r0.y;
            vpl_r2 = vpl_r1 < 1.0;
            vpl_block = vpl_r2 ? 4 : 3;
            continue;
        case 3:
            vpl_r2 = vpl_r1 < 2.0;
            vpl_block = vpl_r2 ? 5 : 6;
            continue;
        case 4:
            vpl_ff1();
            return;
        case 5:
            vpl_r1 = vpl_ff2();
            return;
        case 6:
            vpl_r0 = vec4(0.0, 1.0, 0.0, 1.0);
            vpl_output0 = vpl_r0;
            return;
        }
    }
}

void vpl_ff1() {
    discard;
}

float vpl_ff2() {
    discard;
    return 0.0;
}

void main() {
    vpl_ff0();
}
