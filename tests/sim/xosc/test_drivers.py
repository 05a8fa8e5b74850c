"""The driver-model hook: a Controller kind roadtest models drives its entity while active; refused kinds fail the load."""

from __future__ import annotations

import pytest

from roadtest.errors import UnsupportedError
from roadtest.sim.xosc import drivers
from roadtest.sim.xosc.engine import controller_kind
from xosc_docs import event, lane_teleport, scenario, sim_time, trigger, load_engine, with_controller

TICK = 0.05


class HalfSpeed(drivers.DriverModel):
    """Test model: drives at half the commanded speed (longitudinal), the default controller laterally."""

    stopped = 0

    def drive(self, engine, t_next):
        e = engine.entities[self.name]
        e.speed *= 0.5
        self.default(engine, t_next)
        e.speed *= 2.0

    def stop(self, engine):
        type(self).stopped += 1


def _controller(name: str, kind_prop: bool = True) -> str:
    prop = '<Property name="esminiController" value="HalfSpeed"/>' if kind_prop else ""
    return f'<ObjectController><Controller name="{name}"><Properties>{prop}</Properties></Controller></ObjectController>'


def _doc(ctrl: str, body: str = "") -> str:
    text = scenario(body, init=lane_teleport("Ego", -1, 10, 10) + """<Private entityRef="Ego"><PrivateAction>
        <ActivateControllerAction longitudinal="true" lateral="true"/></PrivateAction></Private>""",
                    stop=trigger("StopTrigger", sim_time(10)))
    return with_controller(text, ctrl)


def _engine(tmp_path, text):
    return load_engine(tmp_path, text, tick=TICK)


def _x_after(eng, seconds):
    for k in range(int(round(seconds / TICK))):
        eng.step(round(k * TICK, 9))
    return eng.entities["Ego"].x


def test_a_modelled_kind_drives_its_entity(tmp_path, monkeypatch):
    monkeypatch.setitem(drivers.MODELS, "HalfSpeed", f"{__name__}:HalfSpeed")
    eng = _engine(tmp_path, _doc(_controller("c")))
    assert isinstance(eng.drivers.get("Ego"), HalfSpeed)
    assert _x_after(eng, 2.0) == pytest.approx(10 + 10.0, abs=0.3)  # 5 m/s for 2 s, not 10
    assert eng.warnings == []


def test_without_the_model_the_default_controller_drives_and_says_so(tmp_path):
    eng = _engine(tmp_path, _doc(_controller("c")))
    assert eng.drivers == {}
    assert _x_after(eng, 2.0) == pytest.approx(10 + 20.0, abs=0.3)
    assert any("'HalfSpeed'" in w and "not modelled" in w for w in eng.warnings)


def test_deactivation_stops_the_model(tmp_path, monkeypatch):
    monkeypatch.setitem(drivers.MODELS, "HalfSpeed", f"{__name__}:HalfSpeed")
    off = event("Off", """<PrivateAction><ActivateControllerAction longitudinal="false" lateral="false"/></PrivateAction>""",
                trigger("StartTrigger", sim_time(0.95)))
    HalfSpeed.stopped = 0
    eng = _engine(tmp_path, _doc(_controller("c"), off))
    x = _x_after(eng, 2.0)
    assert "Ego" not in eng.drivers and HalfSpeed.stopped == 1
    assert 10 + 14.0 < x < 10 + 16.0  # about 1 s at 5 m/s, then 1 s at 10 m/s


def test_a_refused_kind_fails_the_load_by_name(tmp_path, monkeypatch):
    monkeypatch.setitem(drivers.REFUSED, "HalfSpeed", "a test refusal")
    with pytest.raises(UnsupportedError, match=r"unsupported: HalfSpeed at .*s\.xosc:\d+ \(a test refusal\)"):
        _engine(tmp_path, _doc(_controller("c")))


def test_an_esmini_controller_without_its_property_is_known_by_its_name(tmp_path):
    from lxml import etree

    named = etree.fromstring('<Controller name="ACCController"><Properties/></Controller>')
    other = etree.fromstring('<Controller name="myDriver"><Properties/></Controller>')
    assert controller_kind(named) == "ACCController" and controller_kind(other) == ""
