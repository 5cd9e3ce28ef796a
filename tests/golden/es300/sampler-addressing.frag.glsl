#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

uniform sampler2D vpl_u0;
uniform vec2 vpl_u1;

layout(location = 0) out vec4 vpl_output0;

void vpl_ff0();

void vpl_ff0() {
    vec2 vpl_r1;
    vec4 vpl_r2;
    vpl_r1 = vpl_u1;
    vpl_r2 = texture(vpl_u0, vpl_r1);
    vpl_output0 = vpl_r2;
    return;
}

void main() {
    vpl_ff0();
}
