"""Sides are the driver's: kerb is the roadside by the driver's own lane, in left- and right-hand traffic alike.

Expected positions come from the road itself: with one 3.5 m lane each way and a 2 m sidewalk, a
roadside point stands at |t| = 3.5 + 1.0 = 4.5 m from the reference line; forward traffic drives on
t < 0 in right-hand traffic (OpenDRIVE lanes -1, ...) and on t > 0 in left-hand traffic (JP).
"""

from __future__ import annotations

import pytest

from roadtest.cli import main
from roadtest.dsl.bundle_writer import build_bundle_parts
from roadtest.dsl.loader import load_variants

SCENE = """\
name: sides
country: {country}
road:
  kind: straight
  length: 200
  lanes: {{forward: 1, backward: 1, width: 3.5}}
  signs:
    - {{id: speed_limit, s: 40, value: 40, side: {side}}}
    - {{id: speed_limit, s: 60, value: 40, side: {side}, direction: backward}}
  traffic_lights:
    - {{id: {light}, s: 120, side: {side}, phases: [{{state: green, duration: 10}}]}}
ego: {{lane: 1, s: 20, speed: 30, route: {{distance: 150}}}}
"""


def scene(tmp_path, country: str, side: str, light: str = "light"):
    f = tmp_path / f"{country}-{side}.yaml"
    f.write_text(SCENE.format(country=country, side=side, light=light))
    _, _, sc, _, _ = build_bundle_parts(load_variants(f)[0])
    return sc


@pytest.mark.parametrize("country, kerb_t", [("DE", -4.5), ("US", -4.5), ("JP", 4.5)])
def test_kerb_is_the_drivers_own_roadside(tmp_path, country, kerb_t):
    sc = scene(tmp_path, country, "kerb")
    fwd, bwd = sc["signs"]
    assert fwd["t"] == pytest.approx(kerb_t) and bwd["t"] == pytest.approx(-kerb_t)  # backward faces the other way
    far = scene(tmp_path, country, "far")
    assert far["signs"][0]["t"] == pytest.approx(-kerb_t)


def test_default_side_is_the_kerb(tmp_path):
    f = tmp_path / "d.yaml"
    f.write_text(SCENE.format(country="JP", side="kerb", light="light").replace(", side: kerb", ""))
    _, _, sc, _, _ = build_bundle_parts(load_variants(f)[0])
    assert sc["signs"][0]["t"] == pytest.approx(4.5)


def test_left_and_right_are_the_drivers(tmp_path):
    # in JP the driver's right is across the oncoming lane; in DE it is the kerb
    assert scene(tmp_path, "JP", "right")["signs"][0]["t"] == pytest.approx(-4.5)
    assert scene(tmp_path, "DE", "right")["signs"][0]["t"] == pytest.approx(-4.5)
    assert scene(tmp_path, "JP", "left")["signs"][0]["t"] == pytest.approx(4.5)


def test_light_head_on_the_kerb_in_jp(tmp_path):
    f = tmp_path / "l.yaml"
    f.write_text(SCENE.format(country="JP", side="kerb", light="light"))
    v = load_variants(f)[0]
    layout, *_ = build_bundle_parts(v)
    heads = [sg for p in layout.pieces.values() for sg in p.signals if sg.get("dynamic")]
    assert [h["t"] for h in heads] == [pytest.approx(4.5)]


def test_compose_jp_puts_signs_on_the_kerb(tmp_path):
    out = tmp_path / "c.yaml"
    assert main(["compose", "speed_limit", "--country", "JP", "-o", str(out)]) == 0
    v = load_variants(out)[0]
    _, _, sc, _, _ = build_bundle_parts(v)
    assert sc["signs"] and all(s["t"] > 0 for s in sc["signs"] if s["direction"] == "forward"), sc["signs"]


def test_shipped_jp_scenarios_put_signs_on_the_kerb():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "scenarios"
    checked = 0
    for f in sorted(root.rglob("*.yaml")):
        if "JP" not in f.read_text():
            continue
        try:
            variants = load_variants(f)
        except Exception:  # suites and files without a JP variant of their own
            continue
        for v in variants:
            if v.scenario.country != "JP":
                continue
            layout, _, sc, _, _ = build_bundle_parts(v)
            for sg in sc["signs"]:
                if sg["side"] == "overhead":
                    continue
                kerb_is_left = (sg["direction"] == "forward") == (layout.fwd_sign > 0)
                assert (sg["t"] > 0) == kerb_is_left, (f.name, sg)
                checked += 1
    assert checked >= 3
