"""The road model on roadtest's own emitted roads (dsl convert): neighbours, marks, routes, signals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from roadtest.sim.road import load_map


def _bundle(repo_root, tmp_path_factory, name: str):
    from roadtest.cli import main

    src = repo_root / "scenarios" / f"{name}.yaml"
    if not src.is_file():
        pytest.skip(f"{src} is not in this checkout")
    out = tmp_path_factory.mktemp(name)
    assert main(["convert", str(src), "-o", str(out)]) == 0
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return load_map(folder / "road.xodr"), json.loads((folder / "meta.json").read_text())


def test_solid_centre_line_forbids_crossing_on_emitted_road(repo_root, tmp_path_factory):
    net, meta = _bundle(repo_root, tmp_path_factory, "fog_truck_solid_line")
    start = meta["ego"]["start"]
    road, lane, s = start["road"], start["lane"], start["s"]
    side = "left" if meta["driving_side"] == "right" else "right"
    towards_centre, mark = net.neighbours(road, lane, s + 50)[side]
    assert towards_centre is not None and net.lane_direction(road, towards_centre) != net.lane_direction(road, lane)
    assert mark.type.startswith("solid") and not net.lane_change_allowed(road, lane, s + 50, side)
    p = net.lane_to_world(road, lane, s)
    assert (p.x, p.y) == pytest.approx((start["x"], start["y"]), abs=0.01)


def test_route_through_emitted_junction_matches_meta(repo_root, tmp_path_factory):
    net, meta = _bundle(repo_root, tmp_path_factory, "red_light_intersection")
    st, goal = meta["ego"]["start"], meta["route"]["goal"]
    r = net.route((st["road"], st["lane"], st["s"]), (goal["road"], goal["lane"], goal["s"]))
    assert [(g.road, g.lane) for g in r] == [(g["road"], g["lane"]) for g in meta["route"]["lanes"]]
    assert any(net.junction_of(g.road) is not None for g in r)
    # every emitted waypoint lies on one of the route's lanes
    on = {(g.road, g.lane) for g in r}
    for m in net.locate_many(np.array(meta["route"]["waypoints"])):
        assert m is not None and m.on_road and abs(m.offset) < 0.05
        assert (m.road, m.lane) in on or m.junction is not None
    ahead = net.signals_for(st["road"], st["lane"], st["s"], ahead=200.0)
    assert any(sg.dynamic for sg, _ in ahead), "the traffic light governing the approach is found"
