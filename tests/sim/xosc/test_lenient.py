"""What other players accept is read past with a warning that names the rule applied, not refused."""

from __future__ import annotations

import os

import pytest
from xosc_docs import VEHICLE, event, lane_teleport, load_engine, scenario, sim_time, speed_action, straight_road, trigger

from roadtest.bundle import load_bundle
from roadtest.errors import MapError, ScenarioError
from roadtest.sim.api import SimSettings
from roadtest.sim.embedded.simulator import EmbeddedSimulation
from roadtest.sim.xosc.engine import ScenarioEngine

T0 = trigger("StartTrigger", sim_time(0.0, rule="greaterOrEqual", edge="none"))
LATER = event("later", speed_action(1.0), trigger("StartTrigger", sim_time(100.0, rule="greaterOrEqual")))


def _lane_change(rel: int) -> str:
    return f"""<PrivateAction><LateralAction><LaneChangeAction>
      <LaneChangeActionDynamics dynamicsShape="sinusoidal" value="2" dynamicsDimension="time"/>
      <LaneChangeTarget><RelativeTargetLane entityRef="Ego" value="{rel}"/></LaneChangeTarget>
      </LaneChangeAction></LateralAction></PrivateAction>"""


def test_a_lane_change_to_a_lane_the_map_lacks_is_skipped_mid_run(tmp_path):
    """Ego in lane -1 of a road with lanes -1, -2 is sent three lanes to the right at 1 s: the run goes on."""
    body = event("lc", _lane_change(-3), trigger("StartTrigger", sim_time(1.0, rule="greaterOrEqual"))) + LATER
    eng = load_engine(tmp_path, scenario(body, init=lane_teleport("Ego", -1, 20, 10.0)))
    for k in range(60):
        eng.step(round(k * 0.05, 6))
    e = eng.entities["Ego"]
    assert e.lane.lane == -1 and e.y == pytest.approx(-1.75) and e.x > 20 + 2.5 * 10
    assert any("LaneChangeAction on Ego at 1.00 s skipped" in w and "no lane -4" in w for w in eng.warnings)


def test_a_lane_change_to_a_missing_lane_in_init_is_refused_at_load(tmp_path):
    init = lane_teleport("Ego", -1, 20, 10.0).replace("</Private>", _lane_change(-3) + "</Private>")
    with pytest.raises(MapError, match="no lane -4"):
        load_engine(tmp_path, scenario(LATER, init=init))


def test_a_name_that_is_no_valid_expression_is_kept_as_written(tmp_path):
    """`${a + _ + $b}` in a name: `_` is no parameter, so the name stays the string it is."""
    body = event("go", speed_action(5.0), T0).replace('name="go"', 'name="${a + _ + $b}"') + LATER
    eng = load_engine(tmp_path, scenario(body, init=lane_teleport("Ego", -1, 20),
                                         params='<ParameterDeclaration name="b" parameterType="string" value="x"/>'))
    assert eng.element("${a + _ + $b}", "event") is not None
    assert any("Event.name '${a + _ + $b}' is kept as written" in w for w in eng.warnings)


def test_a_bad_expression_elsewhere_is_still_refused(tmp_path):
    body = event("go", speed_action(5.0), T0).replace('<AbsoluteTargetSpeed value="5.0"/>',
                                                     '<AbsoluteTargetSpeed value="${1 + _}"/>')
    with pytest.raises(ScenarioError, match="AbsoluteTargetSpeed.value"):
        load_engine(tmp_path, scenario(body, init=lane_teleport("Ego", -1, 20)))


