"""Traffic signs CARLA does not draw, shown as street-sign props re-textured at run time with roadtest's faces.

CARLA builds meshes from OpenDRIVE signals only for stop (206), yield (205), speed limits (274) and traffic
lights; every other <signal> of the bundle gets a `static.prop.streetsign*` at its pose whose diffuse texture
becomes the sign face of roadtest.signs (the same country's faces as in the built-in backend's camera). The
.xodr keeps the signal for the rules: a prop carries no meaning in CARLA (not a landmark, not obeyed by the TM).
Which object name a spawned prop gets, and that its UVs show the whole board, must be checked on a server.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from roadtest.sim.frames import location_to_carla, yaw_to_carla

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["CARLA_DRAWN_TYPES", "SIGN_PROP", "SignProp", "sign_props", "face_texture", "texture_color", "spawn_sign_props"]

CARLA_DRAWN_TYPES = frozenset({"205", "206", "274"})  # yield, stop, speed limit: CARLA's own meshes
SIGN_PROP = "static.prop.streetsign"
BOARD_RGB = (200, 200, 200)  # grey of the board behind a face's transparent corners
TEXTURE_PX = 256  # TextureColor is filled one pixel per RPC-side call: keep faces small


@dataclass(frozen=True)
class SignProp:
    """One prop to spawn: the sign's roadtest id, its face parameters and its pose (roadtest frame)."""

    signal_id: str
    sign_id: str
    country: str
    value: float | None
    x: float  # m
    y: float  # m
    z: float  # m, road height at the pole foot
    h: float  # rad, the direction the face looks to (towards oncoming traffic)


def _is_light(sg: Any) -> bool:
    return bool(sg.dynamic) or str(sg.type).startswith("1000")


def sign_props(network: RoadNetworkAPI) -> list[SignProp]:
    """Props for every static signal CARLA would not draw and roadtest has a face for, in signal id order."""
    from roadtest.signs.faces import sign_id_for_code

    props = []
    for sid in sorted(network.signals):
        sg = network.signals[sid]
        if _is_light(sg) or str(sg.type) in CARLA_DRAWN_TYPES:
            continue
        sign_id = sign_id_for_code(sg.country, str(sg.type), str(sg.subtype))
        if sign_id is None:
            continue
        pose = network.road_to_world(sg.road, sg.s, sg.t)
        # a "+" signal faces traffic driving with increasing s, i.e. it looks against the road heading
        facing = pose.h + math.pi if sg.orientation != "-" else pose.h
        props.append(SignProp(sid, sign_id, sg.country.upper(), sg.value, pose.x, pose.y, pose.z,
                              math.remainder(facing, math.tau)))
    return props


def face_texture(prop: SignProp, px: int = TEXTURE_PX, board: tuple[int, int, int] = BOARD_RGB) -> np.ndarray:
    """The prop's texture as an opaque px x px RGB uint8 image: the face centred on the board colour, its alpha
    composited over the board (a texture has no use for transparency on a solid board)."""
    from roadtest.signs.faces import sign_face

    face = sign_face(prop.sign_id, prop.country, prop.value, px).astype(np.float64)
    out = np.empty((px, px, 3), dtype=np.float64)
    out[:] = board
    fh, fw = face.shape[:2]
    y0, x0 = (px - fh) // 2, (px - fw) // 2
    alpha = face[..., 3:4] / 255.0
    out[y0:y0 + fh, x0:x0 + fw] = face[..., :3] * alpha + out[y0:y0 + fh, x0:x0 + fw] * (1.0 - alpha)
    return np.rint(out).astype(np.uint8)


def texture_color(carla: Any, rgb: np.ndarray):
    """A carla.TextureColor of an H x W x 3 image; pixel (x, y) of the image, row 0 on top, is texel (x, y), as
    CARLA's texture-streaming tutorial fills it."""
    h, w = rgb.shape[:2]
    tex = carla.TextureColor(w, h)
    for y in range(h):
        row = rgb[y]
        for x in range(w):
            r, g, b = (int(c) for c in row[x])
            tex.set(x, y, carla.Color(r, g, b, 255))
    return tex


def spawn_sign_props(carla: Any, world: Any, props: list[SignProp]) -> list[Any]:
    """Spawn and re-texture each prop (server side); the new object name is found by diffing the world's object
    names before and after the spawn. Returns the spawned actors (the caller destroys them)."""
    bp = world.get_blueprint_library().find(SIGN_PROP)
    actors = []
    for prop in props:
        before = set(world.get_names_of_all_objects())
        x, y, z = location_to_carla(prop.x, prop.y, prop.z)
        tf = carla.Transform(carla.Location(x=x, y=y, z=z), carla.Rotation(yaw=yaw_to_carla(prop.h)))
        actor = world.try_spawn_actor(bp, tf)
        if actor is None:
            continue
        actors.append(actor)
        world.tick()
        new = sorted(set(world.get_names_of_all_objects()) - before)
        if new:
            tex = texture_color(carla, face_texture(prop))
            for name in new:
                world.apply_color_texture_to_object(name, carla.MaterialParameter.Diffuse, tex)
    return actors
