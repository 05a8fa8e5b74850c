"""The ego may start in a highway_merge's acceleration lane (lane forward + 1, from merge_s for the ramp's
length); its route then merges into the outermost main lane. Elsewhere lane forward + 1 is still refused."""

from __future__ import annotations

import json

import pytest

from roadtest.dsl.validate import check_file

SCENE = """\
name: t
country: {country}
road: {{kind: highway_merge, length: 320, lanes: {{forward: 2, backward: 1, width: 3.5}}, speed_limit: 80,
        ramp: {{merge_s: 80, length: 160}}}}
ego: {{lane: {lane}, s: {s}, speed: 40, route: {{distance: {dist}}}}}
"""


def _write(tmp_path, country="CN", lane=3, s=110, dist=150):
    p = tmp_path / "t.yaml"
    p.write_text(SCENE.format(country=country, lane=lane, s=s, dist=dist))
    return p


def test_accepted_in_the_acceleration_lane(tmp_path):
    assert check_file(_write(tmp_path)) == []


@pytest.mark.parametrize("s", [60, 240])  # before merge_s; at merge_s + length, where the taper begins
def test_refused_outside_it_with_line_and_field(tmp_path, s):
    (p,) = check_file(_write(tmp_path, s=s, dist=50))
    assert p.line == 5 and "ego.lane" in p.field and "acceleration lane, from s 80 to 240 m" in p.message


def test_refused_on_other_roads(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text("name: t\ncountry: CN\nroad: {kind: straight, length: 300, lanes: {forward: 2, backward: 1}}\n"
                 "ego: {lane: 3, s: 20, speed: 30, route: {distance: 200}}\n")
    (prob,) = check_file(p)
    assert "lane 3 does not exist" in prob.message


@pytest.mark.parametrize("country, side", [("CN", -1), ("JP", 1)])  # right-hand traffic: OpenDRIVE lanes are negative
def test_route_merges_into_the_outer_main_lane(tmp_path, country, side):
    from roadtest.dsl.convert import convert_command

    convert_command(_write(tmp_path, country=country), tmp_path / "b")
    (meta_path,) = (tmp_path / "b").glob("*/meta.json")
    meta = json.loads(meta_path.read_text())
    start = meta["ego"]["start"]
    lanes = meta["route"]["lanes"]
    assert [(seg["road"], seg["lane"]) for seg in lanes] == [("3", 2 * side)]  # main lane 2, on the road after the merge
    assert lanes[0]["s_end"] - lanes[0]["s_start"] == pytest.approx(150.0)  # the route's distance
    assert (start["road"], start["lane"]) == ("3", 3 * side)  # and the ego stands in the acceleration lane beside it
