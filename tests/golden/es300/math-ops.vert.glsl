#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

uniform sampler2D vpl_u0;

layout(location = 0) in vec3 vpl_attribute0;
out vec4 vpl_varying0;

void vpl_fv0();

void vpl_fv0() {
    vec3 vpl_r0;
    vec4 vpl_r1;
    vec2 vpl_r3;
    vec3 vpl_r4;
    vpl_r0 = vpl_attribute0;
    vpl_r4 = normalize(vpl_r0);
    vpl_r1 = vec4(vpl_r0, 1.0);
    gl_Position = vpl_r1;
    vpl_r3 = vec2(0.5, 0.5);
    vpl_r1 = textureLod(vpl_u0, vpl_r3, 0.0);
    vpl_varying0 = vpl_r1;
    return;
}

void main() {
    vpl_fv0();
}
