"""One placement resolver: conversion puts every actor where validation's resolve_placements says, and refuses
what it refuses (a lane beside the outermost one is no lane, not the shoulder)."""

from __future__ import annotations

import pytest

from roadtest.dsl.model import Scenario, resolve_placements
from roadtest.dsl.roads_build import build_layout
from roadtest.dsl.roads_scene import resolve_places
from roadtest.errors import UserError

BASE = {"name": "p", "road": {"kind": "straight", "length": 300, "lanes": {"forward": 2, "backward": 1}},
        "ego": {"lane": 1, "s": 100, "speed": 30, "route": {"distance": 50}}}


def scenario(country: str, actors: list[dict]) -> Scenario:
    return Scenario.model_validate({**BASE, "country": country, "actors": actors})


@pytest.mark.parametrize("country", ["DE", "JP"])
def test_conversion_places_actors_where_validation_resolves_them(country):
    actors = [{"id": "a", "kind": "vehicle", "place": {"ahead_of": "ego", "distance": 30}},
              {"id": "b", "kind": "vehicle", "place": {"left_of": "a", "distance": 5}},
              {"id": "c", "kind": "vehicle", "place": {"lane": -1, "s": 200}},
              {"id": "d", "kind": "vehicle", "place": {"ahead_of": "c", "distance": 20}},
              {"id": "e", "kind": "pedestrian", "place": {"side": "right", "s": 150}}]
    sc = scenario(country, actors)
    spots = resolve_places(sc, build_layout(sc))
    # by hand: ahead 30 m of the ego at s 100; the oncoming car's "ahead" is towards smaller s
    assert (spots["a"].user_lane, spots["a"].main_s) == (1, 130.0)
    assert (spots["d"].user_lane, spots["d"].main_s) == (-1, 180.0)
    # the driver's left of forward lane 1 is the oncoming lane in right-hand traffic, lane 2 in left-hand
    assert (spots["b"].user_lane, spots["b"].main_s) == ((-1 if country == "DE" else 2), 135.0)
    assert spots["e"].lane is None and spots["e"].main_s == 150.0
    for aid, (lane, _side, s) in resolve_placements(sc).items():
        spot = spots["hero" if aid == "ego" else aid]
        assert (spot.user_lane, spot.main_s) == (lane, s)


@pytest.mark.parametrize("country, rel", [("DE", "right_of"), ("JP", "left_of")])
def test_beside_the_outermost_lane_is_refused_not_put_on_the_shoulder(country, rel):
    sc = scenario(country, [{"id": "x", "kind": "vehicle", "place": {"lane": 2, "s": 50}},
                            {"id": "y", "kind": "vehicle", "place": {rel: "x", "distance": 5}}])
    assert "y" not in resolve_placements(sc)
    with pytest.raises(UserError, match="cannot place y"):
        resolve_places(sc, build_layout(sc))
