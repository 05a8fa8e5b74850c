"""What the runner holds an agent to: run_step returns a control, sensors() asks only for what the backend has."""

from __future__ import annotations

import pytest

from roadtest.agents.base import AgentContractError, as_control, check_sensors
from roadtest.errors import UserError
from roadtest.sim.api import Control


@pytest.fixture(scope="module")
def bundle(repo_root, tmp_path_factory):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target

    ((_, result),) = list(iter_target(repo_root / "scenarios" / "straight_speed_limit.yaml"))
    return load_bundle(write_bundle(result[0], tmp_path_factory.mktemp("bundle")))


def _agent_file(tmp_path, body: str, sensors: str = "[{'type': 'sensor.speedometer', 'id': 'speed'}]"):
    f = tmp_path / "my_agent.py"
    f.write_text("from roadtest.agents.base import AutonomousAgent\n"
                 "class Mine(AutonomousAgent):\n"
                 f"    def sensors(self):\n        return {sensors}\n"
                 f"    def run_step(self, input_data, timestamp):\n        return {body}\n")
    return f"{f}:Mine"


class _VehicleControlLike:
    """Shaped like carla.VehicleControl (attributes, not a mapping)."""

    def __init__(self, throttle=0.0, steer=0.0, brake=0.0, hand_brake=False, reverse=False):
        self.throttle, self.steer, self.brake, self.hand_brake, self.reverse = throttle, steer, brake, hand_brake, reverse


def test_controls_are_accepted_in_both_shapes_and_clipped():
    assert as_control(Control(throttle=2.0, steer=-3.0)) == Control(throttle=1.0, steer=-1.0)
    assert as_control(_VehicleControlLike(0.4, 0.2, 0.0, True)) == Control(throttle=0.4, steer=0.2, hand_brake=True)


@pytest.mark.parametrize("value", [{"throttle": 1.0, "steer": 0.0, "brake": 0.0}, None, (0.5, 0.0, 0.0), 0.5,
                                   _VehicleControlLike(throttle="full")])
def test_anything_else_is_a_contract_error_saying_what_run_step_must_return(value):
    with pytest.raises(AgentContractError, match="run_step must return a control.*Control or carla.VehicleControl"):
        as_control(value, "Mine")


def test_non_finite_pedals_are_a_contract_error():
    with pytest.raises(AgentContractError, match="non-finite throttle"):
        as_control(Control(throttle=float("nan")))


def test_a_dict_from_run_step_ends_the_run_as_agent_error(bundle, tmp_path):
    from roadtest.runner.episode import EpisodeError, run_episode
    from roadtest.sim.api import SimSettings, Termination

    spec = _agent_file(tmp_path, "{'throttle': 1.0, 'steer': 0.0, 'brake': 0.0}")
    with pytest.raises(EpisodeError) as e:
        run_episode(bundle, 0, spec, SimSettings())
    assert e.value.status == "agent_error"
    assert "run_step must return a control" in e.value.reason and "dict" in e.value.reason
    assert e.value.trace.termination is Termination.AGENT_ERROR and len(e.value.trace.states) == 1  # before any tick


def test_check_sensors_lists_the_supported_types_and_refuses_duplicate_ids():
    supported = frozenset({"sensor.speedometer", "sensor.other.imu"})
    with pytest.raises(UserError, match="'sensor.other.radar'.*embedded.*supported sensor types: sensor.other.imu, "
                                        "sensor.speedometer"):
        check_sensors([{"type": "sensor.other.radar", "id": "R"}], supported, "the 'embedded' backend")
    with pytest.raises(UserError, match="duplicated sensor id 'S'"):
        check_sensors([{"type": "sensor.speedometer", "id": "S"}] * 2, supported)
    with pytest.raises(UserError, match=r"sensors\(\)\[0\]: expected a dict"):
        check_sensors(["sensor.speedometer"], supported)
    assert check_sensors([{"type": "sensor.radar", "id": "R"}], None) == [{"type": "sensor.radar", "id": "R"}]


def test_the_embedded_backend_reports_its_sensor_registry():
    from roadtest.sim.embedded import EmbeddedSimulator
    from roadtest.sim.embedded.sensors import SENSORS

    types = EmbeddedSimulator.sensor_types()
    assert types == frozenset(SENSORS)
    assert {"sensor.speedometer", "sensor.other.imu", "sensor.other.gnss", "sensor.opendrive_map"} <= types
    assert {"sensor.lidar.ray_cast", "sensor.other.radar"} <= types and "sensor.other.sonar" not in types


def test_an_unsupported_sensor_is_refused_before_the_first_tick_with_exit_2(bundle, tmp_path, capsys):
    from roadtest.cli import main
    from roadtest.runner.episode import EpisodeError, run_episode
    from roadtest.sim.api import SimSettings

    spec = _agent_file(tmp_path, "None", "[{'type': 'sensor.other.obstacle', 'id': 'OBSTACLE'}]")
    with pytest.raises(EpisodeError) as e:  # the library path: the user's input, not an infrastructure failure
        run_episode(bundle, 0, spec, SimSettings())
    assert e.value.status == "invalid" and "sensor.speedometer" in e.value.reason
    out = tmp_path / "out"
    code = main(["run", str(bundle.root), "--agent", spec, "--out", str(out), "--seeds", "3"])
    err = capsys.readouterr().err
    assert code == 2
    assert "'OBSTACLE'" in err and "sensor.other.obstacle" in err and "sensor.speedometer" in err and "Traceback" not in err
    assert not (out / "runs").exists()  # no run started, so no sim_error was counted for any of the three seeds
