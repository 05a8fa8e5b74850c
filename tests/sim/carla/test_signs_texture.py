"""Sign props for the signals CARLA does not draw, and their textures from roadtest's faces (no server)."""

from __future__ import annotations

import math

import numpy as np

from roadtest.bundle import load_bundle
from roadtest.signs.faces import sign_face
from roadtest.sim.carla.signs import BOARD_RGB, SignProp, face_texture, sign_props, texture_color
from roadtest.sim.road import load_map


def test_props_for_signs_carla_does_not_draw(smoke_bundles):
    fog = load_bundle(smoke_bundles["fog-truck-solid-line"])
    props = sign_props(load_map(fog.xodr))
    # the .xodr holds no_overtaking (s 40) and fog_warning (s 25), both CN, t = -4.5, orientation "+"
    assert sorted(p.sign_id for p in props) == ["fog_warning", "no_overtaking"]
    for p in props:
        assert p.country == "CN"
        assert math.cos(p.h) < -0.99  # faces traffic driving along +s on a road heading east: looks west
    stop = load_bundle(smoke_bundles["stop-sign-t-junction"])
    assert all(p.sign_id != "stop" for p in sign_props(load_map(stop.xodr)))  # CARLA draws 206 itself


def test_face_texture_composites_alpha_over_the_board():
    prop = SignProp("1", "no_overtaking", "CN", None, 0.0, 0.0, 0.0, 0.0)
    tex = face_texture(prop, px=64)
    face = sign_face("no_overtaking", "CN", None, 64)
    assert tex.shape == (64, 64, 3) and tex.dtype == np.uint8
    fh, fw = face.shape[:2]
    y0, x0 = (64 - fh) // 2, (64 - fw) // 2
    opaque = np.argwhere(face[..., 3] == 255)[0]
    clear = np.argwhere(face[..., 3] == 0)[0]  # a corner outside the round sign
    assert tuple(tex[y0 + opaque[0], x0 + opaque[1]]) == tuple(face[opaque[0], opaque[1], :3])
    assert tuple(tex[y0 + clear[0], x0 + clear[1]]) == BOARD_RGB
    half = np.argwhere((face[..., 3] > 60) & (face[..., 3] < 200))
    if len(half):
        y, x = half[0]
        a = face[y, x, 3] / 255.0
        want = np.rint(face[y, x, :3] * a + np.array(BOARD_RGB) * (1 - a))
        assert np.abs(tex[y0 + y, x0 + x].astype(int) - want).max() <= 1


def test_texture_color_keeps_rows_and_columns(real_carla):
    img = np.zeros((3, 5, 3), dtype=np.uint8)
    img[0, 4] = (255, 0, 0)  # top right red
    img[2, 0] = (0, 0, 255)  # bottom left blue
    tex = texture_color(real_carla, img)
    assert (tex.width, tex.height) == (5, 3)
    tr, bl = tex.get(4, 0), tex.get(0, 2)
    assert (tr.r, tr.g, tr.b, tr.a) == (255, 0, 0, 255) and (bl.r, bl.g, bl.b) == (0, 0, 255)
