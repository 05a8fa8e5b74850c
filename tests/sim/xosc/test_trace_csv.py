"""--trace-csv writes each entity's reference point (as esmini does), not the bounding-box centre the states hold."""

from __future__ import annotations

import csv

import pytest

from roadtest.bundle import load_bundle
from roadtest.runner.episode import run_episode
from roadtest.sim.api import SimSettings
from xosc_docs import lane_teleport, scenario, sim_time, straight_road, trigger

TICK = 0.05


def test_csv_rows_are_reference_points_with_their_lane_coordinates(tmp_path):
    (tmp_path / "road.xodr").write_text(straight_road())
    text = scenario("", entities=("Ego", "Oncoming"), stop=trigger("StopTrigger", sim_time(1.0)),
                    init=lane_teleport("Ego", -1, 10, 10.0) + lane_teleport("Oncoming", 1, 200, 10.0))
    (tmp_path / "s.xosc").write_text(text.replace("<RoadNetwork/>",
                                                  '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>'))
    trace = run_episode(load_bundle(tmp_path / "s.xosc"), 0, None, SimSettings(tick=TICK),
                        trace_csv=str(tmp_path / "t.csv"))
    assert trace.info["bbox_cx"]["Ego"] == pytest.approx(1.5)  # the test vehicle's box centre is 1.5 m ahead
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    first = {r["entity"]: r for r in rows if float(r["time"]) == 0.0}
    assert float(first["Ego"]["x"]) == pytest.approx(10.0, abs=1e-3)  # not 11.5: the reference point
    assert float(first["Ego"]["s"]) == pytest.approx(10.0, abs=1e-3) and first["Ego"]["lane"] == "-1"
    assert float(first["Oncoming"]["x"]) == pytest.approx(200.0, abs=1e-3)  # facing -x: its centre is at 198.5
    assert float(first["Oncoming"]["s"]) == pytest.approx(200.0, abs=1e-3) and first["Oncoming"]["lane"] == "1"
    assert float(first["Ego"]["t"]) == pytest.approx(-1.75, abs=1e-3)
    half = next(r for r in rows if r["entity"] == "Ego" and float(r["time"]) == 0.5)
    assert float(half["x"]) == pytest.approx(15.0, abs=1e-3) and float(half["s"]) == pytest.approx(15.0, abs=1e-3)
