#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

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
