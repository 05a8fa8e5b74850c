"""A player-specific driver model roadtest does not have is reported, not silently replaced."""

from __future__ import annotations

from roadtest.sim.xosc import drivers
from roadtest.sim.xosc.engine import ScenarioEngine
from xosc_docs import lane_teleport, scenario, sim_time, straight_road, trigger, with_controller

TICK = 0.05
KIND = "LoomingController"  # an esmini kind; the test removes any model or refusal another module adds for it


def _run(path, seconds=3.0):
    eng = ScenarioEngine(path, seed=1, tick=TICK)
    eng.init()
    for k in range(int(seconds / TICK)):
        eng.step(round(k * TICK, 9))
    return eng


def _doc(tmp_path, props: str):
    (tmp_path / "road.xodr").write_text(straight_road())
    text = scenario("", init=lane_teleport("Ego", -1, 10, 10) + """<Private entityRef="Ego"><PrivateAction>
        <ActivateControllerAction longitudinal="true" lateral="true"/></PrivateAction></Private>""",
                    stop=trigger("StopTrigger", sim_time(10)))
    text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    ctrl = f'<ObjectController><Controller name="c"><Properties>{props}</Properties></Controller></ObjectController>'
    p = tmp_path / "s.xosc"
    p.write_text(with_controller(text, ctrl))
    return p


def test_unmodelled_driver_model_is_reported(tmp_path, monkeypatch):
    monkeypatch.delitem(drivers.MODELS, KIND, raising=False)
    monkeypatch.delitem(drivers.REFUSED, KIND, raising=False)
    eng = _run(_doc(tmp_path, f'<Property name="esminiController" value="{KIND}"/>'))
    assert any(KIND in w and "default controller" in w for w in eng.warnings), eng.warnings
    assert eng.entities["Ego"].x > 10 + 25.0  # the default controller drove it at 10 m/s for 3 s


def test_a_controller_without_a_kind_has_no_warning(tmp_path):
    assert _run(_doc(tmp_path, '<Property name="someSetting" value="1"/>')).warnings == []


def test_plain_scenario_has_no_warning(conformance_dir):
    assert _run(conformance_dir / "esmini/resources/xosc/cut-in_simple.xosc").warnings == []
