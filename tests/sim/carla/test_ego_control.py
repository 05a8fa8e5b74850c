"""roadtest's ego controller run by scenario_runner's own ActorControl and UpdateAllActorControls (its code from
SCENARIO_RUNNER_ROOT, the real carla types, scenario_runner's CPU copy of CARLA's `agents`); the vehicle is a
recording stand-in, the map CARLA's own, built in-process from the bundle's .xodr."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from roadtest.sim.carla import roadtest_ego_control as ego_control
from roadtest.sim.carla.storyboard import EGO_CONTROL_MODULE

ROOT = os.environ.get("SCENARIO_RUNNER_ROOT")
pytestmark = pytest.mark.skipif(not ROOT, reason="SCENARIO_RUNNER_ROOT is unset: scenario_runner's code is not here")


class _World:
    def __init__(self, cmap):
        self.cmap = cmap

    def get_map(self):
        return self.cmap


class _Vehicle:
    """What the controllers call on a carla.Vehicle, recorded."""

    def __init__(self, carla, world):
        self.carla, self.world, self.controls, self.velocities = carla, world, [], []
        self.id = 1

    def get_world(self):
        return self.world

    def get_transform(self):
        return self.carla.Transform(self.carla.Location(x=10.0, y=0.0), self.carla.Rotation(yaw=90.0))

    def get_location(self):
        return self.get_transform().location

    def get_control(self):
        return self.controls[-1] if self.controls else self.carla.VehicleControl()

    def get_velocity(self):
        return self.carla.Vector3D()

    def apply_control(self, control):
        self.controls.append(control)

    def set_target_velocity(self, v):
        self.velocities.append(v)


@pytest.fixture()
def srunner(real_carla):
    mocks = str(Path(ROOT) / "srunner" / "tests" / "carla_mocks")
    # an earlier test may have imported roadtest's stand-in `agents` (leaderboard_compat): set it aside
    stand_ins = {k: sys.modules.pop(k) for k in list(sys.modules) if k == "agents" or k.startswith("agents.")}
    before = set(sys.modules)
    sys.path.insert(0, ROOT)
    sys.path.append(mocks)  # its `agents`; the real carla, earlier on the path, still wins
    import importlib
    import importlib.util
    import types

    if importlib.util.find_spec("agents.navigation.constant_velocity_agent") is None:
        # scenario_runner's mock copy predates CARLA 0.9.14's ConstantVelocityAgent, which atomic_behaviors imports;
        # nothing here builds one, so a named stand-in class serves
        stub = types.ModuleType("agents.navigation.constant_velocity_agent")
        stub.ConstantVelocityAgent = type("ConstantVelocityAgentStandIn", (), {})
        sys.modules[stub.__name__] = stub
    # scenario_runner is a checkout on sys.path, not an installed distribution
    ActorControl = importlib.import_module("srunner.scenariomanager.actorcontrols.actor_control").ActorControl
    atomics = importlib.import_module("srunner.scenariomanager.scenarioatomics.atomic_behaviors")
    yield ActorControl, atomics.UpdateAllActorControls
    sys.path.remove(ROOT)
    sys.path.remove(mocks)
    for name in set(sys.modules) - before:  # later tests see neither scenario_runner nor that `agents`
        if name.split(".")[0] in ("srunner", "agents", "py_trees", "roadtest_ego_control"):
            del sys.modules[name]
    sys.modules.update(stand_ins)


def test_scenario_runner_loads_the_module_and_the_agent_drives(srunner, real_carla, smoke_bundles):
    ActorControl, UpdateAllActorControls = srunner
    import py_trees

    cmap = real_carla.Map("road", (smoke_bundles["straight-speed-limit"] / "road.xodr").read_text())
    ego = _Vehicle(real_carla, _World(cmap))
    ctrl = ActorControl(ego, control_py_module=str(EGO_CONTROL_MODULE), args={"mailbox": "t1"},
                        scenario_file_path=None)
    assert type(ctrl.control_instance).__name__ == "RoadtestEgoControl"  # scenario_runner's own name derivation
    # an Init SpeedAction of 12 m/s, then the agent's first control: the ego gets both, the speed once
    ctrl.update_target_speed(12.0)
    ctrl.set_init_speed()
    ego_control.post("t1", real_carla.VehicleControl(throttle=0.7, steer=-0.2))
    blackboard = py_trees.blackboard.Blackboard()
    blackboard.set("ActorsWithController", {ego.id: ctrl}, overwrite=True)
    tick = UpdateAllActorControls()
    tick.update()  # what the storyboard's tree runs every tick
    assert len(ego.controls) == 1
    assert ego.controls[0].throttle == pytest.approx(0.7) and ego.controls[0].steer == pytest.approx(-0.2)
    (v,) = ego.velocities
    assert (v.x, v.y) == pytest.approx((0.0, 12.0), abs=1e-5)  # yaw 90 in CARLA: forward is +y
    ego_control.post("t1", real_carla.VehicleControl(brake=1.0))
    tick.update()
    assert [c.brake for c in ego.controls] == [0.0, 1.0] and len(ego.velocities) == 1
    ego_control.MAILBOXES.pop("t1", None)
