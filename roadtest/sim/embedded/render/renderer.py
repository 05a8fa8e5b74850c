"""The renderer: a headless EGL OpenGL context (Mesa llvmpipe on a CPU machine), the map's scene uploaded once,
and one call per camera that returns CARLA-format images of a WorldState."""

from __future__ import annotations

import math
import os
import threading
from typing import Any

import numpy as np

from roadtest.errors import BackendError
from roadtest.sim.api import ActorState, Environment, WorldState
from roadtest.sim.embedded.render.camera import FAR, NEAR, CameraSpec, Pose3, camera_pose, orthographic, perspective, view_matrix
from roadtest.sim.embedded.render.dynamic import MAX_LIGHTS, build_dynamic
from roadtest.sim.embedded.render.formats import encode_depth, tags_to_bgra
from roadtest.sim.embedded.render.scene import Scene, build_scene
from roadtest.sim.embedded.render.shaders import (PARTICLE_FS, PARTICLE_VS, SKY_FS, SKY_VS, SURFACE_FS,
                                                   SURFACE_VS, textured)
from roadtest.sim.embedded.render.weather import Look, look_of

__all__ = ["Renderer", "gl_context", "GL_PACKAGES"]

GL_PACKAGES = "libegl1 libgl1 libegl-mesa0 libgl1-mesa-dri"
_ATTRS = ("in_pos", "in_nrm", "in_col", "in_uv", "in_tm")
_FORMAT = "3f 3f 4f 2f 2f"
_PLAIN_ATTRS = ("in_pos", "in_nrm", "in_col", "in_tm")  # the untextured shader has no uv input
_PLAIN_FORMAT = "3f 3f 4f 8x 2f"
_RAIN_FALL, _SNOW_FALL = 8.0, 1.2  # m/s
_BOX = 50.0  # m: particles fill a box this wide around the ego, 12 m high
_CTX: Any = None
_LOCK = threading.Lock()


def gl_context():
    """The process's headless OpenGL 3.3 context (created on first use; a run without cameras never calls this).

    ROADTEST_GL=mesa forces Mesa's EGL vendor where glvnd would pick another driver (e.g. NVIDIA's)."""
    global _CTX
    with _LOCK:
        if _CTX is None:
            try:
                import moderngl
            except ImportError as e:
                raise BackendError(f"cameras need moderngl (pip install 'moderngl>=5.12,<6'): {e}") from e
            if os.environ.get("ROADTEST_GL", "").lower() == "mesa":
                os.environ.setdefault("__EGL_VENDOR_LIBRARY_FILENAMES", "/usr/share/glvnd/egl_vendor.d/50_mesa.json")
            try:
                ctx = moderngl.create_standalone_context(backend="egl", require=330)
            except Exception as e:  # noqa: BLE001 - no EGL driver: say which packages give one
                raise BackendError(f"cameras need a headless EGL OpenGL 3.3 driver (Debian: apt-get install "
                                        f"{GL_PACKAGES}): {e}") from e
            ctx.gc_mode = "auto"
            _CTX = ctx
        return _CTX


class _Target:
    """Framebuffers of one image size: colour (BGRA), planar depth (float), tag (uint8) and a depth buffer."""

    def __init__(self, ctx, w: int, h: int):
        self.color = ctx.renderbuffer((w, h), 4, dtype="f1")
        self.depth = ctx.renderbuffer((w, h), 1, dtype="f4")
        self.tag = ctx.renderbuffer((w, h), 1, dtype="f1")
        self.zbuf = ctx.depth_renderbuffer((w, h))
        self.all = ctx.framebuffer([self.color, self.depth, self.tag], self.zbuf)
        self.color_only = ctx.framebuffer([self.color], self.zbuf)
        self.size = (w, h)


