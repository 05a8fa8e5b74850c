"""Without the real CARLA client, privileged agents get roadtest's stand-in map: it answers the calls CARLA's agents
make as carla.Map answers them on the same OpenDRIVE file (checked against the real client where it is
installed), refuses the rest by name, and a privileged agent drives a run on it to the same verdict."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from real_carla import real_carla

REPO = Path(__file__).resolve().parents[2]
AGENTS = Path(__file__).resolve().parent / "leaderboard_style"

# Hides the installed client from every import in the process (and its workers, which run site too): Python's
# path finder no longer sees `carla` outside roadtest's shims, as where the client is not installed.
HIDE_CARLA = """
import importlib.machinery
_find = importlib.machinery.PathFinder.find_spec.__func__
def _find_spec(cls, fullname, path=None, target=None):
    if fullname.split(".")[0] == "carla" and not any("leaderboard_compat/shims" in str(p) for p in (path or [])):
        return None
    return _find(cls, fullname, path, target)
importlib.machinery.PathFinder.find_spec = classmethod(_find_spec)
"""


def _no_carla_env(tmp_path: Path) -> dict:
    site = tmp_path / "no_carla_site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(HIDE_CARLA)
    return {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{REPO}", "HOME": os.environ.get("HOME", "/tmp")}


def _bundle(tmp_path: Path, name: str) -> Path:
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target

    (variant,) = expand_target(REPO / "scenarios" / name)[:1]
    return write_bundle(variant, tmp_path / name)


STANDIN_PROBE = """
import json, sys
from roadtest.agents.leaderboard_compat import install, is_compat
install()
import carla
from roadtest.bundle import load_bundle
from roadtest.sim.api import SimSettings
from roadtest.sim.embedded.simulator import EmbeddedSimulator
from roadtest.agents.leaderboard_compat.world import BuiltinWorld, NotProvided
sim = EmbeddedSimulator().load(load_bundle(sys.argv[1]), 0, SimSettings())
world = BuiltinWorld(sim, 0.05)
m = world.get_map()
out = {"compat": is_compat(carla), "type": type(m).__name__, "doc": type(m).__doc__,
       "wp_doc": carla.Waypoint.__doc__, "isinstance": isinstance(m, carla.Map)}
w = m.get_waypoint(carla.Location(50.3, 1.2, 0.0))
key = lambda w: None if w is None else [w.road_id, w.lane_id, round(w.s, 6), round(w.transform.location.x, 6),
                                        round(w.transform.location.y, 6), round(w.transform.rotation.yaw % 360, 6),
                                        w.is_junction, str(w.lane_type), str(w.lane_change), round(w.lane_width, 6)]
out["wp"] = key(w)
out["next"] = [key(x) for x in w.next(10.0)]
out["previous"] = [key(x) for x in w.previous(10.0)]
out["left"], out["right"] = key(w.get_left_lane()), key(w.get_right_lane())
out["right_right"] = key(w.get_right_lane().get_right_lane())
out["end"] = [key(x) for x in w.next(400.0)]
short = lambda w: [w.road_id, w.lane_id, round(w.s, 3)]
out["topology"] = sorted([short(a), short(b)] for a, b in m.get_topology())
out["generate"] = len(m.generate_waypoints(10.0))
g = m.transform_to_geolocation(carla.Location(120.0, -45.0, 2.0))
out["geo"] = [g.latitude, g.longitude, g.altitude]
try:
    m.get_spawn_points()
except NotProvided as e:
    out["refused"] = str(e)[:200]
