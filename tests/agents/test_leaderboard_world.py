"""Privileged leaderboard agents get a CARLA-shaped world over the built-in simulation: CarlaDataProvider filled
before the agent is built, actors in CARLA's frame, traffic lights with trigger volumes and stop waypoints,
the hero's apply_control reaching the ego, anything else refused by name, and the calls made in the results."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from real_carla import real_carla

from roadtest.sim.api import Control, SimSettings

REPO = Path(__file__).resolve().parents[2]
PYTHONAPI = Path(os.environ.get("ROADTEST_CARLA_PYTHONAPI", "/work/ext/carla_pythonapi"))
LEADERBOARD_GIT = Path(os.environ.get("ROADTEST_LEADERBOARD_GIT", "/work/.mirror/carla-simulator+leaderboard/repo"))


def _sim(tmp_path, name):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target
    from roadtest.sim.embedded.simulator import EmbeddedSimulator

    (variant,) = expand_target(REPO / "scenarios" / name)[:1]
    bundle = load_bundle(write_bundle(variant, tmp_path / "bundle"))
    return EmbeddedSimulator().load(bundle, 0, SimSettings())


def test_the_world_shows_this_ticks_actors_in_carlas_frame(tmp_path):
    carla = real_carla()
    from roadtest.agents.leaderboard_compat.world import BuiltinWorld, NotProvided

    sim = _sim(tmp_path, "fog_truck_solid_line.yaml")
    sim.step(Control(throttle=0.5))
    world = BuiltinWorld(sim, 0.05)
    ego, truck = sim.state.ego, sim.state.actor("truck")
    vehicles = world.get_actors().filter("*vehicle*")
    hero = [v for v in vehicles if v.attributes["role_name"] == "hero"]
    assert len(hero) == 1 and hero[0].id == 100 and hero[0].type_id == "vehicle.lincoln.mkz_2020"
    t = hero[0].get_transform()
    assert (t.location.x, t.location.y, t.rotation.yaw) == pytest.approx((ego.x, -ego.y, -math.degrees(ego.h)))
    v = hero[0].get_velocity()
    assert (v.x, v.y) == pytest.approx((ego.vx, -ego.vy))
    other = [a for a in vehicles if a.attributes["roadtest_id"] == "truck"][0]
    assert other.type_id == "vehicle.carlamotors.carlacola"
    box = other.bounding_box
    assert (box.extent.x, box.extent.y) == pytest.approx((truck.length / 2, truck.width / 2))
    # the state moves on: the same actor object answers for the new tick
    before = other.get_location().x
    for _ in range(20):
        sim.step(Control(throttle=0.5))
    assert other.get_location().x == pytest.approx(sim.state.actor("truck").x) and other.get_location().x > before
    snap = world.get_snapshot()
    assert snap.timestamp.elapsed_seconds == pytest.approx(sim.state.time + 0.05) and snap.frame == sim.state.frame
    assert snap.find(100).get_transform().location.x == pytest.approx(sim.state.ego.x)
    world.debug.draw_point(carla.Location(), size=0.1, life_time=0.1)  # drawing: nothing to see, no error
    assert world.get_settings().synchronous_mode and world.get_settings().fixed_delta_seconds == 0.05
    with pytest.raises(NotProvided, match=r"carla\.World\.spawn_actor is not provided.*World: get_map"):
        world.spawn_actor(None, None)
    with pytest.raises(NotProvided, match=r"carla\.Vehicle\.set_autopilot"):
        hero[0].set_autopilot(True)
    with pytest.raises(NotProvided, match=r"get_control of truck"):
        other.get_control()
    assert world.calls["World.get_actors"] == 1 and world.calls["Actor.get_transform"] == 0
    assert world.calls["Vehicle.get_transform"] >= 1


def test_a_traffic_light_has_its_state_trigger_volume_and_stop_waypoint(tmp_path):
    carla = real_carla()
    from roadtest.agents.leaderboard_compat.world import BuiltinWorld

    sim = _sim(tmp_path, "red_light_intersection.yaml")
    sim.step(Control())
    world = BuiltinWorld(sim, 0.05)
    (light,) = world.get_actors().filter("*traffic_light*")
    spec = sim.meta["scene"]["lights"][0]  # tl_main on road 1 at s 147, lane -1 (see the scenario)
    colour = sim.state.signals[spec["signal_id"]]
    assert light.state == getattr(carla.TrafficLightState, colour.capitalize())
    # the stop waypoint: road 1, lane -1, s 147 on CARLA's own map of the scene
    (wp,) = light.get_stop_waypoints()
    assert (wp.road_id, wp.lane_id) == (1, -1) and wp.s == pytest.approx(147.0, abs=0.5)
    # CARLA's BasicAgent finds the light through its trigger volume: the volume's centre is on that lane
    tf = light.get_transform()
    centre = tf.transform(light.trigger_volume.location)
    on_map = world.get_map().get_waypoint(centre)
    assert (on_map.road_id, on_map.lane_id) == (1, -1)
    stop = wp.transform.location
    assert math.hypot(centre.x - stop.x, centre.y - stop.y) == pytest.approx(1.5, abs=0.3)  # the 3 m before the line
    # and the ego, 20 m before it on the same lane, is at that light
    assert world.hero.get_traffic_light() is None or world.hero.get_traffic_light().id == light.id


HERO_AGENT = """
import carla
from srunner.scenariomanager.carla_data_provider import CarlaDataProvider

