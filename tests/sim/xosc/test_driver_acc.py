"""ACCController: cruise at the set speed, close to and hold the time gap, brake for a stopping lead; acc-test as esmini."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadtest.sim.xosc import drivers
from roadtest.sim.xosc.conditions import boxes_overlap
from roadtest.sim.xosc.drivers.acc import ACC
from roadtest.sim.xosc.engine import ScenarioEngine
from xosc_docs import event, lane_teleport, scenario, sim_time, speed_action, trigger, load_engine, with_controller

TICK = 0.05
ACTIVATE = """<Private entityRef="Ego"><PrivateAction><ControllerAction>
    <ActivateControllerAction longitudinal="true" lateral="false"/></ControllerAction></PrivateAction></Private>"""


def _doc(props: dict[str, str], ego: tuple[float, float], lead: tuple[float, float] | None = None, body: str = "",
         actors: tuple[str, ...] = ("Ego",)) -> str:
    """Ego (s, speed) in lane -1 under an ACCController with `props`; optionally a Lead (s, speed) in the same lane."""
    p = "".join(f'<Property name="{k}" value="{v}"/>' for k, v in props.items())
    ctrl = f'<ObjectController><Controller name="ACCController"><Properties>{p}</Properties></Controller></ObjectController>'
    init = lane_teleport("Ego", -1, *ego)
    ents: tuple[str, ...] = ("Ego",)
    if lead is not None:
        init += lane_teleport("Lead", -1, *lead)
        ents = ("Ego", "Lead")
    text = scenario(body, entities=ents, init=init + ACTIVATE, stop=trigger("StopTrigger", sim_time(300)), actors=actors)
    return with_controller(text, ctrl)


def _engine(tmp_path: Path, text: str, length: float = 3000.0) -> ScenarioEngine:
    return load_engine(tmp_path, text, length, TICK)


def _run(eng: ScenarioEngine, seconds: float) -> list[tuple[float, float, bool]]:
    """Per tick: the Ego's speed, the bumper gap to the Lead (inf without one) and whether their boxes overlap."""
    out = []
    for k in range(int(round(seconds / TICK))):
        eng.step(round(k * TICK, 9))
        ego = eng.entities["Ego"]
        lead = eng.entities.get("Lead")
        if lead is None:
            out.append((ego.speed, float("inf"), False))
            continue
        gap = (lead.x - ego.x) - (lead.length / 2 - lead.bbox_cx) - (ego.length / 2 + ego.bbox_cx)
        out.append((ego.speed, gap, boxes_overlap(ego, lead)))
    return out


def test_free_road_reaches_and_keeps_the_set_speed(tmp_path):
    eng = _engine(tmp_path, _doc({"setSpeed": "20", "mode": "override"}, (10, 10)))
    assert isinstance(eng.drivers["Ego"], ACC)
    v = [r[0] for r in _run(eng, 10.0)]
    accel = max(b - a for a, b in zip(v, v[1:])) / TICK
    assert accel == pytest.approx(0.7 * 5.0, abs=1e-6)  # esmini caps free-road acceleration at 0.7 x maxAcceleration
    assert v[-1] == pytest.approx(20.0, abs=1e-9) and max(v) <= 20.0 + 1e-9


def test_closes_to_and_holds_the_time_gap_behind_a_slower_lead(tmp_path):
    eng = _engine(tmp_path, _doc({"setSpeed": "25", "timeGap": "1.5", "mode": "override"}, (10, 25), (160, 15)),
                  length=3000.0)
    rows = _run(eng, 90.0)
    v, gap = rows[-1][0], rows[-1][1]
    assert v == pytest.approx(15.0, abs=0.05)  # matched to the lead
    # 3 m standstill distance + 1.5 s at 15 m/s, measured (as esmini) before the Ego's own step of this tick
    assert gap + 15.0 * TICK == pytest.approx(3.0 + 1.5 * 15.0, abs=0.05)
    assert min(r[1] for r in rows) > 20.0  # it closed in without cutting below the gap on the way
    assert rows[0][0] == 25.0  # the lead starts beyond its look-ahead (max(50 m, 2 x 3 m + v^2 / maxDeceleration))


def test_brakes_for_a_stopping_lead_without_collision(tmp_path):
    brake = event("Brake", speed_action(0.0, "linear", "rate", 6.0), trigger("StartTrigger", sim_time(8.0)))
    eng = _engine(tmp_path, _doc({"setSpeed": "20", "timeGap": "1.0", "mode": "override"}, (10, 20), (60, 15), brake,
                                 actors=("Lead",)))
    rows = _run(eng, 30.0)
    assert not any(r[2] for r in rows)
    assert rows[-1][0] == pytest.approx(0.0, abs=1e-3)  # stopped behind it
    assert 0.0 < rows[-1][1] < 4.0  # within the 3 m standstill distance (or the last metre's hard stop)


