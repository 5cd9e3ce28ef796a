#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

uniform int vpl_u0;
uniform int vpl_u1;
uniform int vpl_u2;
uniform int vpl_u3;
uniform int vpl_u4;
uniform int vpl_u5;
uniform float vpl_u6;
uniform float vpl_u7;
uniform float vpl_u8;

layout(location = 0) in vec3 vpl_attribute0;

void vpl_fv0();

void vpl_fv0() {
    vec3 vpl_r0;
    vec4 vpl_r1;
    vpl_r0 = vpl_attribute0;
    vpl_r1 = vec4(vpl_r0, 1.0);
    gl_Position = vpl_r1;
    return;
}

void main() {
    vpl_fv0();
}