class HeroAgent:
    '''Drives by the hero's apply_control and returns None, as some data-collection agents do.'''
    def setup(self, path_to_conf_file):
        self.hero = CarlaDataProvider.get_hero_actor()  # filled before the agent is built, as the leaderboard
    def sensors(self):
        return []
    def run_step(self, input_data, timestamp):
        self.hero.apply_control(carla.VehicleControl(throttle=1.0))
        return None
"""


def test_the_heros_apply_control_reaches_the_ego_and_calls_reach_the_results(tmp_path):
    real_carla()
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target
    from roadtest.runner.episode import run_episode

    agent = tmp_path / "hero_agent.py"
    agent.write_text(HERO_AGENT)
    (variant,) = expand_target(REPO / "scenarios" / "straight_speed_limit.yaml")[:1]
    bundle = load_bundle(write_bundle(variant, tmp_path / "bundle"))
    trace = run_episode(bundle, 0, f"{agent}:HeroAgent", SimSettings(max_time=2.0))
    assert trace.states[-1].ego.speed > 3.0  # full throttle for 2 s
    calls = trace.info["carla_calls"]
    assert calls["CarlaDataProvider.get_hero_actor"] == 1 and calls["Vehicle.apply_control"] == len(trace.agent)


def test_an_unprovided_call_ends_the_run_as_agent_error_naming_it(tmp_path):
    real_carla()
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target
    from roadtest.runner.episode import EpisodeError, run_episode

    agent = tmp_path / "spawner.py"
    agent.write_text(HERO_AGENT.replace("self.hero.apply_control(carla.VehicleControl(throttle=1.0))",
                                        "CarlaDataProvider.get_world().get_blueprint_library()"))
    (variant,) = expand_target(REPO / "scenarios" / "straight_speed_limit.yaml")[:1]
    bundle = load_bundle(write_bundle(variant, tmp_path / "bundle"))
    with pytest.raises(EpisodeError) as e:
        run_episode(bundle, 0, f"{agent}:HeroAgent", SimSettings(max_time=1.0))
    assert e.value.status == "agent_error"
    assert "carla.World.get_blueprint_library is not provided" in e.value.reason


def _leaderboard_tree(tmp_path) -> Path:
    """The leaderboard's own package (its real files, from the fetched repository) in tmp_path."""
    if not (LEADERBOARD_GIT / "HEAD").exists():
        pytest.skip(f"the leaderboard repository is not fetched at {LEADERBOARD_GIT} (set ROADTEST_LEADERBOARD_GIT)")
    root = tmp_path / "lb"
    root.mkdir()
    archive = subprocess.run(["git", "--git-dir", str(LEADERBOARD_GIT), "archive", "HEAD", "leaderboard"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root


def _carla_agents_path() -> Path:
    """CARLA's PythonAPI `agents` package (and shapely, which BasicAgent imports), or a skip naming what is missing."""
    if not (PYTHONAPI / "agents" / "navigation" / "basic_agent.py").is_file():
        pytest.skip(f"CARLA's PythonAPI agents package is not under {PYTHONAPI} (set ROADTEST_CARLA_PYTHONAPI)")
    probe = subprocess.run([sys.executable, "-c", "import shapely, networkx"], capture_output=True,
                           env={**os.environ, "PYTHONPATH": str(PYTHONAPI)})
    if probe.returncode != 0:
        pytest.skip(f"CARLA's agents need shapely and networkx, not importable with {PYTHONAPI} on the path")
    return PYTHONAPI


def _run_smoke(tmp_path: Path, agent: Path, *paths: Path) -> dict[str, dict]:
    """`roadtest run` of the smoke suite with `agent`, unchanged; its results.jsonl records by variant."""
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (REPO, *paths))), "HOME": os.environ.get("HOME", "/tmp")}
    res = subprocess.run([sys.executable, "-c", "import sys; from roadtest.cli import main; sys.exit(main(sys.argv[1:]))",
                          "run", str(REPO / "scenarios" / "suites" / "smoke.yaml"), "--agent", str(agent),
                          "--out", str(out), "--timeout", "1800"], capture_output=True, text=True, env=env,
                         timeout=3600, cwd=tmp_path)
    assert res.returncode in (0, 1), res.stderr[-3000:]  # 1: some run failed, as a verdict may say
    records = {r["variant"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert sorted(records) == ["crosswalk-pedestrian", "fog-truck-solid-line", "red-light-intersection",
                               "stop-sign-t-junction", "straight-speed-limit"]
    return records


def _verdicts(r: dict) -> dict[str, str]:
    return {v["id"]: v["verdict"] for v in r.get("rules") or []}


@pytest.mark.slow
def test_the_leaderboards_npc_agent_runs_the_smoke_suite(tmp_path):
    """npc_agent (CARLA's BasicAgent at 30 km/h on the route it plans with GlobalRoutePlanner on carla.Map), unchanged.

    Each run ends completed or failed, each asked the world for the actors and the map. BasicAgent keeps 30 km/h
    under every limit (speed_limit satisfied where the 30 sign stands: it already drives at 30). It knows no stop
    signs: stop_sign violated. Its light and vehicle checks (misc.is_within_distance with [0, 90]) want an angle
    strictly above 0, and a noise-free ego on the lane centre sees the light's trigger and the truck at exactly
    0 degrees (CARLA's physics jitter hides this): it runs the red light and, in the fog, closes at 30 km/h on
    the truck ahead at 25 km/h until it hits it (safe_distance violated, the collision stops both; the route
    times out at 88 %). The crosswalk's walker has crossed the ego's lane and cleared the conflict zone before BasicAgent reaches it."""
    real_carla()
    records = _run_smoke(tmp_path, _leaderboard_tree(tmp_path) / "leaderboard" / "autoagents" / "npc_agent.py",
                         _carla_agents_path(), tmp_path / "lb")
    for name, r in records.items():
        assert r["status"] in ("completed", "failed"), (name, r["status"], r.get("reason"))
        assert r["carla_calls"]["World.get_actors"] >= 1 and r["carla_calls"]["Map.get_waypoint"] >= 1
        assert r["carla_calls"]["Map.get_topology"] == 1  # GlobalRoutePlanner read the map once
    v = {name: _verdicts(r) for name, r in records.items()}
    assert records["straight-speed-limit"]["status"] == "completed" and v["straight-speed-limit"] == {
        "speed_limit": "satisfied"}
    assert records["crosswalk-pedestrian"]["status"] == "completed"
    assert v["crosswalk-pedestrian"]["yield_pedestrian_crosswalk"] == "satisfied"
    assert v["stop-sign-t-junction"]["stop_sign"] == "violated"
    assert v["red-light-intersection"]["red_light"] == "violated"
    assert v["red-light-intersection"]["safe_distance"] == "not_applicable"  # no vehicle ahead on its way
    fog = records["fog-truck-solid-line"]
    assert fog["status"] == "failed" and v["fog-truck-solid-line"]["safe_distance"] == "violated"
    assert v["fog-truck-solid-line"]["fog_speed_limit"] == "satisfied"
    assert [x for x in fog["infractions"]["collisions_vehicle"] if "id=truck" in x]


@pytest.mark.slow
def test_the_leaderboards_dummy_agent_runs_the_smoke_suite(tmp_path):
    """dummy_agent, unchanged: every sensor the leaderboard offers, a zero control each step (no pedal, no steer),
    no world call. The ego coasts from the scenario's initial speed (straight: 45 km/h, 34 km/h still at the
    30 km/h sign, so speed_limit violated; it coasts past the goal: completed, failed on the rule). It rolls
    through the stop line (stop_sign violated) and, without steering, straight on past the T junction's turn
    (off the route: the route is not completed). It rolls through the red light (red_light violated) to the goal
    straight ahead. At the crosswalk (reached at 27 km/h, 2 s after BehaviorAgent would be there)
    the walker is 2.3 m past the centre line, clear of its way (satisfied), and it coasts to the goal. In the fog it slows below the traffic and stops short of the goal (route not completed,
    a min-speed infraction; no rule broken: it neither speeds, nor overtakes, nor closes on the truck)."""
    real_carla()
    # the leaderboard's route_manipulation imports CARLA's GlobalRoutePlanner: its PythonAPI goes on the path too
    records = _run_smoke(tmp_path, _leaderboard_tree(tmp_path) / "leaderboard" / "autoagents" / "dummy_agent.py",
                         _carla_agents_path(), tmp_path / "lb")
    v = {name: _verdicts(r) for name, r in records.items()}
    status = {name: r["status"] for name, r in records.items()}
    assert status == {"straight-speed-limit": "failed", "stop-sign-t-junction": "failed",
                      "red-light-intersection": "failed", "crosswalk-pedestrian": "completed",
                      "fog-truck-solid-line": "failed"}
    assert all(r["carla_calls"] in ({}, None) for r in records.values())  # no privileged call
    assert v["straight-speed-limit"] == {"speed_limit": "violated"}
    assert records["straight-speed-limit"]["scores"]["score_route"] == pytest.approx(100.0)
    assert v["stop-sign-t-junction"] == {"stop_sign": "violated"}
    assert records["stop-sign-t-junction"]["scores"]["score_route"] < 100.0
    assert v["red-light-intersection"]["red_light"] == "violated"
    assert set(v["crosswalk-pedestrian"].values()) == {"satisfied"}
    assert set(v["fog-truck-solid-line"].values()) == {"satisfied"}
    assert records["fog-truck-solid-line"]["scores"]["score_route"] < 100.0
    assert records["fog-truck-solid-line"]["infractions"]["min_speed_infractions"]


SPY_AGENT = '''
import json
from leaderboard.autoagents.dummy_agent import DummyAgent


def get_entry_point():
    return "SpyDummy"


class SpyDummy(DummyAgent):
    """The leaderboard's own DummyAgent, writing down what each input looks like (test material)."""

    def run_step(self, input_data, timestamp):
        seen = {k: [str(getattr(d, "dtype", type(d).__name__)), list(getattr(d, "shape", ()))]
                for k, (frame, d) in input_data.items()}
        with open(OUT, "a") as f:
            f.write(json.dumps(seen) + "\\n")
        return super().run_step(input_data, timestamp)
'''

DUMMY_PROBE = """
import sys
from roadtest.bundle import load_bundle
from roadtest.runner.episode import run_episode
from roadtest.sim.api import SimSettings
trace = run_episode(load_bundle(sys.argv[1]), 0, sys.argv[2], SimSettings(max_time=0.2))
print(trace.termination.value, len(trace.agent))
"""


@pytest.mark.slow
def test_the_leaderboards_dummy_agent_gets_every_sensor_it_asks_for(tmp_path):
    """dummy_agent asks for three cameras, lidar, radar, GNSS, IMU and the OpenDRIVE map: none is refused and each
    arrives in the leaderboard's shape (a short run: its cameras cost seconds a tick on a CPU renderer)."""
    real_carla()
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target

    root = _leaderboard_tree(tmp_path)
    (variant,) = expand_target(REPO / "scenarios" / "red_light_intersection.yaml")[:1]
    bundle = write_bundle(variant, tmp_path / "bundle")
    env = {**os.environ, "PYTHONPATH": f"{REPO}:{PYTHONAPI}:{root}", "HOME": os.environ.get("HOME", "/tmp")}
    log = tmp_path / "seen.jsonl"
    spy = tmp_path / "spy_dummy.py"
    spy.write_text(f"OUT = {str(log)!r}\n" + SPY_AGENT)
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(DUMMY_PROBE), str(bundle), str(spy)],
                         capture_output=True, text=True, env=env, timeout=900, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    termination, steps = res.stdout.strip().splitlines()[-1].split()
    assert termination == "timeout" and int(steps) >= 3  # the 0.2 s cap; it stood still, as it should
    seen = json.loads(log.read_text().splitlines()[-1])
    assert seen["Center"] == ["uint8", [600, 800, 4]] and seen["Left"] == seen["Right"] == seen["Center"]
    assert seen["LIDAR"][0] == "float32" and seen["LIDAR"][1][1] == 4 and seen["LIDAR"][1][0] > 1000
    assert seen["RADAR"][0] == "float32" and seen["RADAR"][1][1] == 4
    assert seen["GPS"] == ["float64", [3]] and seen["IMU"] == ["float64", [7]] and seen["OpenDRIVE"][0] == "dict"


@pytest.mark.slow
def test_an_agent_driving_with_carlas_behavior_agent_runs_the_smoke_suite(tmp_path):
    """behavior_route_agent drives with CARLA's BehaviorAgent ('normal': the hero's speed limit less 3 km/h, up to
    50) on the route GlobalRoutePlanner plans. Every run ends completed or failed. get_speed_limit gives the
    posted limit and changes at the sign, as CARLA's: at 47 km/h it reaches the 30 sign and brakes after it
    (speed_limit violated for about 2 s); in the fog it drives 50 km/h, its 'normal' maximum, under the posted 60
    (fog_speed_limit violated) and, blind to the truck dead ahead at angle 0 (as BasicAgent), hits it. It knows no stop signs and
    sees the red light's trigger dead ahead too (both violated). At 37 km/h it reaches the crosswalk while the walker
    is 0.7 m past the centre line, within the rule's conflict zone, and keeps its speed (violated; no collision:
    BehaviorAgent brakes for a walker only within its braking distance in its own lane)."""
    real_carla()
    records = _run_smoke(tmp_path, Path(__file__).resolve().parent / "leaderboard_style" / "behavior_route_agent.py",
                         _carla_agents_path())
    for name, r in records.items():
        assert r["status"] in ("completed", "failed"), (name, r["status"], r.get("reason"))
        assert r["carla_calls"]["Vehicle.get_speed_limit"] > 10 and r["carla_calls"]["ActorList.filter"] > 10
    v = {name: _verdicts(r) for name, r in records.items()}
    assert v["straight-speed-limit"] == {"speed_limit": "violated"}
    worst = records["straight-speed-limit"]["rules"][0]["episodes"][0]
    assert worst["start"] > 13.0 and worst["duration"] < 3.0  # only where the 30 sign cuts the limit
    assert v["stop-sign-t-junction"]["stop_sign"] == "violated" and v["red-light-intersection"]["red_light"] == "violated"
    assert v["crosswalk-pedestrian"]["yield_pedestrian_crosswalk"] == "violated"
    assert not records["crosswalk-pedestrian"]["infractions"]["collisions_pedestrian"]
    assert v["fog-truck-solid-line"]["fog_speed_limit"] == "violated"
    assert [x for x in records["fog-truck-solid-line"]["infractions"]["collisions_vehicle"] if "id=truck" in x]
    for name in ("straight-speed-limit", "stop-sign-t-junction", "red-light-intersection", "crosswalk-pedestrian"):
        assert records[name]["scores"]["score_route"] == pytest.approx(100.0), name
