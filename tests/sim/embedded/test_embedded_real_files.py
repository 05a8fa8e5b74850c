"""The built-in simulator on real OpenSCENARIO/OpenDRIVE files (../shared/conformance): the conformance check with
an agent-driven ego, traffic through junctions, and run_bundle's esmini-compatible trace."""

from __future__ import annotations

import csv
import math

import pytest

from roadtest.bundle import Bundle, load_bundle
from roadtest.sim.api import Control, SimSettings, Termination
from roadtest.sim.conformance import check_backend
from roadtest.sim.embedded import EmbeddedSimulator, run_bundle

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def xosc_dir(conformance_dir):
    return conformance_dir / "esmini" / "resources" / "xosc"


def test_the_real_engine_passes_the_backend_conformance_check(xosc_dir):
    bundle = load_bundle(xosc_dir / "cut-in_simple.xosc")
    info = check_backend(EmbeddedSimulator(), bundle, steps=80, seed=5)
    assert info["steps"] == 81


def test_an_agent_driven_ego_leaves_its_storyboard_path_and_others_keep_theirs(xosc_dir):
    bundle = load_bundle(xosc_dir / "straight_500m.xosc")
    free = EmbeddedSimulator().load(bundle, 1, SimSettings(max_time=3.0))
    driven = EmbeddedSimulator().load(bundle, 1, SimSettings(max_time=3.0))
    while not free.done:
        free.step(None)
        driven.step(Control(brake=1.0))
    a, b = free.state, driven.state
    assert b.ego.speed == 0.0 < a.ego.speed
    assert b.ego.x < a.ego.x - 10.0
    others = [x.id for x in a.actors if x.role != "ego"]
    assert others and all(a.actor(i).x == b.actor(i).x for i in others)


def test_background_traffic_crosses_junctions_of_a_real_town_without_colliding(xosc_dir):
    base = load_bundle(xosc_dir / "traffic_lights.xosc")
    bundle = Bundle(base.root, base.xosc, base.xodr, {"traffic": {"density": 10, "seed": 2}})
    sim = EmbeddedSimulator().load(bundle, 0, SimSettings(max_time=20.0))
    roads: dict[str, set] = {}
    collisions = []
    while not sim.done:
        st = sim.step(None)
        for a in st.actors:
            if a.role == "background":
                roads.setdefault(a.id, set()).add(a.lane.road)
        collisions += [e for e in st.events if e.kind == "collision" and e.actor in roads and e.other in roads]
    through = [i for i, rs in roads.items() if any(sim.network.junction_of(r) is not None for r in rs)]
    assert len(roads) >= 5
    assert len(through) >= 2  # drove onto junction connecting roads and on along the lane graph
    assert not collisions, collisions[:3]


def test_run_bundle_trace_csv_has_esmini_columns_and_reference_points(xosc_dir, conformance_dir, tmp_path):
    trace = run_bundle(load_bundle(xosc_dir / "slow-lead-vehicle.xosc"), 1)
    assert trace.termination is Termination.COMPLETED
    out = tmp_path / "t.csv"
    trace.write_csv(out)
    rows = list(csv.DictReader(open(out)))
    assert list(rows[0]) == ["time", "entity", "x", "y", "z", "h", "speed", "lane", "s", "t"]
    ref = list(csv.DictReader(open(conformance_dir / "esmini_reference" / "slow-lead-vehicle.csv")))
    assert {r["entity"] for r in rows} == {r["entity"] for r in ref}
    # the CSV holds reference points (the states' box centres moved back by bbox_cx), as esmini writes them
    first = next(r for r in rows if r["entity"] == "Ego")
    assert trace.info["bbox_cx"]["Ego"] > 1.0
    r0 = next(r for r in ref if r["entity"] == "Ego")
    assert float(first["x"]) == pytest.approx(float(r0["x"]), abs=0.01)
    assert float(first["y"]) == pytest.approx(float(r0["y"]), abs=0.01)


def test_steering_across_the_road_reports_the_marks_crossed_then_off_road(xosc_dir):
    sim = EmbeddedSimulator().load(load_bundle(xosc_dir / "straight_500m.xosc"), 0, SimSettings(max_time=6.0))
    events, i = [], 0
    while not sim.done:
        events += sim.step(Control(throttle=0.3, steer=-0.02 if i < 40 else 0.0)).events
        i += 1
    inv = [e for e in events if e.kind == "lane_invasion"]
    assert inv[0].data["lane"] == -1 and inv[0].data["to_lane"] == 1 and inv[0].data["type"] == "broken"
    assert inv[0].data["allowed"] is True
    assert [e.kind for e in events].count("off_road") == 1
    assert sim.state.ego.h > 0.1  # turned left (counter-clockwise) under negative steer


def test_the_ego_lane_tracker_agrees_with_the_maps_locate(xosc_dir):
    sim = EmbeddedSimulator().load(load_bundle(xosc_dir / "lane_change_crest.xosc"), 0, SimSettings(max_time=10.0))
    compared, i = 0, 0
    while not sim.done:
        st = sim.step(Control(throttle=0.4, steer=0.03 * math.sin(i * 0.05)))
        i += 1
        m, g = sim._ego_match, sim.network.locate(st.ego.x, st.ego.y, st.ego.h)
        if m is None or g is None:
            continue
        compared += 1
        assert (m.road, m.lane) == (g.road, g.lane)
        assert abs(m.s - g.s) < 0.02 and abs(m.t - g.t) < 0.02 and abs(m.offset - g.offset) < 0.02
    assert compared > 100
