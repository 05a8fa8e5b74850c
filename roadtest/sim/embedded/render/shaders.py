"""GLSL of the renderer: one surface shader (sun, ambient, lights, wet highlights, snow, fog, emissive lamps)
writing BGRA colour, planar depth and the CARLA tag; a sky pass; a particle pass for rain and snow."""

from __future__ import annotations

__all__ = ["SURFACE_VS", "SURFACE_FS", "textured", "SKY_VS", "SKY_FS", "PARTICLE_VS", "PARTICLE_FS"]

SURFACE_VS = """
#version 330
uniform mat4 u_vp;
in vec3 in_pos; in vec3 in_nrm; in vec4 in_col; in vec2 in_uv; in vec2 in_tm;
out vec3 v_pos; out vec3 v_nrm; out vec4 v_col; out vec2 v_uv; flat out vec2 v_tm;
void main() {
    v_pos = in_pos; v_nrm = in_nrm; v_col = in_col; v_uv = in_uv; v_tm = in_tm;
    gl_Position = u_vp * vec4(in_pos, 1.0);
}
"""

SURFACE_FS = """
#version 330
#define MAX_LIGHTS 4
uniform sampler2D u_atlas;
uniform sampler2D u_shelter; uniform int u_has_shelter; uniform vec2 u_sh_lo; uniform vec2 u_sh_size;
uniform vec3 u_cam; uniform vec3 u_fwd;
uniform vec3 u_sun_dir; uniform vec3 u_sun_rgb; uniform vec3 u_ambient; uniform vec3 u_fog_rgb;
uniform float u_fog; uniform float u_wet; uniform float u_snow;
uniform int u_nl;
uniform vec3 u_lpos[MAX_LIGHTS]; uniform vec3 u_ldir[MAX_LIGHTS]; uniform vec3 u_lrgb[MAX_LIGHTS];
uniform vec3 u_lpar[MAX_LIGHTS];
in vec3 v_pos; in vec3 v_nrm; in vec4 v_col; in vec2 v_uv; flat in vec2 v_tm;
layout(location = 0) out vec4 o_col;
layout(location = 1) out float o_depth;
layout(location = 2) out float o_tag;
float hash(vec2 p) { return fract(sin(dot(p, vec2(12.9898, 78.233))) * 43758.5453); }
void main() {
    vec3 base = v_col.rgb;
    int mat = int(v_tm.y + 0.5);
#ifdef TEXTURED
    vec4 t = texture(u_atlas, v_uv, -1.0);  // one mip level sharper: no anisotropic filtering (slow on llvmpipe)
    if (t.a < 0.5) discard;
    if (mat == 4) base = t.rgb;  // a face; other textured quads (a sign's back) take only its outline
#endif
    vec3 V = u_cam - v_pos;
    float dist = length(V);
    V /= max(dist, 1e-4);
    vec3 n = normalize(v_nrm);
    if (dot(n, V) < 0.0) n = -n;
    float spec_k = 0.0;
    if (mat == 1) {
        base *= 0.93 + 0.07 * hash(floor(v_pos.xy * 9.0)) + 0.07 * hash(floor(v_pos.xy * 1.7));
        base *= 1.0 - 0.4 * u_wet;
        spec_k = u_wet;
        base = mix(base, vec3(0.9, 0.91, 0.93), u_snow * (0.25 + 0.2 * hash(floor(v_pos.xy * 4.0))));
    } else if (mat == 2) {
        base *= 1.0 - 0.2 * u_wet;
        spec_k = 0.6 * u_wet;
    } else if (mat == 3) {
        base *= 0.9 + 0.2 * hash(floor(v_pos.xy * 1.5));
        base = mix(base, vec3(0.93, 0.94, 0.96), min(1.0, 1.6 * u_snow));
    }
    float shelter = v_col.a < 0.0 ? 1.0 : 0.0;  // under a tunnel's ceiling: no sun, little sky, its own lamps
    if (u_has_shelter == 1) {
        vec2 q = (v_pos.xy - u_sh_lo) / u_sh_size;
        if (q.x >= 0.0 && q.y >= 0.0 && q.x < 1.0 && q.y < 1.0 && v_pos.z < texture(u_shelter, q).r - 0.05)
            shelter = 1.0;
    }
    vec3 light = u_ambient * (0.85 + 0.15 * n.z) * (mat == 4 ? 1.6 : 1.0) * (1.0 - 0.85 * shelter)
               + u_sun_rgb * max(dot(n, u_sun_dir), 0.0) * (1.0 - shelter) + shelter * vec3(0.4, 0.37, 0.3);
    vec3 spec = vec3(0.0);
    if (spec_k > 0.0 && shelter < 0.5) {
        vec3 H = normalize(u_sun_dir + V);
        spec += u_sun_rgb * pow(max(dot(n, H), 0.0), 60.0) * 1.2 * spec_k;
    }
    for (int i = 0; i < MAX_LIGHTS; i++) {
        if (i >= u_nl) break;
        vec3 L = u_lpos[i] - v_pos;
        float d = length(L);
        if (d > u_lpar[i].z) continue;
        L /= max(d, 1e-4);
        float cd = dot(-L, u_ldir[i]);
        if (cd < u_lpar[i].x) continue;
        float cone = smoothstep(u_lpar[i].x, u_lpar[i].y, cd);
        float q = d / (0.3 * u_lpar[i].z);
        float att = cone / (1.0 + q * q) * clamp(2.0 - 2.0 * d / u_lpar[i].z, 0.0, 1.0);
        light += u_lrgb[i] * att * (0.15 + 0.85 * max(dot(n, L), 0.0));
        if (spec_k > 0.0) spec += u_lrgb[i] * att * pow(max(dot(n, normalize(L + V)), 0.0), 40.0) * 2.0 * spec_k;
    }
    vec3 col = base * light + spec;
    col = mix(col, base * 1.1, max(v_col.a, 0.0));
    col = mix(u_fog_rgb, col, exp(-u_fog * dist));
    o_col = vec4(clamp(col.bgr, 0.0, 1.0), 1.0);
    o_depth = dot(v_pos - u_cam, u_fwd);
    o_tag = v_tm.x / 255.0;
}
"""

