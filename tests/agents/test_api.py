"""Agent API: registry, config checking, control clipping and the planned-trajectory record; steering sign."""

from __future__ import annotations

import math

import pytest

from roadtest.agents import AutonomousAgent, load_agent
from roadtest.agents.base import sensor_data, sensor_spec
from roadtest.agents.controller import idm_accel, pure_pursuit_steer
from roadtest.agents.registry import known_agents
from roadtest.errors import UserError
from roadtest.sim.api import Control


def test_steer_sign_follows_carla_right_positive():
    assert pure_pursuit_steer(10.0, 2.0) < 0.0  # target on the left: steer left (negative)
    assert pure_pursuit_steer(10.0, -2.0) > 0.0
    assert pure_pursuit_steer(10.0, 0.0) == 0.0
    # the wheel angle that puts a 2.7 m wheelbase on a 10 m radius circle, over 0.6 rad full lock
    r = 10.0
    x, y = r * math.sin(0.5), r * (1 - math.cos(0.5))
    assert pure_pursuit_steer(x, y) == pytest.approx(-math.atan(2.7 / r) / 0.6, rel=1e-6)


def test_idm_stops_behind_static_obstacle_and_cruises_free():
    assert idm_accel(10.0, 10.0) == pytest.approx(0.0, abs=1e-9)
    assert idm_accel(5.0, 10.0) > 0.0
    assert idm_accel(10.0, 10.0, gap=10.0, lead_speed=0.0) < -3.0
    assert idm_accel(0.0, 10.0, gap=2.0, lead_speed=0.0, s0=2.0) == pytest.approx(0.0, abs=1e-9)


def test_registry_names_and_unknown_name():
    assert {"expert", "lane-follower", "idle"} <= set(known_agents())
    for name in ("expert", "lane-follower", "idle"):
        agent = load_agent(name)
        assert isinstance(agent, AutonomousAgent)
        specs = agent.sensors()
        assert all({"type", "id", "x", "y", "z", "roll", "pitch", "yaw"} <= set(s) for s in specs)
        assert len({s["id"] for s in specs}) == len(specs)
    with pytest.raises(UserError) as e:
        load_agent("expret")
    assert "expert" in str(e.value) and "lane-follower" in str(e.value)


def test_load_agent_from_file(tmp_path):
    f = tmp_path / "my_agent.py"
    f.write_text(
        "from roadtest.agents.base import AutonomousAgent\n"
        "from roadtest.sim.api import Control\n"
        "class Crawl(AutonomousAgent):\n"
        "    def run_step(self, input_data, timestamp):\n"
        "        self.text = 'crawling'\n"
        "        self.planned = [(1.0, 0.0)] * 6\n"
        "        return Control(throttle=2.0, steer=-3.0)\n"
        "class Plain:\n"
        "    def sensors(self):\n"
        "        return []\n"
        "    def run_step(self, input_data, timestamp):\n"
        "        class C: throttle, steer, brake = 0.3, 0.1, 0.0\n"
        "        return C()\n")
    agent = load_agent(f"{f}:Crawl")
    c = agent({}, 0.5)
    assert c == Control(throttle=1.0, steer=-1.0)  # clipped to the leaderboard's ranges
    assert agent.last_output.text == "crawling" and agent.last_output.planned[0] == (1.0, 0.0)
    assert agent.last_output.time == 0.5
    plain = load_agent(f"{f}:Plain")  # a class that does not derive from roadtest's base
    assert plain({}, 0.0) == Control(throttle=0.3, steer=0.1)
    with pytest.raises(UserError, match="no class 'Nope'.*Crawl"):
        load_agent(f"{f}:Nope")
    with pytest.raises(UserError, match="not found"):
        load_agent(f"{tmp_path / 'missing.py'}:X")
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(UserError, match="boom"):
        load_agent(f"{bad}:X")


def test_config_keys_are_checked(tmp_path):
    assert load_agent("lane-follower", {"speed": 7.0}).config["speed"] == 7.0
    cfg = tmp_path / "lf.yaml"
    cfg.write_text("speed: 4.5\n")
    assert load_agent("lane-follower", cfg).config["speed"] == 4.5
    with pytest.raises(UserError, match="unknown config key.*spede"):
        load_agent("lane-follower", {"spede": 7.0})


def test_sensor_helpers():
    spec = sensor_spec("sensor.speedometer", "speed")
    assert spec["type"] == "sensor.speedometer" and spec["yaw"] == 0.0
    assert sensor_data({"speed": (3, {"speed": 2.0})}, "speed") == {"speed": 2.0}
    assert sensor_data({}, "speed", 7) == 7
