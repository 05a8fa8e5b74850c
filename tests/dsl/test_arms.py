"""Junction arms (`arm: left | right | opposite`): actors, signs and crosswalks on the right road, where a hand
calculation puts them, and clear errors where a road has no such arm."""

from __future__ import annotations

import json
import math
import textwrap

import pytest

from roadtest.dsl.model import Scenario
from roadtest.dsl.roads_build import build_layout
from roadtest.dsl.roads_scene import place_scene, resolve_places
from roadtest.dsl.validate import check_file

# intersection, one lane each way, 3.5 m lanes: the arms start R = 1 * 3.5 + 2 (sidewalk) + 4 = 9.5 m from the
# centre; the ego's approach comes from the south (heading north), the left arm lies west, the right arm east,
# the opposite arm north. Each arm is L = 130 m long.
R, L, W = 9.5, 130.0, 3.5


def scenario(country: str, actors: list[dict], kind: str = "intersection", **road) -> Scenario:
    return Scenario.model_validate({
        "name": "arms", "country": country,
        "road": {"kind": kind, "length": L, "lanes": {"forward": 1, "backward": 1, "width": W}, **road},
        "ego": {"lane": 1, "s": 10, "speed": 30, "route": {"exit": "right" if kind == "t_junction" else "straight"}},
        "actors": actors})


@pytest.mark.parametrize("country", ["DE", "JP"])
def test_actors_on_arms_start_where_a_hand_calculation_puts_them(country):
    keep = -1.0 if country == "DE" else 1.0  # the incoming lane's side of the arm's axis (right-hand: its driver's right)
    sc = scenario(country, [
        {"id": "west", "kind": "vehicle", "place": {"lane": 1, "s": 60, "arm": "left"}},
        {"id": "east", "kind": "vehicle", "place": {"lane": 1, "s": 100, "arm": "right"}},
        {"id": "north", "kind": "vehicle", "place": {"lane": 1, "s": 100, "arm": "opposite"}},
        {"id": "west2", "kind": "vehicle", "place": {"behind": "west", "distance": 20}},
        {"id": "leaving", "kind": "vehicle", "place": {"lane": -1, "s": 100, "arm": "right"}},
        {"id": "ped", "kind": "pedestrian", "place": {"side": "kerb", "s": 120, "arm": "opposite"}}])
    spots = resolve_places(sc, build_layout(sc))
    d = W / 2
    # 60 m from the west arm's outer end is L - 60 = 70 m out from the junction, driving east
    expect = {"west": (-(R + 70), keep * d, 0.0, "4"), "west2": (-(R + 90), keep * d, 0.0, "4"),
              "east": (R + 30, -keep * d, math.pi, "2"), "north": (keep * d, R + 30, -math.pi / 2, "3"),
              "leaving": (R + 30, keep * d, 0.0, "2")}
    for aid, (x, y, h, road) in expect.items():
        sp = spots[aid]
        assert (round(sp.x, 6), round(sp.y, 6), str(sp.road)) == (round(x, 6), round(y, 6), road), aid
        assert abs(math.remainder(sp.h - h, 2 * math.pi)) < 1e-9, aid
    # a kerb on the north arm 10 m out: the southbound driver's kerb, a lane plus half the sidewalk off the axis
    ped = spots["ped"]
    assert (round(ped.x, 6), round(ped.y, 6)) == (round(keep * (W + 1.0), 6), R + 10)


def test_signs_and_crosswalks_on_arms_face_the_arms_own_traffic():
    sc = scenario("CN", [], signs=[{"id": "yield", "s": 120, "side": "kerb", "arm": "right"}],
                  crosswalks=[{"s": 125, "arm": "left", "width": 4}])
    layout = build_layout(sc)
    scene = place_scene(sc, layout)
    (sign,) = scene["signs"]
    # the east arm (road 2) runs outward from the junction: 120 m from its end is 10 m along it, facing -s,
    # on the westbound driver's kerb (north, +t): one lane plus half the sidewalk
    assert (sign["road"], sign["s"], sign["direction"], sign["t"]) == ("2", 10.0, "backward", W + 1.0)
    (sig,) = layout.pieces[2].signals
    assert sig["orientation"] == "-"
    (cw,) = scene["crosswalks"]
    assert (cw["road"], cw["s_start"], cw["s_end"]) == ("4", 3.0, 7.0)


def _problems(tmp_path, body: str) -> list[str]:
    f = tmp_path / "s.yaml"
    f.write_text(textwrap.dedent(body))
    return [str(p) for p in check_file(f)]


HEAD = """\
name: bad
country: DE
road: {{kind: {kind}, length: 130, lanes: {{forward: 1, backward: 1}}}}
ego: {{lane: 1, s: 10, speed: 30, route: {route}}}
"""