SKY_VS = """
#version 330
uniform mat4 u_inv_vp_rot;
out vec3 v_ray;
void main() {
    vec2 p = vec2((gl_VertexID == 1) ? 3.0 : -1.0, (gl_VertexID == 2) ? 3.0 : -1.0);
    vec4 r = u_inv_vp_rot * vec4(p, 1.0, 1.0);
    v_ray = r.xyz / r.w;
    gl_Position = vec4(p, 1.0, 1.0);
}
"""

SKY_FS = """
#version 330
uniform vec3 u_zenith; uniform vec3 u_horizon; uniform vec3 u_sun_dir; uniform vec3 u_sun_rgb;
uniform vec3 u_fog_rgb; uniform float u_fog; uniform float u_far;
in vec3 v_ray;
layout(location = 0) out vec4 o_col;
layout(location = 1) out float o_depth;
layout(location = 2) out float o_tag;
void main() {
    vec3 r = normalize(v_ray);
    vec3 col = mix(u_horizon, u_zenith, smoothstep(0.0, 0.45, r.z));
    float sd = dot(r, u_sun_dir);
    col += u_sun_rgb * (smoothstep(0.9993, 0.9997, sd) * 2.0 + pow(max(sd, 0.0), 64.0) * 0.25);
    col = mix(u_fog_rgb, col, exp(-u_fog * u_far * (1.0 - 0.7 * smoothstep(0.0, 0.3, r.z))));
    o_col = vec4(clamp(col.bgr, 0.0, 1.0), 1.0);
    o_depth = u_far;
    o_tag = 11.0 / 255.0;
}
"""

PARTICLE_VS = """
#version 330
uniform mat4 u_vp; uniform vec3 u_cam; uniform float u_size;
in vec3 in_pos;
out float v_dist;
void main() {
    gl_Position = u_vp * vec4(in_pos, 1.0);
    v_dist = length(in_pos - u_cam);
    gl_PointSize = clamp(u_size / max(v_dist, 0.5), 1.0, 6.0);
}
"""

PARTICLE_FS = """
#version 330
uniform vec4 u_rgba; uniform vec3 u_fog_rgb; uniform float u_fog;
in float v_dist;
out vec4 o_col;
void main() {
    vec3 c = mix(u_fog_rgb, u_rgba.rgb, exp(-u_fog * v_dist));
    o_col = vec4(c.bgr, u_rgba.a);
}
"""


def textured(source: str) -> str:
    """The surface shader for textured triangles (sign faces): the same code with TEXTURED defined."""
    return source.replace("#version 330\n", "#version 330\n#define TEXTURED\n", 1)