out["calls"] = dict(world.calls)
print(json.dumps(out))
"""


def test_without_the_real_client_the_world_hands_the_standin_map(tmp_path):
    """straight_speed_limit: one 360 m road along +x, lanes -1 and -2 forward (3.5 m), lane 1 backward, a solid
    yellow centre line and a broken white line between -1 and -2; the road ends at s 360 with no successor."""
    bundle = _bundle(tmp_path, "straight_speed_limit.yaml")
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(STANDIN_PROBE), str(bundle)], capture_output=True,
                         text=True, env=_no_carla_env(tmp_path), timeout=300, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["compat"] and got["type"] == "StandInMap" and got["isinstance"]  # BasicAgent's isinstance passes
    assert "stand-in" in got["doc"].lower() and "stand-in" in got["wp_doc"].lower()
    # CARLA's (50.3, 1.2) is roadtest's (50.3, -1.2): s 50.3, t -1.2, inside lane -1 (t in [-3.5, 0]); its centre
    # is t -1.75, CARLA's y +1.75, heading +x (yaw 0); a solid line on its left, a broken one on its right
    assert got["wp"] == [1, -1, 50.3, 50.3, 1.75, 0.0, False, "Driving", "Right", 3.5]
    assert got["next"] == [[1, -1, 60.3, 60.3, 1.75, 0.0, False, "Driving", "Right", 3.5]]
    assert got["previous"] == [[1, -1, 40.3, 40.3, 1.75, 0.0, False, "Driving", "Right", 3.5]]
    # its left is the oncoming lane 1 (yaw 180, beyond the solid line: no change to the left from there either)
    assert got["left"] == [1, 1, 50.3, 50.3, -1.75, 180.0, False, "Driving", "NONE", 3.5]
    assert got["right"] == [1, -2, 50.3, 50.3, 5.25, 0.0, False, "Driving", "Left", 3.5]
    assert got["right_right"][1] == -3 and got["right_right"][7] == "Sidewalk"
    assert got["end"] == []  # 400 m ahead is past the road's end, and nothing follows it
    # one road section, three driving lanes, each a dead end: (its start, its own end) in its direction
    assert [t[0] for t in got["topology"]] == [[1, -2, 0.0], [1, -1, 0.0], [1, 1, 360.0]]
    assert [t[1] for t in got["topology"]] == [[1, -2, 360.0], [1, -1, 360.0], [1, 1, 0.0]]
    assert got["generate"] == 3 * 37  # s 0, 10, ..., 360 on three driving lanes: the road is 360.000008 m long
    # CARLA 0.9.16's spherical transverse Mercator at geo-reference (0, 0): lon = x / (k0 R), lat = y / (k0 R)
    k = 0.9996 * 6378137.0
    assert got["geo"] == pytest.approx([math.degrees(-45.0 / k), math.degrees(120.0 / k), 2.0], rel=1e-6)
    assert got["refused"].startswith("carla.Map.get_spawn_points is not provided")
    assert got["calls"]["Map.get_waypoint"] == 1 and got["calls"]["World.get_map"] == 1


def _same(a, c, tol: float) -> bool:
    if a is None or c is None:
        return a is None and c is None
    yaw = abs((a.transform.rotation.yaw - c.transform.rotation.yaw + 180.0) % 360.0 - 180.0)
    return ((a.road_id, a.section_id, a.lane_id, a.is_junction, str(a.lane_type))
            == (c.road_id, c.section_id, c.lane_id, c.is_junction, str(c.lane_type))
            and abs(a.s - c.s) < tol and a.transform.location.distance(c.transform.location) < tol
            and yaw < 10.0 * tol)  # degrees: 0.2 m along a 7 m radius turns the heading 1.6 degrees


@pytest.mark.parametrize("name", ["straight_speed_limit.yaml", "red_light_intersection.yaml",
                                  "stop_sign_t_junction.yaml", "roundabout_snow.yaml"])
def test_the_standin_map_answers_as_carlas_own_map_of_the_same_file(tmp_path, name):
    """Against carla.Map built by the real client from the same .xodr: the same topology; get_waypoint of points
    up to 1 m off every 3 m waypoint on the same lane within 0.3 m (CARLA snaps to its sampled lane geometry:
    up to 0.2 m along the curved connecting roads, where the stand-in projects exactly; overlapping connecting
    roads may give either road); from the same waypoint, next/previous at 2, 7 and 20 m and the left and right
    lanes within 5 cm. roundabout_snow drives on the left (rule LHT), which CARLA's client honours too."""
    carla = real_carla()
    from roadtest.agents.leaderboard_compat.standin_map import StandInMap
    from roadtest.sim.road.network import load_map

    xodr = _bundle(tmp_path, name) / "road.xodr"
    text = xodr.read_text()
    real, stand = carla.Map("scene", text), StandInMap(load_map(xodr), "scene", text, carla)
    topo = lambda m: sorted((a.road_id, a.lane_id, round(a.s, 3), b.road_id, b.lane_id, round(b.s, 3))  # noqa: E731
                            for a, b in m.get_topology())
    assert topo(stand) == topo(real)
    rnd, checked = random.Random(0), 0
    for w in real.generate_waypoints(3.0):
        loc = w.transform.location
        p = carla.Location(loc.x + rnd.uniform(-1, 1), loc.y + rnd.uniform(-1, 1), 0.0)
        a, c = real.get_waypoint(p), stand.get_waypoint(p)
        overlap = a.is_junction and c.is_junction and a.road_id != c.road_id
        if overlap:
            assert a.transform.location.distance(c.transform.location) < 0.3
            continue
        assert _same(a, c, 0.3), ((p.x, p.y), (a.road_id, a.lane_id, a.s, a.is_junction), c)
        c = stand.get_waypoint_xodr(a.road_id, a.lane_id, a.s)
        for fn in ("next", "previous"):
            for d in (2.0, 7.0, 20.0):
                ra = sorted(getattr(a, fn)(d), key=lambda x: (x.road_id, x.lane_id))
                ca = sorted(getattr(c, fn)(d), key=lambda x: (x.road_id, x.lane_id))
                assert len(ra) == len(ca) and all(_same(x, y, 0.05) for x, y in zip(ra, ca)), (fn, d, a, ra, ca)
        for fn in ("get_left_lane", "get_right_lane"):
            assert _same(getattr(a, fn)(), getattr(c, fn)(), 0.05), (fn, a)
        checked += 1
    assert checked > 50
    g = carla.Location(120.0, -45.0, 2.0)
    r, s = real.transform_to_geolocation(g), stand.transform_to_geolocation(g)
    assert (s.latitude, s.longitude, s.altitude) == pytest.approx((r.latitude, r.longitude, r.altitude), abs=1e-9)