@pytest.mark.parametrize("kind, route, actor, expected", [
    ("straight", "{distance: 100}", "{lane: 1, s: 50, arm: left}", "actors.0.place.arm: a straight road has no junction arms"),
    ("t_junction", "{exit: right}", "{lane: 1, s: 50, arm: opposite}", "actors.0.place.arm: a t_junction has no 'opposite' arm"),
    ("intersection", "{exit: straight}", "{lane: 2, s: 50, arm: left}", "actors.0.place.lane: lane 2 does not exist"),
    ("intersection", "{exit: straight}", "{ahead_of: ego, distance: 30, arm: left}", "a relative placement takes no lane, side, s or arm"),
])
def test_arm_errors_name_the_field(tmp_path, kind, route, actor, expected):
    body = HEAD.format(kind=kind, route=route) + f"actors:\n  - {{id: car, kind: vehicle, place: {actor}}}\n"
    got = _problems(tmp_path, body)
    assert any(expected in p and ":6:" in p for p in got), got  # the actor item is line 6


def test_sign_arm_on_a_road_without_arms_is_an_error(tmp_path):
    body = HEAD.format(kind="straight", route="{distance: 100}").replace(
        "backward: 1}}", "backward: 1}, signs: [{id: yield, s: 50, arm: right}]}")
    got = _problems(tmp_path, body)
    assert any("road.signs.0.arm: a straight road has no junction arms" in p for p in got), got


def test_bundle_puts_the_arm_actor_on_its_lane_position(tmp_path):
    from roadtest.dsl.convert import convert_command

    f = tmp_path / "s.yaml"
    f.write_text(HEAD.format(kind="intersection", route="{exit: straight}").replace("country: DE", "country: US")
                 + "actors:\n  - {id: car, kind: vehicle, place: {lane: 1, s: 60, arm: left}, speed: 30}\n")
    convert_command(str(f), str(tmp_path / "out"))
    (bundle,) = list((tmp_path / "out").iterdir())
    xosc = (bundle / "scenario.xosc").read_text()
    # right-hand traffic: the arm's lanes toward the junction are its left lanes (+1), 70 m out along road 4
    assert '<LanePosition roadId="4" laneId="1" s="70.0"' in xosc
    meta = json.loads((bundle / "meta.json").read_text())
    (car,) = meta["scene"]["actors"]
    assert (car["start"]["road"], car["start"]["lane"], car["start"]["s"]) == ("4", 1, 70.0)


def test_an_arms_lanes_toward_the_junction_are_the_approachs_backward_lanes():
    # one lane toward the junction on the approach, two away from it: so two toward it on every other arm
    sc = Scenario.model_validate({
        "name": "arms", "country": "DE",
        "road": {"kind": "intersection", "length": L, "lanes": {"forward": 1, "backward": 2, "width": W}},
        "ego": {"lane": 1, "s": 10, "speed": 30, "route": {"exit": "straight"}},
        "actors": [{"id": "a", "kind": "vehicle", "place": {"lane": 1, "s": 60, "arm": "left"}},
                   {"id": "b", "kind": "vehicle", "place": {"right_of": "a", "distance": 10}}]})
    spots = resolve_places(sc, build_layout(sc))
    r = 2 * W + 2.0 + 4.0  # the junction radius grows with the wider side: 2 lanes * 3.5 + sidewalk + 4
    # b: the eastbound driver's right of lane 1 is lane 2, 10 m further along (toward the junction), 1.5 lanes south
    assert (spots["b"].user_lane, spots["b"].lane, str(spots["b"].road)) == (2, 2, "4")
    assert (round(spots["b"].x, 6), round(spots["b"].y, 6)) == (round(-(r + 60), 6), -1.5 * W)


def test_layout_place_refuses_an_arm_the_road_lacks():
    from roadtest.errors import FieldError

    straight = Scenario.model_validate({"name": "s", "road": {"kind": "straight", "length": 100},
                                        "ego": {"lane": 1, "s": 10, "route": {"distance": 50}}})
    with pytest.raises(FieldError, match="a straight road has no junction arms") as e:
        build_layout(straight).place("left", 10.0, 1, field="actors.0.place.arm")
    assert e.value.field == "actors.0.place.arm"
    tee = build_layout(scenario("DE", [], kind="t_junction"))
    with pytest.raises(FieldError, match="a t_junction has no 'opposite' arm"):
        tee.place("opposite", 10.0, 1)
    # the approach is the main road: main-road s and the forward lane's OpenDRIVE id (right-hand: -1)
    assert tee.place(None, 30.0, 1) == (1, 30.0, -1)
    assert tee.place("right", 30.0, 1) == (2, L - 30.0, 1)
