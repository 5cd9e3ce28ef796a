#version 320 es
precision highp float;
precision highp int;
precision highp sampler2D;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    vec4 vpl_r0;
    vpl_r0 = vec4(1.0, 0.0, 0.0, 1.0);
    vpl_output0 = vpl_r0;
    return;
}

void main() {
    vpl_ff0();
}
