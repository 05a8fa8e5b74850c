"""Sign faces: every (sign, country) face renders with alpha, in its standard's shape, colours and aspect."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from roadtest.signs.catalogue import load_signs
from roadtest.errors import UserError
from roadtest.signs.faces import COUNTRIES, face_ids, sign_face, sign_meta, sign_shape

ALL = [(c, s) for c in COUNTRIES for s in face_ids(c)]
VALUE = {"speed_limit": 50, "minimum_speed": 60, "height_limit": 3.8, "weight_limit": 7.5}


def _red(px):
    return (px[..., 0] > 150) & (px[..., 1] < 90) & (px[..., 2] < 100)


def _blue(px):
    return (px[..., 2] > 120) & (px[..., 0] < 60) & (px[..., 2] > px[..., 1] + 40)


@pytest.mark.parametrize("country,sid", ALL)
def test_every_face_renders_with_alpha(country, sid):
    img = sign_face(sid, country, VALUE.get(sid), 96)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 4
    assert max(img.shape[:2]) == 96
    h, w = img.shape[:2]
    a = img[..., 3]
    assert a[h // 2, w // 2] == 255, "the board is opaque at its centre"
    assert a[0, 0] < 128 and a[0, -1] < 128, "transparent outside the board (corners are cut or rounded)"
    assert len(np.unique(img[a == 255][:, :3], axis=0)) >= 2, "a face has a legend or a border, not one flat colour"


def test_at_least_25_types_per_country():
    assert {c: len(face_ids(c)) >= 25 for c in COUNTRIES} == {c: True for c in COUNTRIES}


def test_aspect_follows_the_real_sign():
    # MUTCD R2-1 is 24 x 30 in; a Vienna triangle is equilateral (height = side * sqrt(3) / 2).
    assert sign_face("speed_limit", "US", 50, 250).shape[:2] == (250, 200)
    assert sign_face("yield", "DE", None, 200).shape[:2] == (round(200 * 3 ** 0.5 / 2), 200)
    assert sign_face("speed_limit", "DE", 50, 200).shape[:2] == (200, 200)
    assert sign_shape("speed_limit", "US") == "rectangle" and sign_shape("stop", "US") == "octagon"
    assert sign_shape("stop", "JP") == "inverted_triangle"        # 止まれ
    assert sign_shape("work_zone", "US") == sign_shape("work_zone", "JP") == "diamond"
    assert sign_shape("work_zone", "CN") == sign_shape("work_zone", "DE") == "triangle"
    assert sign_shape("school_zone", "US") == "pentagon"          # MUTCD S1-1


def test_colours_follow_each_standard():
    de = sign_face("speed_limit", "DE", 50, 128)
    jp = sign_face("speed_limit", "JP", 50, 128)
    opaque = lambda im: im[im[..., 3] == 255][:, :3]
    assert _red(opaque(de)).mean() > 0.15 and _blue(opaque(de)).mean() < 0.001   # red ring, black digits
    assert _blue(opaque(jp)).mean() > 0.03                                         # Japan's digits are blue
    us_stop = opaque(sign_face("stop", "US", None, 128))
    assert _red(us_stop).mean() > 0.6
    cn_warn = opaque(sign_face("slippery_road", "CN", None, 128))
    de_warn = opaque(sign_face("slippery_road", "DE", None, 128))
    yellow = lambda px: (px[..., 0] > 200) & (px[..., 1] > 150) & (px[..., 2] < 80)
    assert yellow(cn_warn).mean() > 0.4 and yellow(de_warn).mean() < 0.01 and _red(de_warn).mean() > 0.2
    assert _blue(opaque(sign_face("keep_right", "JP", None, 128))).mean() > 0.5   # blue mandatory disc


CJK_LEGENDS = ("CN", "JP")  # countries whose faces carry hanzi / kanji legends (a CJK font draws them)


@pytest.mark.parametrize("country", [pytest.param(c, marks=pytest.mark.system("cjk-font")) if c in CJK_LEGENDS else c
                                     for c in COUNTRIES])
def test_distinct_signs_have_distinct_faces(country):
    faces = {}
    for sid in face_ids(country):
        m = sign_meta(sid, country)
        faces.setdefault((m["type"], m["subtype"]), sign_face(sid, country, VALUE.get(sid), 96))
    keys = list(faces)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            fa, fb = faces[a], faces[b]
            if fa.shape == fb.shape:
                assert np.abs(fa.astype(int) - fb.astype(int)).mean() > 1.0, (country, a, b)


@pytest.mark.parametrize("country", COUNTRIES)
def test_speed_limit_faces_differ_by_value(country):
    faces = [sign_face("speed_limit", country, v, 96) for v in (30, 60, 100)]
    for i in range(3):
        for j in range(i + 1, 3):
            assert not np.array_equal(faces[i], faces[j])


def test_us_and_gb_faces_show_mph():
    # 50 km/h = 31.1 mph and 52 km/h = 32.3 mph both round to a 30 mph sign; 60 km/h = 37.3 mph -> 35.
    for c in ("US", "GB"):
        assert np.array_equal(sign_face("speed_limit", c, 50), sign_face("speed_limit", c, 52))
        assert not np.array_equal(sign_face("speed_limit", c, 50), sign_face("speed_limit", c, 60))
    assert not np.array_equal(sign_face("speed_limit", "DE", 50), sign_face("speed_limit", "DE", 52))


def test_deterministic_cached_and_read_only():
    a = sign_face("stop", "JP", None, 128)
    assert sign_face("stop", "JP", None, 128) is a
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0, 0] = 1
    code = ("from roadtest.signs.faces import sign_face; import hashlib; "
            "print(hashlib.sha256(sign_face('stop', 'JP', None, 128).tobytes()).hexdigest())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == hashlib.sha256(a.tobytes()).hexdigest()


def test_bad_arguments_are_user_errors():
    with pytest.raises(UserError, match="country 'XX'"):
        sign_face("stop", "XX")
    with pytest.raises(UserError, match="unknown sign id 'stopp'"):
        sign_face("stopp", "DE")
    with pytest.raises(UserError, match="no DE face"):
        sign_face("no_left_turn", "DE")   # StVO has no such disc
    with pytest.raises(UserError, match="px="):
        sign_face("stop", "DE", None, 2)
    assert set(load_signs()) >= {sid for _, sid in ALL}
