#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

void vpl_fv0();

void vpl_fv0() {
    vec4 vpl_r0;
    vpl_r0 = vec4(1.0);
    gl_Position = vpl_r0;
    return;
}

void main() {
    vpl_fv0();
}
