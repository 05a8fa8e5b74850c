"""The bundle's storyboard in CARLA's scenario_runner, used as a library (its command line refuses `--agent`
with `--openscenario`): OpenScenarioConfiguration -> ego vehicles -> OpenScenario, then ticked the way
ScenarioManager._tick_scenario does it, inside roadtest's own step.

scenario_runner is not on PyPI: SCENARIO_RUNNER_ROOT names a checkout (tag v0.9.16), and CARLA's own `agents`
package (PythonAPI/carla of a CARLA 0.9.16 release) must be importable. The ego is handed to roadtest's agent by
a copy of the .xosc, beside the original so relative paths still resolve, whose Init assigns the ego the
controller module roadtest_ego_control.py.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lxml import etree

from roadtest.errors import UserError

__all__ = ["EGO_CONTROL_MODULE", "load_srunner", "ego_names", "with_ego_controller", "Storyboard"]

EGO_CONTROL_MODULE = Path(__file__).resolve().with_name("roadtest_ego_control.py")
CARLA_XOSC = "scenario.carla.xosc"
SRUNNER_MODULES = {
    "OpenScenarioConfiguration": "srunner.scenarioconfigs.openscenario_configuration",
    "OpenScenario": "srunner.scenarios.open_scenario",
    "CarlaDataProvider": "srunner.scenariomanager.carla_data_provider",
    "GameTime": "srunner.scenariomanager.timer",
}


def load_srunner(root: str | None = None) -> SimpleNamespace:
    """scenario_runner's classes from SCENARIO_RUNNER_ROOT (UserError saying what to set when it is missing)."""
    root = root or os.environ.get("SCENARIO_RUNNER_ROOT")
    if not root:
        raise UserError("SCENARIO_RUNNER_ROOT is not set: point it at a scenario_runner checkout, tag v0.9.16 "
                        "(git clone -b v0.9.16 https://github.com/carla-simulator/scenario_runner)")
    if not (Path(root) / "srunner" / "scenarioconfigs").is_dir():
        raise UserError(f"SCENARIO_RUNNER_ROOT={root}: no srunner/ package there (expected a scenario_runner checkout)")
    spec = importlib.util.find_spec("agents")
    from roadtest.agents.leaderboard_compat import SHIMS

    if spec is None or str(spec.origin or "").startswith(str(SHIMS)):
        raise UserError("CARLA's `agents` package is not importable: export PYTHONPATH=$CARLA_ROOT/PythonAPI/carla "
                        "(CARLA 0.9.16 release) so that scenario_runner finds agents.navigation")
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        ns = {name: getattr(importlib.import_module(mod), name) for name, mod in SRUNNER_MODULES.items()}
        import py_trees

        ns["py_trees"] = py_trees
    except ImportError as e:
        raise UserError(f"scenario_runner at {root} does not import ({e}); pip install 'roadtest[carla]' brings its "
                        "Python dependencies") from e
    return SimpleNamespace(**ns)


def ego_names(root: Any) -> list[str]:
    """ScenarioObject names that scenario_runner takes for egos (Property type = ego_vehicle), in file order."""
    return [so.get("name") for so in root.iter("ScenarioObject")
            if any(p.get("name") == "type" and p.get("value") == "ego_vehicle" for p in so.iter("Property"))]


def _controller_action(mailbox: str) -> etree._Element:
    ca = etree.Element("PrivateAction")
    act = etree.SubElement(etree.SubElement(ca, "ControllerAction"), "AssignControllerAction")
    ctrl = etree.SubElement(act, "Controller", name="roadtest_agent")
    props = etree.SubElement(ctrl, "Properties")
    etree.SubElement(props, "Property", name="module", value=str(EGO_CONTROL_MODULE))
    etree.SubElement(props, "Property", name="mailbox", value=mailbox)
    ov = etree.SubElement(ca[0], "OverrideControllerValueAction")  # scenario_runner needs it, every value inactive
    for tag in ("Throttle", "Brake", "Clutch", "ParkingBrake", "SteeringWheel"):
        etree.SubElement(ov, tag, value="0", active="false")
    etree.SubElement(ov, "Gear", number="0", active="false")
    return ca


def with_ego_controller(xosc: Path, mailbox: str, out: Path | None = None) -> tuple[Path, str]:
    """Write a copy of the .xosc whose first ego runs under roadtest's controller (any ControllerAction the file
    gave it in Init is replaced); return the copy's path and the ego's name."""
    tree = etree.parse(str(xosc))
    root = tree.getroot()
    names = ego_names(root)
    if not names:
        raise UserError(f"{xosc}: no ego vehicle (a Vehicle with Property type=ego_vehicle) for the agent to drive")
    ego = names[0]
    actions = root.find("Storyboard/Init/Actions")
    if actions is None:
        raise UserError(f"{xosc}: Storyboard/Init/Actions missing")
    private = next((p for p in actions.findall("Private") if p.get("entityRef") == ego), None)
    if private is None:
        private = etree.SubElement(actions, "Private", entityRef=ego)
    for pa in private.findall("PrivateAction"):
        if pa.find("ControllerAction") is not None:
            private.remove(pa)
    private.append(_controller_action(mailbox))
    out = out or xosc.with_name(CARLA_XOSC)
    tree.write(str(out), xml_declaration=True, encoding="utf-8", pretty_print=True)
    return out, ego


@dataclass
class Storyboard:
    """One scenario in scenario_runner: its configuration, egos, behaviour tree; tick() advances the tree."""

    sr: SimpleNamespace
    config: Any
    scenario: Any
    egos: list[Any]
    _last: float = -1.0

    @classmethod
    def build(cls, sr: SimpleNamespace, client: Any, world: Any, xosc: Path, tm_port: int, seed: int) -> "Storyboard":
        """As ScenarioRunner does for --openscenario up to run_scenario (map load included: the configuration
        loads the .xodr with generate_opendrive_world unless the world already holds the same OpenDRIVE text)."""
        cdp = sr.CarlaDataProvider
        cdp.set_client(client)
        cdp.set_world(world)
        cdp.set_traffic_manager_port(tm_port)
        if hasattr(cdp, "set_random_seed"):
            cdp.set_random_seed(seed)
        config = sr.OpenScenarioConfiguration(str(xosc), client, {})
        egos = [cdp.request_new_actor(v.model, v.transform, v.rolename, random_location=v.random_location,
                                      color=v.color, actor_category=v.category) for v in config.ego_vehicles]
        world.tick()
        scenario = sr.OpenScenario(world=world, ego_vehicles=egos, config=config, config_file=str(xosc),
                                   timeout=100000)
        return cls(sr, config, scenario, egos)

    def tick(self, snapshot: Any) -> bool:
        """One tree tick on the world's latest snapshot (before world.tick()); False once the tree has finished."""
        ts = snapshot.timestamp
        if ts.elapsed_seconds > self._last:
            self._last = ts.elapsed_seconds
            self.sr.GameTime.on_carla_tick(ts)
            self.sr.CarlaDataProvider.on_carla_tick()
            self.scenario.scenario_tree.tick_once()
        return self.scenario.scenario_tree.status == self.sr.py_trees.common.Status.RUNNING

    def succeeded(self) -> bool:
        return self.scenario.scenario_tree.status == self.sr.py_trees.common.Status.SUCCESS

    def close(self) -> None:
        try:
            self.scenario.remove_all_actors()
        finally:
            self.sr.CarlaDataProvider.cleanup()