class Renderer:
    """Draws a road network and the actors of a WorldState from cameras; owns its GL objects."""

    def __init__(self, network, ctx=None):
        import moderngl

        self.ctx = ctx or gl_context()
        self.network = network
        self.scene: Scene = build_scene(network)
        ctx = self.ctx
        self.prog = ctx.program(vertex_shader=SURFACE_VS, fragment_shader=SURFACE_FS)
        self.prog_tex = ctx.program(vertex_shader=SURFACE_VS, fragment_shader=textured(SURFACE_FS))
        self.sky = ctx.program(vertex_shader=SKY_VS, fragment_shader=SKY_FS)
        self.part = ctx.program(vertex_shader=PARTICLE_VS, fragment_shader=PARTICLE_FS)
        v = self.scene.vertices
        tex = v[:, 10] >= 0.0  # sign faces and backs: the only triangles that sample the atlas
        self.static_vbo = ctx.buffer(np.ascontiguousarray(v[~tex]).tobytes())
        self.static_vao = ctx.vertex_array(self.prog, [(self.static_vbo, _PLAIN_FORMAT, *_PLAIN_ATTRS)])
        self.tex_vbo = ctx.buffer(np.ascontiguousarray(v[tex]).tobytes() if tex.any() else b"\0" * 56)
        self.tex_vao = ctx.vertex_array(self.prog_tex, [(self.tex_vbo, _FORMAT, *_ATTRS)])
        self._tex_n = int(tex.sum())
        self.sky_vao = ctx.vertex_array(self.sky, [])
        atlas = self.scene.atlas
        self.tex = ctx.texture(atlas.size, 4, np.ascontiguousarray(atlas.image).tobytes())
        self.tex.build_mipmaps()
        self.tex.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
        self.tex.repeat_x = self.tex.repeat_y = False
        sh = self.scene.shelter
        grid = sh if sh is not None else np.full((1, 1), -1e4, np.float32)
        self.shelter = ctx.texture((grid.shape[1], grid.shape[0]), 1, np.ascontiguousarray(grid).tobytes(), dtype="f4")
        self.shelter.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self.shelter.repeat_x = self.shelter.repeat_y = False
        self._shelter_size = (grid.shape[1] * self.scene.shelter_cell, grid.shape[0] * self.scene.shelter_cell)
        self._targets: dict[tuple[int, int], _Target] = {}
        self._dyn_key: Any = None
        self._dyn_vbo = self._dyn_vao = None
        self._dyn_n = 0
        self._part_vbo = self._part_vao = None
        self._lights: list = []
        self._history: dict = {}  # actor id -> its last lane offset (indicators)
        self._particles: tuple[np.ndarray, np.ndarray] = (np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32))

    # ---- per tick -----------------------------------------------------------------------------------
    def _prepare(self, state: WorldState, ego: ActorState | None, look: Look) -> None:
        """Actors, lamps, lights and particles of this tick, built once for every camera of the tick."""
        key = (state, look.dark, look.headlights, look.rain, look.snow)  # the state itself, held: an id() could be reused
        if self._dyn_key is not None and all(a is b or a == b for a, b in zip(key, self._dyn_key)):
            return
        origin = self.scene.origin
        near = (np.array([ego.x, ego.y, ego.z]) - origin) if ego is not None else np.zeros(3)
        verts, self._lights = build_dynamic(self.scene, state, self.network, look.dark, look.headlights, near,
                                            self._history)
        self._dyn_n = len(verts)
        data = verts.tobytes() if len(verts) else b"\0" * 56
        if self._dyn_vbo is None or self._dyn_vbo.size < len(data):
            self._dyn_vbo = self.ctx.buffer(reserve=max(len(data) * 2, 1 << 16))
            self._dyn_vao = self.ctx.vertex_array(self.prog, [(self._dyn_vbo, _PLAIN_FORMAT, *_PLAIN_ATTRS)])
        self._dyn_vbo.write(data)
        self._particles = _particles(state.time, near, look)
        self._dyn_key = key

    def _target(self, w: int, h: int) -> _Target:
        t = self._targets.get((w, h))
        if t is None:
            t = self._targets[(w, h)] = _Target(self.ctx, w, h)
        return t

    # ---- one camera -----------------------------------------------------------------------------------
    def render(self, cam: CameraSpec, state: WorldState, ego: ActorState | None,
               outputs: tuple[str, ...] = ("rgb",)) -> dict[str, np.ndarray]:
        """Images of `state` seen by `cam` on the ego: any of "rgb" (BGRA), "depth" (CARLA-encoded BGRA),
        "depth_m" (float32 metres), "semantic" (BGRA, tag in R), "tags" (uint8)."""
        bev = cam.type == "roadtest.bev"
        look = look_of(state.environment) if not bev else _BEV_LOOK
        self._prepare(state, ego, look)
        ex, ey, ez, eh = (ego.x, ego.y, ego.z, ego.h) if ego is not None else (0.0, 0.0, 0.0, 0.0)
        if bev:
            up = np.array([math.cos(eh), math.sin(eh), 0.0])
            pose = Pose3(pos=np.array([ex, ey, ez + 100.0]), fwd=np.array([0.0, 0.0, -1.0]),
                         right=np.array([math.sin(eh), -math.cos(eh), 0.0]), up=up)
            proj = orthographic(cam.size, cam.size * cam.height / cam.width, 100.0 - 5.0, 300.0)  # cut at 5 m: no roofs
        else:
            pose = camera_pose(cam, ex, ey, ez, eh)
            proj = perspective(cam, NEAR, FAR)
        view = view_matrix(pose, self.scene.origin)
        vp = (proj @ view).astype("f4")
        target = self._target(cam.width, cam.height)
        ctx = self.ctx
        target.all.use()
        ctx.viewport = (0, 0, cam.width, cam.height)
        ctx.enable(ctx.DEPTH_TEST)
        ctx.disable(ctx.BLEND)
        target.all.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)
        cam_pos = pose.pos - self.scene.origin
        for prog in (self.prog, self.prog_tex):
            self._surface_uniforms(prog, vp, cam_pos, pose.fwd, look, bev)
        self.tex.use(0)
        self.shelter.use(1)
        if self._dyn_n:
            self._dyn_vao.render(vertices=self._dyn_n)  # near things first: early depth tests spare the rest
        if self._tex_n:
            self.tex_vao.render(vertices=self._tex_n)
        self.static_vao.render()
        if not bev:
            self._sky(proj, view, look)
            self._draw_particles(target, vp, cam_pos, look, cam)
        out: dict[str, np.ndarray] = {}
        w, h = cam.width, cam.height
        if "rgb" in outputs:
            out["rgb"] = np.frombuffer(target.all.read(components=4, attachment=0), np.uint8).reshape(h, w, 4).copy()
            out["rgb"][..., 3] = 255  # CARLA's camera is always opaque; blended passes leave other alphas behind
        if "depth" in outputs or "depth_m" in outputs:
            d = np.frombuffer(target.all.read(components=1, attachment=1, dtype="f4"), np.float32).reshape(h, w)
            if "depth_m" in outputs:
                out["depth_m"] = d.copy()
            if "depth" in outputs:
                out["depth"] = encode_depth(d)
        if "semantic" in outputs or "tags" in outputs:
            t = np.frombuffer(target.all.read(components=1, attachment=2), np.uint8).reshape(h, w).copy()
            if "tags" in outputs:
                out["tags"] = t
            if "semantic" in outputs:
                out["semantic"] = tags_to_bgra(t)
        return out

    def _surface_uniforms(self, p, vp, cam_pos, fwd, look: Look, bev: bool) -> None:
        p["u_vp"].write(vp.T.tobytes())
        p["u_cam"].value = tuple(float(c) for c in cam_pos)
        p["u_fwd"].value = tuple(float(c) for c in fwd)
        p["u_sun_dir"].value = look.sun_dir
        p["u_sun_rgb"].value = look.sun_rgb
        p["u_ambient"].value = look.ambient
        p["u_fog_rgb"].value = look.fog_rgb
        p["u_fog"].value = 0.0 if bev else look.fog_density
        p["u_wet"].value = look.wet
        p["u_snow"].value = look.snow
        lights = self._lights if not bev else []
        p["u_nl"].value = len(lights)
        if lights:
            pad = [(0.0, 0.0, 0.0)] * (MAX_LIGHTS - len(lights))
            p["u_lpos"].value = [lt.pos for lt in lights] + pad
            p["u_ldir"].value = [lt.dir for lt in lights] + pad
            p["u_lrgb"].value = [lt.rgb for lt in lights] + pad
            p["u_lpar"].value = [(lt.cos_outer, lt.cos_inner, lt.range) for lt in lights] + pad
        if "u_atlas" in p:
            p["u_atlas"].value = 0
        p["u_shelter"].value = 1
        p["u_has_shelter"].value = int(self.scene.shelter is not None)
        p["u_sh_lo"].value = self.scene.shelter_lo
        p["u_sh_size"].value = self._shelter_size

    def _sky(self, proj, view, look: Look) -> None:
        rot = view.copy()
        rot[:3, 3] = 0.0
        inv = np.linalg.inv(proj @ rot).astype("f4")
        s = self.sky
        s["u_inv_vp_rot"].write(inv.T.tobytes())
        s["u_zenith"].value = look.sky_zenith
        s["u_horizon"].value = look.sky_horizon
        s["u_sun_dir"].value = look.sun_dir
        s["u_sun_rgb"].value = look.sun_rgb
        s["u_fog_rgb"].value = look.fog_rgb
        s["u_fog"].value = look.fog_density
        s["u_far"].value = FAR
        self.ctx.depth_func = "<="
        self.sky_vao.render(vertices=3)
        self.ctx.depth_func = "<"

    def _draw_particles(self, target: _Target, vp, cam_pos, look: Look, cam: CameraSpec) -> None:
        rain, snow = self._particles
        if not len(rain) and not len(snow):
            return
        import moderngl

        target.color_only.use()
        ctx = self.ctx
        ctx.enable(ctx.BLEND | ctx.PROGRAM_POINT_SIZE)
        ctx.blend_func = ctx.SRC_ALPHA, ctx.ONE_MINUS_SRC_ALPHA
        p = self.part
        p["u_vp"].write(vp.T.tobytes())
        p["u_cam"].value = tuple(float(c) for c in cam_pos)
        p["u_fog_rgb"].value = look.fog_rgb
        p["u_fog"].value = look.fog_density
        p["u_size"].value = 2.5 * cam.focal / 400.0
        data = np.concatenate([rain, snow]).astype("f4").tobytes()
        if self._part_vbo is None or self._part_vbo.size < len(data):
            self._part_vbo = ctx.buffer(reserve=max(len(data) * 2, 1 << 16))
            self._part_vao = ctx.vertex_array(p, [(self._part_vbo, "3f", "in_pos")])
        self._part_vbo.write(data)
        if len(rain):
            bright = 0.5 + 0.4 * float(np.mean(look.ambient))
            p["u_rgba"].value = (bright, bright, bright * 1.05, 0.32)
            self._part_vao.render(moderngl.LINES, vertices=len(rain))
        if len(snow):
            p["u_rgba"].value = (0.95, 0.95, 0.97, 0.9)
            self._part_vao.render(moderngl.POINTS, vertices=len(snow), first=len(rain))
        ctx.disable(ctx.BLEND | ctx.PROGRAM_POINT_SIZE)

    def release(self) -> None:
        """Free this renderer's GL objects (the context stays for the process's next run)."""
        for obj in (self.static_vao, self.static_vbo, self.tex_vao, self.tex_vbo, self.sky_vao, self.tex, self.shelter,
                    self._dyn_vao, self._dyn_vbo, self._part_vao, self._part_vbo, self.prog, self.prog_tex, self.sky,
                    self.part):
            if obj is not None:
                obj.release()
        for t in self._targets.values():
            for obj in (t.all, t.color_only, t.color, t.depth, t.tag, t.zbuf):
                obj.release()
        self._targets.clear()