def _suite(tmp_path, filepath: str):
    """suite/xodr/road.xodr and suite/scenarios/s.xosc naming its map by `filepath`."""
    (tmp_path / "suite" / "xodr").mkdir(parents=True)
    (tmp_path / "suite" / "scenarios").mkdir()
    (tmp_path / "suite" / "xodr" / "road.xodr").write_text(straight_road())
    text = scenario(LATER, init=lane_teleport("Ego", -1, 20)).replace(
        "<RoadNetwork/>", f'<RoadNetwork><LogicFile filepath="{filepath}"/></RoadNetwork>')
    p = tmp_path / "suite" / "scenarios" / "s.xosc"
    p.write_text(text)
    return p


def test_a_logic_file_relative_to_the_suite_root_is_found(tmp_path):
    eng = ScenarioEngine(_suite(tmp_path, "xodr/road.xodr"), seed=0, tick=0.05)
    assert eng.network is not None
    assert any("LogicFile 'xodr/road.xodr' is not found beside the scenario" in w for w in eng.warnings)


def test_a_logic_file_relative_to_the_working_folder_is_found(tmp_path, monkeypatch):
    p = _suite(tmp_path, "suite/xodr/road.xodr")
    monkeypatch.chdir(tmp_path)
    eng = ScenarioEngine(p, seed=0, tick=0.05)
    assert eng.network is not None and str(tmp_path) in eng.warnings[0]


def test_a_logic_file_found_nowhere_is_still_refused(tmp_path):
    with pytest.raises(ScenarioError, match="OpenDRIVE file not found"):
        ScenarioEngine(_suite(tmp_path, "nowhere/road.xodr"), seed=0, tick=0.05)


BAD_CATALOG = f"""<?xml version="1.0"?><OpenSCENARIO>
<FileHeader revMajor="1" revMinor="0" date="2024-01-01T00:00:00" description="c" author="t"/>
<Catalog name="VehicleCatalog">
  {VEHICLE.replace('<Vehicle name="car"', '<Vehicle name="good"')}
  {VEHICLE.replace('<Vehicle name="car"', '<Vehicle name="broken"').replace(
    "<BoundingBox>", '<ParameterDeclarations><ParameterDeclaration name="w" parameterType="double" value="time"/>'
    '</ParameterDeclarations><BoundingBox>')}
</Catalog></OpenSCENARIO>"""


def test_an_unreferenced_bad_catalog_entry_does_not_refuse_the_scenario(tmp_path):
    """Catalog entries are resolved when referenced: the broken one, never referenced, is never read."""
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "Vehicles.xosc").write_text(BAD_CATALOG)
    text = scenario(LATER, init=lane_teleport("Ego", -1, 20),
                    extra='<CatalogLocations><VehicleCatalog><Directory path="cat"/></VehicleCatalog></CatalogLocations>')
    ref = '<CatalogReference catalogName="VehicleCatalog" entryName="{}"/>'
    good = text.replace(VEHICLE, ref.format("good"), 1)
    assert load_engine(tmp_path, good).entities["Ego"].length == 5.0
    with pytest.raises(ScenarioError, match="'time' is not a valid double"):
        load_engine(tmp_path, text.replace(VEHICLE, ref.format("broken"), 1))


def test_warnings_reach_the_trace(tmp_path):
    """What the engine read past is in trace.info["warnings"] of a run."""
    body = event("lc", _lane_change(-3), trigger("StartTrigger", sim_time(0.5, rule="greaterOrEqual"))) + LATER
    (tmp_path / "road.xodr").write_text(straight_road().replace('length="500.0" id="1"', 'length="510" id="1"'))
    text = scenario(body, init=lane_teleport("Ego", -1, 20, 10.0)).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    sim = EmbeddedSimulation(load_bundle(tmp_path / "s.xosc"), seed=0, settings=SimSettings(tick=0.05, traffic=False))
    for _ in range(20):
        sim.step(None)
    warnings = sim.trace.info["warnings"]
    assert any("length=510 but the planView's geometries end at s=500" in w for w in warnings)
    assert any("LaneChangeAction on Ego at 0.50 s skipped" in w for w in warnings)
    sim.close()
    assert os.path.isfile(tmp_path / "s.xosc")
