#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

struct vpl_R0 {
    vec4 vpl_m0;
    int vpl_m1;
};

uniform sampler2D vpl_u0;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();
void vpl_ff1(vec4 vpl_p0);
void vpl_ff2(float vpl_p0[3]);
float vpl_ff3(float vpl_p0[3]);
vpl_R0 vpl_ff4(vec4 vpl_p0, int vpl_p1);
vec4 vpl_ff5(sampler2D vpl_p0, vec2 vpl_p1);
vec4 vpl_ff6(vec4 vpl_p0, float vpl_p1);

void vpl_ff0() {
    float vpl_r0[3];
    float vpl_r1;
    vpl_R0 vpl_r2;
    vec4 vpl_r3;
    vec2 vpl_r5;
    vec4 vpl_r6;
    bool vpl_r7;
    int vpl_r8;
    float vpl_r9;
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r0 = float[3](1.0, 2.0, 3.0);
            vpl_ff2(vpl_r0);
            vpl_r1 = vpl_ff3(vpl_r0);
            vpl_r3 = vec4(0.0, 1.0, 0.0, 1.0);
            vpl_r2 = vpl_ff4(vpl_r3, 42);
            vpl_r5 = vec2(0.5, 0.5);
            vpl_r3 = vpl_ff5(vpl_u0, vpl_r5);
            vpl_r9 = vpl_r1 / 6.0;
            vpl_r6 = vpl_ff6(vpl_r3, vpl_r9);
            vpl_r7 = vpl_r1 == 6.0;
            vpl_block = vpl_r7 ? 1 : 3;
            continue;
        case 1:
            vpl_r8 = vpl_r2.vpl_m1;
            vpl_r7 = vpl_r8 == 42;
            vpl_block = vpl_r7 ? 2 : 3;
            continue;
        case 2:
            vpl_ff1(vpl_r6);
            return;
        case 3:
            vpl_r3 = vec4(1.0, 0.0, 0.0, 1.0);
            vpl_output0 = vpl_r3;
            return;
        }
    }
}

void vpl_ff1(vec4 vpl_p0) {
    vec4 vpl_r0;
    vpl_r0 = vpl_p0;
    vpl_output0 = vpl_r0;
    return;
}

void vpl_ff2(float vpl_p0[3]) {
    vpl_p0[0] = 100.0;
    return;
}

float vpl_ff3(float vpl_p0[3]) {
    int vpl_r0;
    float vpl_r1;
    bool vpl_r2;
    float vpl_r3;
    int vpl_block = 0;
    while (true) {
        switch (vpl_block) {
        case 0:
            vpl_r0 = 0;
            vpl_r1 = 0.0;
            vpl_block = 1;
            continue;
        case 1:
            vpl_r2 = vpl_r0 < 3;
            vpl_block = vpl_r2 ? 2 : 3;
            continue;
        case 2:
            vpl_r3 = vpl_p0[vpl_r0];
            vpl_r1 = vpl_r1 + vpl_r3;
            vpl_r0 = vpl_r0 + 1;
            vpl_block = 1;
            continue;
        case 3:
            return vpl_r1;
        }
    }
    return 0.0;
}

vpl_R0 vpl_ff4(vec4 vpl_p0, int vpl_p1) {
    vec4 vpl_r0;
    int vpl_r1;
    vpl_R0 vpl_r2;
    vpl_r0 = vpl_p0;
    vpl_r1 = vpl_p1;
    vpl_r2 = vpl_R0(vpl_r0, vpl_r1);
    return vpl_r2;
}

vec4 vpl_ff5(sampler2D vpl_p0, vec2 vpl_p1) {
    vec2 vpl_r1;
    vec4 vpl_r2;
    vpl_r1 = vpl_p1;
    vpl_r2 = texture(vpl_p0, vpl_r1);
    return vpl_r2;
}

vec4 vpl_ff6(vec4 vpl_p0, float vpl_p1) {
    vec4 vpl_r0;
    float vpl_r1;
    vec4 vpl_r2;
    vpl_r0 = vpl_p0;
    vpl_r1 = vpl_p1;
    vpl_r0 = vpl_r0 * vpl_r1;
    vpl_p0 = vpl_r0;
    vpl_r2 = vpl_p0;
    return vpl_r2;
}

void main() {
    vpl_ff0();
}