def test_additive_mode_takes_a_new_speed_from_a_speed_action_as_the_set_speed(tmp_path):
    slow = event("Slow", speed_action(8.0), trigger("StartTrigger", sim_time(2.0)))
    eng = _engine(tmp_path, _doc({"setSpeed": "30"}, (10, 20), body=slow))
    drv = eng.drivers["Ego"]
    assert drv.mode == "additive" and drv.set_speed == 20.0 and not drv.overrides("long")  # set speed: current speed
    v = [r[0] for r in _run(eng, 10.0)]
    assert v[int(1.5 / TICK)] == pytest.approx(20.0)
    assert v[-1] == pytest.approx(8.0, abs=1e-6)


def test_override_mode_ignores_speed_actions(tmp_path):
    slow = event("Slow", speed_action(8.0), trigger("StartTrigger", sim_time(2.0)))
    eng = _engine(tmp_path, _doc({"setSpeed": "20", "mode": "override"}, (10, 20), body=slow))
    assert eng.drivers["Ego"].overrides("long") and not eng.drivers["Ego"].overrides("lat")
    v = [r[0] for r in _run(eng, 6.0)]
    assert min(v) == pytest.approx(20.0)


def _corpus_ego_diff(conformance_dir: Path, name: str) -> float:
    from esmini_corpus import corpus_rows, run_corpus_file

    row = next(r for r in corpus_rows(conformance_dir) if r["xosc_path"].endswith(f"/{name}.xosc"))
    res = run_corpus_file(conformance_dir, row)
    assert res.matches, res
    return res.max_diff["Ego"]


def test_acc_test_drives_as_esmini(conformance_dir, monkeypatch):
    assert _corpus_ego_diff(conformance_dir, "acc-test") < 0.1  # 0.02 m today
    monkeypatch.delitem(drivers.MODELS, "ACCController")
    assert _corpus_ego_diff(conformance_dir, "acc-test") > 10.0  # the default controller: 68.9 m


def _curve_map() -> str:
    """Road 1 (100 m along +x) continued by road 2, a 80 m left arc of radius 50 m; one lane each way."""
    def lanes(link: str) -> str:
        def lane(i: int) -> str:
            return (f'<lane id="{i}" type="driving" level="false"><link><{link} id="{i}"/></link>'
                    f'<width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane>')
        return (f'<lanes><laneSection s="0"><left>{lane(1)}</left><center><lane id="0" type="none" level="false"/>'
                f'</center><right>{lane(-1)}</right></laneSection></lanes>')
    return f"""<?xml version="1.0"?><OpenDRIVE><header revMajor="1" revMinor="4" name="t" version="1.0"/>
<road name="a" length="100" id="1" junction="-1"><link><successor elementType="road" elementId="2" contactPoint="start"/></link>
<planView><geometry s="0" x="0" y="0" hdg="0" length="100"><line/></geometry></planView>{lanes("successor")}</road>
<road name="b" length="80" id="2" junction="-1"><link><predecessor elementType="road" elementId="1" contactPoint="end"/></link>
<planView><geometry s="0" x="100" y="0" hdg="0" length="80"><arc curvature="0.02"/></geometry></planView>{lanes("predecessor")}</road>
</OpenDRIVE>"""


def test_a_lead_on_the_next_road_is_measured_along_the_lanes(tmp_path):
    from roadtest.sim.xosc.drivers.acc import predicted, road_delta

    def put(name: str, road: int, lane: int, s: float) -> str:
        return (f'<Private entityRef="{name}"><PrivateAction><TeleportAction><Position><LanePosition roadId="{road}" '
                f'laneId="{lane}" s="{s}" offset="0"/></Position></TeleportAction></PrivateAction></Private>')

    ctrl = '<ObjectController><Controller name="ACCController"><Properties/></Controller></ObjectController>'
    text = scenario("", entities=("Ego", "Lead", "Oncoming"), init=lane_teleport("Ego", -1, 50, 30) + put("Lead", 2, -1, 40)
                    + put("Oncoming", 2, 1, 20) + ACTIVATE, stop=trigger("StopTrigger", sim_time(10)))
    text = with_controller(text, ctrl)
    (tmp_path / "road.xodr").write_text(_curve_map())
    text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=TICK)
    eng.init()
    ego = eng.entities["Ego"]
    here = predicted(eng, "Ego", "Ego")
    lead = road_delta(eng, ego, here, eng.entities["Lead"], predicted(eng, "Ego", "Lead"), False, 200.0)
    assert lead is not None and lead.ds == pytest.approx(50.0 + 40.0, abs=1e-6) and lead.dlane == 0  # not the chord
    oncoming = road_delta(eng, ego, here, eng.entities["Oncoming"], predicted(eng, "Ego", "Oncoming"), False, 200.0)
    assert oncoming is not None and oncoming.dlane == 1 and not oncoming.same_dir
    assert road_delta(eng, ego, here, eng.entities["Lead"], predicted(eng, "Ego", "Lead"), False, 80.0) is None
    eng.step(0.0)  # at 30 m/s it looks 6 m + v^2 / 9 m/s^2 = 106 m ahead
    assert eng.drivers["Ego"].lead == "Lead"