def test_a_privileged_agent_drives_the_same_run_without_the_real_client(tmp_path):
    """world_route_agent asks what the leaderboard's npc_agent asks (hero by role_name, map waypoints, vehicles
    with transforms and boxes). On fog_truck_solid_line the truck starts 50 m ahead at 25 km/h, below the agent's
    8 m/s: it closes, keeps its 12 m, and completes the 300 m route behind the truck, as it does on the real
    client's map: the same status, score and calls."""
    bundle = _bundle(tmp_path, "fog_truck_solid_line.yaml")
    probe = textwrap.dedent("""
        import json, sys
        from roadtest.bundle import load_bundle
        from roadtest.scoring.score import score_run
        from roadtest.runner.episode import run_episode
        from roadtest.sim.api import SimSettings
        b = load_bundle(sys.argv[1])
        trace = run_episode(b, 0, sys.argv[2], SimSettings())
        s = score_run(trace, b.meta)
        import carla
        from roadtest.agents.leaderboard_compat import is_compat
        print(json.dumps({"compat": is_compat(carla), "termination": trace.termination.value,
                          "route": s["scores"]["score_route"], "calls": trace.info["carla_calls"]}))
    """)
    runs = {}
    real_env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": os.environ.get("HOME", "/tmp")}
    for label, env in (("stand-in", _no_carla_env(tmp_path)), ("real", real_env)):
        res = subprocess.run([sys.executable, "-c", probe, str(bundle), str(AGENTS / "world_route_agent.py")],
                             capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
        assert res.returncode == 0, res.stderr[-3000:]
        runs[label] = json.loads(res.stdout.strip().splitlines()[-1])
    stand = runs["stand-in"]
    assert stand["compat"] and stand["termination"] == "completed" and stand["route"] == pytest.approx(100.0)
    assert stand["calls"]["Map.get_waypoint"] > 100 and stand["calls"]["ActorList.filter"] > 100
    if not runs["real"]["compat"]:  # the real client is installed: the same run on its map
        assert {k: runs["real"][k] for k in ("termination", "route", "calls")} == \
            {k: stand[k] for k in ("termination", "route", "calls")}
