#version 420 core

uniform sampler2D vpl_u0;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();
vec4 vpl_ff1(sampler2D vpl_p0, vec2 vpl_p1);

void vpl_ff0() {
    vec2 vpl_r4;
    vec4 vpl_r5;
    vec4 vpl_r6;
    vpl_r4 = vec2(0.5, 0.5);
    vpl_r5 = texture(vpl_u0, vpl_r4);
    vpl_r6 = vpl_ff1(vpl_u0, vpl_r4);
    vpl_r5 = vpl_r5 + vpl_r6;
    vpl_r5 = vpl_r5 * 0.5;
    vpl_output0 = vpl_r5;
    return;
}

vec4 vpl_ff1(sampler2D vpl_p0, vec2 vpl_p1) {
    vec2 vpl_r1;
    vec4 vpl_r2;
    vec4 vpl_r3;
    vpl_r1 = vpl_p1;
    vpl_r2 = texture(vpl_p0, vpl_r1);
    vpl_r3 = texture(vpl_p0, vpl_r1);
    vpl_r2 = vpl_r2 + vpl_r3;
    vpl_r2 = vpl_r2 * 0.5;
    return vpl_r2;
}

void main() {
    vpl_ff0();
}