_BEV_LOOK = look_of(Environment(cloudiness=0.2, sun_elevation=math.radians(60), sun_azimuth=math.radians(150), sun_intensity=1.0))


def _particles(time: float, near: np.ndarray, look: Look) -> tuple[np.ndarray, np.ndarray]:
    """Rain streaks (pairs of points) and snow flakes in a box around the ego, fixed in the world so they do not
    travel with the car; positions come from a fixed-seed generator and the time alone (deterministic)."""
    rain = np.zeros((0, 3), np.float32)
    snow = np.zeros((0, 3), np.float32)
    if look.rain > 0:
        n = int(5000 * look.rain)
        base = np.random.default_rng(7).random((n, 3))
        x = near[0] + (base[:, 0] * _BOX - near[0]) % _BOX - _BOX / 2
        y = near[1] + (base[:, 1] * _BOX - near[1]) % _BOX - _BOX / 2
        z = near[2] + (base[:, 2] * 12.0 - _RAIN_FALL * time) % 12.0
        top = np.column_stack([x, y, z])
        bottom = top + (0.05, 0.03, -0.55)
        rain = np.stack([top, bottom], axis=1).reshape(-1, 3)
    if look.snow > 0:
        n = int(6000 * look.snow)
        base = np.random.default_rng(11).random((n, 4))
        drift = 0.4 * np.sin(time * 0.8 + base[:, 3] * 6.28)
        x = near[0] + (base[:, 0] * _BOX + drift - near[0]) % _BOX - _BOX / 2
        y = near[1] + (base[:, 1] * _BOX - near[1]) % _BOX - _BOX / 2
        z = near[2] + (base[:, 2] * 12.0 - _SNOW_FALL * time) % 12.0
        snow = np.column_stack([x, y, z])
    return rain.astype(np.float32), snow.astype(np.float32)
