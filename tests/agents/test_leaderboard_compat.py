"""CARLA leaderboard agents run unchanged: stand-in `carla`/`leaderboard`/`agents` only where the real ones are
absent, the route and the sensor data in the leaderboard's own formats, CARLA's frame converted in one place."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from roadtest.sim import frames

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GNSS_AGENT = HERE / "leaderboard_style" / "gnss_route_agent.py"


def _python(code: str, *path: Path) -> str:
    """Run code in a fresh interpreter (so sys.modules is clean) with roadtest and `path` importable."""
    env_path = ":".join([str(REPO), *map(str, path)])
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin", "HOME": str(HERE)}, timeout=60)  # the real carla crashes without HOME
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def test_stand_ins_answer_only_when_the_real_packages_are_absent(tmp_path):
    probe = """
        import importlib.util
        from roadtest.agents.leaderboard_compat import install, is_compat
        real = {n: importlib.util.find_spec(n) is not None for n in ("carla", "leaderboard", "agents")}
        install(); install()
        import carla
        from leaderboard.autoagents import autonomous_agent
        from agents.navigation.local_planner import RoadOption
        import sys
        print(real["carla"], is_compat(carla), real["agents"], is_compat(sys.modules["agents"]),
              is_compat(autonomous_agent), RoadOption.LANEFOLLOW.value)
    """
    real_carla, carla_compat, real_agents, agents_compat, lb_compat, lanefollow = _python(probe).split()
    assert carla_compat == str(real_carla == "False") and agents_compat == str(real_agents == "False")
    assert lanefollow == "4"  # CARLA's RoadOption.LANEFOLLOW
    # a real CARLA `agents` package (and a real `carla`) on the path win over the stand-ins
    (tmp_path / "agents" / "navigation").mkdir(parents=True)
    (tmp_path / "agents" / "__init__.py").write_text("REAL = True\n")
    (tmp_path / "agents" / "navigation" / "__init__.py").write_text("")
    (tmp_path / "agents" / "navigation" / "local_planner.py").write_text(
        "from enum import IntEnum\nclass RoadOption(IntEnum):\n    VOID, LEFT, RIGHT, STRAIGHT = -1, 1, 2, 3\n"
        "    LANEFOLLOW, CHANGELANELEFT, CHANGELANERIGHT = 4, 5, 6\n")
    (tmp_path / "carla").mkdir()
    (tmp_path / "carla" / "__init__.py").write_text("REAL = True\nclass VehicleControl:\n    pass\n")
    out = _python("""
        from roadtest.agents.leaderboard_compat import install, is_compat
        install()
        import agents, carla
        from leaderboard.autoagents import autonomous_agent
        print(getattr(agents, "REAL", False), getattr(carla, "REAL", False), is_compat(agents), is_compat(carla),
              autonomous_agent.carla is carla)
    """, tmp_path)
    assert out.split() == ["True", "True", "False", "False", "True"]


def test_frames_flip_y_and_yaw_as_carla():
    assert frames.location_to_carla(1.0, 2.0, 3.0) == (1.0, -2.0, 3.0)
    assert frames.location_from_carla(*frames.location_to_carla(4.0, -5.0, 6.0)) == (4.0, -5.0, 6.0)
    assert frames.yaw_to_carla(math.pi / 2) == pytest.approx(-90.0)  # north is CARLA yaw -90 (CARLA's -y)
    assert frames.yaw_from_carla(90.0) == pytest.approx(-math.pi / 2)
    assert frames.vector_to_carla(1.0, 2.0, 3.0) == (1.0, -2.0, 3.0)
    assert frames.angular_velocity_to_carla(0.0, 0.0, 0.3) == (-0.0, 0.0, -0.3)  # a left turn is negative z in CARLA
    # compass: radians clockwise from north
    for h, compass in ((0.0, math.pi / 2), (math.pi / 2, 0.0), (math.pi, 3 * math.pi / 2), (-math.pi / 2, math.pi)):
        assert frames.compass_from_heading(h) == pytest.approx(compass)
        assert math.remainder(frames.heading_from_compass(compass) - h, math.tau) == pytest.approx(0.0, abs=1e-12)


def test_gnss_matches_the_leaderboards_location_to_gps():
    # leaderboard/utils/route_manipulation.py::_location_to_gps, written out by hand for (lat_ref, lon_ref)
    R = 6378137.0
    for lat_ref, lon_ref, (x, y, z) in ((0.0, 0.0, (120.0, -340.0, 2.0)), (42.0, 2.0, (-50.0, 75.0, 0.0))):
        scale = math.cos(lat_ref * math.pi / 180.0)
        mx = scale * lon_ref * math.pi * R / 180.0 + x
        my = scale * R * math.log(math.tan((90.0 + lat_ref) * math.pi / 360.0)) - y
        lon = mx * 180.0 / (math.pi * R * scale)
        lat = 360.0 * math.atan(math.exp(my / (R * scale))) / math.pi - 90.0
        assert frames.gnss_from_carla_location(x, y, z, lat_ref, lon_ref) == pytest.approx((lat, lon, z), abs=1e-12)


def test_plans_are_the_leaderboards_gps_and_world_plans():
    from roadtest.agents.leaderboard_compat import install

    install()
    import carla
    from agents.navigation.local_planner import RoadOption

    from roadtest.agents.leaderboard_compat.adapter import leaderboard_plans

    # east 10 m, then a right turn: north-east corner in the inertial frame, heading south after it
    route = {"exit": "right", "lanes": [{"s_start": 0.0, "s_end": 4.0}, {"s_start": 0.0, "s_end": 8.0},
                                        {"s_start": 0.0, "s_end": 8.0}]}
    gps, world = leaderboard_plans([(0.0, 0.0), (10.0, 0.0), (10.0, -10.0)], route)
    assert len(world) == len(gps) == 21  # every metre of the 20 m route, both ends included
    t0, opt0 = world[0]
    assert isinstance(t0, carla.Transform) and (t0.location.x, t0.location.y) == (0.0, -0.0) and opt0 is RoadOption.LANEFOLLOW
    t15 = world[15][0]
    assert (t15.location.x, t15.location.y) == pytest.approx((10.0, 5.0))  # 5 m south: CARLA y +5
    assert t15.rotation.yaw == pytest.approx(90.0)  # heading south = CARLA yaw +90 (clockwise)
    assert world[3][1] is RoadOption.LANEFOLLOW and world[4][1] is RoadOption.RIGHT and world[11][1] is RoadOption.RIGHT
    assert world[12][1] is RoadOption.LANEFOLLOW  # after the junction's 8 m
    g = gps[15][0]
    assert set(g) == {"lat", "lon", "z"} and g["lat"] < 0 < g["lon"]


def test_downsample_route_keeps_what_the_leaderboard_keeps():
    from roadtest.agents.leaderboard_compat import install

    install()
    import carla
    from agents.navigation.local_planner import RoadOption as R
    from leaderboard.utils.route_manipulation import downsample_route

    opts = [R.LANEFOLLOW] * 5 + [R.LEFT] * 3 + [R.CHANGELANERIGHT] * 2 + [R.LANEFOLLOW] * 300
    route = [(carla.Transform(carla.Location(x=float(i))), o) for i, o in enumerate(opts)]
    # by hand from the leaderboard's rules: 0 (start), 5 (LEFT starts), 8 and 9 (lane change points), 10 is not
    # kept (follows a lane change), then every time more than 200 m were summed: 211 (201 m past 10), then 412 > 309
    assert downsample_route(route, 200) == [0, 5, 8, 9, 211, 309]


def test_a_leaderboard_agent_file_drives_a_curve_from_gnss_and_compass(repo_root, tmp_path):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target
    from roadtest.scoring.score import score_run
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings, Termination

    ((_, result),) = list(iter_target(repo_root / "scenarios" / "curve_wet_motorcycle.yaml"))
    bundle = load_bundle(write_bundle(result[0], tmp_path))
    trace = run_episode(bundle, 0, str(GNSS_AGENT), SimSettings())  # no class name: get_entry_point()
    assert trace.termination is Termination.COMPLETED and "goal" in trace.reason
    score = score_run(trace, bundle.meta)
    assert score["scores"]["score_route"] == pytest.approx(100.0)
    assert not score["infractions"].get("outside_route_lanes") and not score["infractions"].get("collisions_layout")
    ego = [s.ego for s in trace.states]
    assert ego[-1].h == pytest.approx(math.pi / 2, abs=0.15)  # the 90 degree left bend: heading north at the end


def test_the_adapter_builds_sets_up_and_destroys_like_the_leaderboard():
    from roadtest.agents import load_agent

    agent = load_agent(str(GNSS_AGENT))
    inner = agent.inner
    assert type(inner).__name__ == "GnssRouteAgent" and not hasattr(inner, "steps")  # setup waits for the plan
    agent.set_global_plan([(0.0, 0.0), (300.0, 0.0)], {})
    assert inner._global_plan_world_coord[0][0].location.x == 0.0 and inner._global_plan[0][0]["lon"] == 0.0
    assert len(inner._global_plan) == 3 and len(inner.route) == 301  # downsampled every 200 m; the dense plan kept
    assert [s["id"] for s in agent.sensors()] == ["IMU", "GPS", "SPEED"] and inner.track.value == "SENSORS"
    agent.destroy()
    assert inner.destroyed


def test_the_stand_in_carla_says_what_it_lacks():
    out = _python("""
        import importlib.util
        if importlib.util.find_spec("carla") is not None:
            print("real")
        else:
            from roadtest.agents.leaderboard_compat import install
            install()
            import carla
            try:
                carla.Client("localhost", 2000)
            except AttributeError as e:
                print(e)
    """)
    assert out == "real" or ("carla.Client: CARLA is not installed" in out and "VehicleControl" in out)


def test_a_turn_at_the_route_junction_reaches_the_agent_as_its_road_option(repo_root, tmp_path):
    from roadtest.agents import load_agent
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target

    ((_, result),) = list(iter_target(repo_root / "scenarios" / "stop_sign_t_junction.yaml"))
    meta = load_bundle(write_bundle(result[0], tmp_path)).meta
    route = meta["route"]
    assert route["exit"] == "right"
    agent = load_agent(str(GNSS_AGENT))
    agent.set_global_plan(route["waypoints"], route)
    kept = agent.inner._global_plan_world_coord
    names = [opt.name for _, opt in kept]
    assert names[0] == "LANEFOLLOW" and "RIGHT" in names and names[-1] == "LANEFOLLOW"
    # the RIGHT point starts where the approach lane ends (meta.route.lanes[0] long), in CARLA's frame
    approach = abs(route["lanes"][0]["s_end"] - route["lanes"][0]["s_start"])
    (start, _), (turn, _) = kept[0], kept[names.index("RIGHT")]
    assert turn.location.distance(start.location) == pytest.approx(approach, abs=1.5)
    # a right turn: CARLA's yaw grows (clockwise) from the turn's start to the route's end
    assert math.remainder(kept[-1][0].rotation.yaw - turn.rotation.yaw, 360.0) == pytest.approx(90.0, abs=10.0)
