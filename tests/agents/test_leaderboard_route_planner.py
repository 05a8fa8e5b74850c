"""Every example's route plans through CARLA's own GlobalRoutePlanner, on the real client's carla.Map of the
scene's OpenDRIVE and on roadtest's stand-in map of it: the route privileged agents (npc_agent, BehaviorAgent)
trace between the leaderboard's plan points is roadtest's route, lane for lane, with CARLA's turn at the junction."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from real_carla import real_carla

REPO = Path(__file__).resolve().parents[2]
PYTHONAPI = Path(os.environ.get("ROADTEST_CARLA_PYTHONAPI", "/work/ext/carla_pythonapi"))
EXAMPLES = sorted((REPO / "scenarios").glob("*.yaml"))


def _planner():
    """CARLA's GlobalRoutePlanner class, from its PythonAPI (not in the carla wheel), or a skip naming why."""
    if not (PYTHONAPI / "agents" / "navigation" / "global_route_planner.py").is_file():
        pytest.skip(f"CARLA's PythonAPI agents package is not under {PYTHONAPI} (set ROADTEST_CARLA_PYTHONAPI)")
    pytest.importorskip("networkx", reason="CARLA's GlobalRoutePlanner needs networkx")
    sys.path.insert(0, str(PYTHONAPI))
    try:
        from agents.navigation.global_route_planner import GlobalRoutePlanner
        from agents.navigation.local_planner import RoadOption
    finally:
        sys.path.remove(str(PYTHONAPI))
    return GlobalRoutePlanner, RoadOption


def _off_route(points: np.ndarray, route: np.ndarray) -> float:
    """The largest distance (m) of a planned point from roadtest's route polyline."""
    a, d = route[:-1], route[1:] - route[:-1]
    worst = 0.0
    for p in points:
        t = np.clip(((p - a) * d).sum(1) / np.maximum((d * d).sum(1), 1e-12), 0.0, 1.0)
        worst = max(worst, float(np.min(np.linalg.norm(a + t[:, None] * d - p, axis=1))))
    return worst


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_examples_route_plans_through_carlas_global_route_planner(tmp_path, path):
    """From the route's first point to its last at CARLA's 2 m resolution: every planned point within 1 m of
    roadtest's route (its lanes are 3 m or wider: the same lanes), the plan ending within 3 m of the goal (the
    planner stops within 2 resolutions) and its length within 1 % + 3 m of the route's; the exit the scenario
    names is CARLA's RoadOption at the junction; the stand-in map gives the same plan point for point."""
    carla = real_carla()
    grp_cls, road_option = _planner()
    from roadtest.agents.leaderboard_compat.standin_map import StandInMap
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target
    from roadtest.sim.frames import location_to_carla
    from roadtest.sim.road.network import load_map

    bundle = load_bundle(write_bundle(expand_target(path)[0], tmp_path / "bundle"))
    route = bundle.meta["route"]
    wps = np.asarray(route["waypoints"], dtype=float)
    text = Path(bundle.xodr).read_text()
    start, goal = (carla.Location(*location_to_carla(x, y, 0.0)) for x, y in (wps[0], wps[-1]))
    plans = {}
    for label, cmap in (("real", carla.Map("scene", text)), ("stand-in", StandInMap(load_map(bundle.xodr), "scene",
                                                                                   text, carla))):
        trace = grp_cls(cmap, 2.0).trace_route(start, goal)
        pts = np.array([[w.transform.location.x, -w.transform.location.y] for w, _ in trace])  # roadtest's frame
        plans[label] = (pts, [str(o) for _, o in trace])
        assert _off_route(pts, wps) <= 1.0 + 1e-6, label
        assert np.linalg.norm(pts[-1] - wps[-1]) <= 3.0 + 1e-6, label
        length = float(np.sum(np.linalg.norm(np.diff(pts, axis=0), axis=1)))
        assert abs(length - float(route["length"])) <= 0.01 * float(route["length"]) + 3.0, (label, length)
        exit_name = str(route.get("exit") or "").upper()
        if exit_name in ("LEFT", "RIGHT", "STRAIGHT"):
            assert str(road_option[exit_name]) in plans[label][1], (label, exit_name, set(plans[label][1]))
    real, stand = plans["real"], plans["stand-in"]
    assert real[1] == stand[1] and np.allclose(real[0], stand[0], atol=0.3)
