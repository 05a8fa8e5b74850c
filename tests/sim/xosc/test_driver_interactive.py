"""esmini's InteractiveController headless: released pedals and wheel, so the entity coasts straight off a curve."""

from __future__ import annotations

import math

import pytest

from roadtest.sim.xosc.drivers.interactive import InteractiveHeadless
from roadtest.sim.xosc.engine import ScenarioEngine
from xosc_docs import lane_teleport, scenario, sim_time, trigger

TICK = 0.05
RADIUS = 100.0  # m, the bend after the first 100 m of road


def _curved_road() -> str:
    """100 m straight along +x, then a left bend of radius 100 m for 300 m; lanes 1 and -1, 3.5 m wide."""
    lane = ('<lane id="{}" type="driving" level="false"><link/><width sOffset="0" a="3.5" b="0" c="0" d="0"/>'
            '<roadMark sOffset="0" type="broken" weight="standard" color="standard" width="0.12"/></lane>')
    return f"""<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4" name="t" version="1.0"/>
<road name="r" length="400" id="1" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="100"><line/></geometry>
<geometry s="100" x="100" y="0" hdg="0" length="300"><arc curvature="{1 / RADIUS}"/></geometry></planView>
<lanes><laneSection s="0"><left>{lane.format(1)}</left>
<center><lane id="0" type="none" level="false"/></center>
<right>{lane.format(-1)}</right></laneSection></lanes></road></OpenDRIVE>
"""


def _ctrl(name: str, factor: float = 1.0) -> str:
    return (f'<Controller name="{name}"><Properties><Property name="esminiController" value="InteractiveController"/>'
            f'<Property name="speedFactor" value="{factor}"/></Properties></Controller>')


def _assign(name: str, lat: bool, lon: bool, factor: float = 1.0) -> str:
    return (f'<PrivateAction><ControllerAction><AssignControllerAction>{_ctrl(name, factor)}</AssignControllerAction>'
            f'</ControllerAction></PrivateAction><PrivateAction><ActivateControllerAction '
            f'lateral="{str(lat).lower()}" longitudinal="{str(lon).lower()}"/></PrivateAction>')


def _event(name: str, actions: str, start: str) -> str:
    """An event whose action elements are the PrivateActions of `actions`, one each."""
    parts = [p + "</PrivateAction>" for p in actions.split("</PrivateAction>") if p]
    acts = "".join(f'<Action name="{name}_{i}">{p}</Action>' for i, p in enumerate(parts))
    return f'<Event name="{name}" priority="parallel" maximumExecutionCount="1">{acts}{start}</Event>'


def _engine(tmp_path, body: str, init_ctrl: str = "", speed: float = 15.0, road: str | None = None):
    (tmp_path / "road.xodr").write_text(road or _curved_road())
    init = lane_teleport("Ego", -1, 10, speed)
    if init_ctrl:
        init = init.replace("</Private>", init_ctrl + "</Private>")
    text = scenario(body, init=init, stop=trigger("StopTrigger", sim_time(100)))
    text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=TICK)
    eng.init()
    return eng


def _run(eng, t0: float, t1: float, external=frozenset()) -> None:
    for k in range(int(round(t0 / TICK)), int(round(t1 / TICK))):
        eng.step(round(k * TICK, 9), external)


def _lane_y_at(x: float) -> float:
    """y of lane -1's centre (1.75 m right of the reference line) where the bend has advanced x - 100 m along +x."""
    a = math.asin((x - 100) / (RADIUS + 1.75))
    return RADIUS - (RADIUS + 1.75) * math.cos(a)


def test_both_domains_coast_straight_off_the_bend(tmp_path):
    eng = _engine(tmp_path, "", init_ctrl=_assign("i", True, True))
    assert isinstance(eng.drivers["Ego"], InteractiveHeadless)
    _run(eng, 0, 10)
    e = eng.entities["Ego"]
    assert e.speed == pytest.approx(15 * 0.999 ** 200, rel=1e-6)  # engine brake only: 0.1 % a tick
    assert e.y == pytest.approx(-1.75, abs=1e-6) and e.h == pytest.approx(0.0, abs=1e-9)  # the wheel stays straight
    assert e.x > 140 and e.y < _lane_y_at(e.x) - 5  # the road turned away: the entity left it
    assert eng.motions["Ego"].odometer == pytest.approx(e.x - 10, rel=1e-6)


def test_lateral_only_keeps_the_storyboard_speed(tmp_path):
    eng = _engine(tmp_path, "", init_ctrl=_assign("i", True, False))
    _run(eng, 0, 8)
    e = eng.entities["Ego"]
    assert e.speed == pytest.approx(15.0) and e.y == pytest.approx(-1.75, abs=1e-6)
    assert e.x == pytest.approx(10 + 15 * 8, abs=1e-6)


def test_longitudinal_only_coasts_along_the_bend(tmp_path):
    eng = _engine(tmp_path, "", init_ctrl=_assign("i", False, True))
    _run(eng, 0, 8)
    e = eng.entities["Ego"]
    assert e.speed == pytest.approx(15 * 0.999 ** 160, rel=1e-6)
    assert e.lane is not None and e.lane.lane == -1 and abs(eng.motions["Ego"].offset) < 1e-6
    assert e.h > 0.1  # turned with the road


def test_speed_factor_caps_the_speed_at_the_limit(tmp_path):
    # one driving lane each way and no speed limit in the road: esmini takes 60 km/h
    eng = _engine(tmp_path, "", init_ctrl=_assign("i", True, True, factor=0.5), speed=20.0)
    _run(eng, 0, TICK)
    assert eng.entities["Ego"].speed == pytest.approx(0.5 * 60 / 3.6)
    _run(eng, TICK, 2 * TICK)
    assert eng.entities["Ego"].speed == pytest.approx(0.5 * 60 / 3.6 * 0.999)


def test_an_agent_driving_the_entity_replaces_the_model_and_it_resumes_from_there(tmp_path):
    eng = _engine(tmp_path, "", init_ctrl=_assign("i", True, True))
    e = eng.entities["Ego"]
    _run(eng, 0, 1, external={"Ego"})
    assert e.x == pytest.approx(10.0) and e.speed == 15.0  # the engine leaves it to the agent
    e.x, e.y, e.speed = 30.0, -2.0, 10.0  # the agent moved it and slowed down
    _run(eng, 1, 2)
    assert e.x == pytest.approx(30 + sum(10 * 0.999 ** k * TICK for k in range(1, 21))) and e.y == pytest.approx(-2.0)


@pytest.mark.parametrize("activation", ['lateral="true" longitudinal="false"', 'longitudinal="true"'])
def test_a_displaced_lateral_controller_stays_until_another_takes_the_lateral_domain(tmp_path, activation):
    later = _event("Long", _assign("i2", False, True), trigger("StartTrigger", sim_time(2)))
    takeover = _assign("d", True, False).replace("InteractiveController", "DefaultController")
    takeover = takeover.replace('lateral="true" longitudinal="false"', activation)  # no lateral attribute: it is on too
    lane = _event("Lat", takeover, trigger("StartTrigger", sim_time(9)))
    eng = _engine(tmp_path, later + lane, init_ctrl=_assign("i", True, False))
    _run(eng, 0, 8)
    e = eng.entities["Ego"]
    assert "Ego" in eng.lateral_keepers and eng.drivers["Ego"].longitudinal
    assert e.y == pytest.approx(-1.75, abs=1e-6) and e.speed < 15.0  # straight (first one), coasting (second one)
    _run(eng, 8, 9.5)
    assert "Ego" not in eng.lateral_keepers  # the default controller took the lateral domain back
