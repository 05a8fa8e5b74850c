"""Every emitted map reads right in CARLA's own map builder (the real client's carla.Map(name, xodr), which the
server's generate_opendrive_world shares): junction ids no road uses, every driving lane of every lane section
in get_topology(), and every example's route planned by CARLA's GlobalRoutePlanner as roadtest plans it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from real_carla import real_carla

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "scenarios").glob("*.yaml"))
# a folder holding CARLA's PythonAPI `agents` package (the carla wheel does not ship it): test material only
PYTHONAPI = os.environ.get("ROADTEST_CARLA_PYTHONAPI", "/work/ext/carla_pythonapi")


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target

    out = []
    for path in EXAMPLES:
        for i, variant in enumerate(expand_target(path)):
            out.append(Path(write_bundle(variant, tmp_path_factory.mktemp(f"{path.stem}_{i}"))))
    return out


def test_junction_ids_are_not_road_ids(bundles):
    for b in bundles:
        root = ET.parse(b / "road.xodr").getroot()
        roads = {r.get("id") for r in root.findall("road")}
        junctions = {j.get("id") for j in root.findall("junction")}
        assert not roads & junctions, b.name
        for r in root.findall("road"):  # every road's junction attribute names a junction that exists
            assert r.get("junction") == "-1" or r.get("junction") in junctions


def test_every_driving_lane_is_in_carlas_topology(bundles):
    carla = real_carla()
    for b in bundles:
        text = (b / "road.xodr").read_text()
        cmap = carla.Map(b.name, text)
        have = {(a.road_id, a.section_id, a.lane_id) for a, _ in cmap.get_topology()}
        want = {(int(road.get("id")), k, int(lane.get("id")))
                for road in ET.fromstring(text).findall("road")
                for k, sec in enumerate(road.findall("lanes/laneSection"))
                for lane in sec.iter("lane") if lane.get("type") == "driving"}
        assert want - have == set(), f"{b.name}: lanes CARLA's topology lacks (road, section, lane)"


def test_past_float32_lands_a_hair_below_in_float32():
    import numpy as np

    from roadtest.dsl.emit_xodr import past_float32

    for v in (360.0, 12.5, 1234.0, 0.1, 57.3):
        p = past_float32(v)
        assert p >= v and p - v < 2e-4  # under a float32 step at 2 km
        assert float(np.float32(p - 1e-12)) < p  # CARLA's float32(end - epsilon) is inside the lane


PLAN = """
import json, sys
import carla
from agents.navigation.global_route_planner import GlobalRoutePlanner
from roadtest.bundle import load_bundle
out = []
for folder in sys.argv[1:]:
    b = load_bundle(folder)
    route = b.meta.get("route") or {}
    wps = route.get("waypoints") or []
    if len(wps) < 2:
        continue
    grp = GlobalRoutePlanner(carla.Map(b.root.name, open(b.xodr).read()), 1.0)
    (x0, y0), (x1, y1) = wps[0][:2], wps[-1][:2]
    plan = grp.trace_route(carla.Location(x=x0, y=-y0), carla.Location(x=x1, y=-y1))  # CARLA's y is -north
    out.append({"name": b.root.name, "exit": route.get("exit"), "route": wps,
                "plan": [[w.transform.location.x, -w.transform.location.y] for w, _ in plan],
                "options": [o.name for _, o in plan]})
print(json.dumps(out))
"""


def test_every_examples_route_plans_through_carlas_global_route_planner(bundles):
    real_carla()
    if not (Path(PYTHONAPI) / "agents" / "navigation" / "global_route_planner.py").is_file():
        pytest.skip(f"CARLA's PythonAPI agents package (agents/navigation/global_route_planner.py) is not under "
                    f"{PYTHONAPI}; set ROADTEST_CARLA_PYTHONAPI to a folder holding CARLA's PythonAPI/carla/agents")
    pytest.importorskip("networkx", reason="CARLA's GlobalRoutePlanner needs networkx")
    import numpy as np

    env = {**os.environ, "PYTHONPATH": f"{PYTHONAPI}:{REPO}", "HOME": os.environ.get("HOME", "/tmp")}
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(PLAN), *map(str, bundles)], capture_output=True,
                         text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    plans = json.loads(res.stdout.strip().splitlines()[-1])
    assert len(plans) == len(bundles)  # every example has a route
    for p in plans:
        route, plan = np.asarray(p["route"], float)[:, :2], np.asarray(p["plan"], float)
        assert len(plan) > 5, p["name"]
        # every planned point lies on roadtest's own route polyline, within 1 m
        a, b = route[:-1], route[1:]
        d = b - a
        t = np.clip(np.einsum("kij,ij->ki", plan[:, None, :] - a[None], d) / np.maximum((d * d).sum(1), 1e-12), 0, 1)
        off = np.linalg.norm(plan[:, None, :] - (a[None] + t[..., None] * d[None]), axis=2).min(1)
        assert off.max() < 1.0, (p["name"], float(off.max()))
        assert np.linalg.norm(plan[-1] - route[-1]) < 2.0 and np.linalg.norm(plan[0] - route[0]) < 2.0, p["name"]
        if p["exit"] in ("left", "right", "straight"):  # the junction's movement, as CARLA labels it
            assert p["exit"].upper() in p["options"], (p["name"], sorted(set(p["options"])))
