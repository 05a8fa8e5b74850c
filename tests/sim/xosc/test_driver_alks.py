"""ALKS_R157SM_Controller: the regulation-157 safety models brake for cut-ins, follow a lead, and drive esmini's corpus files as esmini."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from roadtest.errors import ScenarioError
from roadtest.sim.xosc.conditions import boxes_overlap
from roadtest.sim.xosc.drivers.acc import ACC
from roadtest.sim.xosc.drivers.alks_r157 import ALKS, ALKSR157
from roadtest.sim.xosc.engine import ScenarioEngine
from xosc_docs import event, lane_teleport, scenario, sim_time, teleport, trigger, load_engine, with_controller

TICK = 0.05
G = 9.81


def _ctrl(**props: str) -> str:
    p = "".join(f'<Property name="{k}" value="{v}"/>' for k, v in props.items())
    return (f'<ObjectController><Controller name="ALKS_R157SM_Controller"><Properties>{p}</Properties>'
            f'</Controller></ObjectController>')


def _cut_in_doc(ctrl: str, target_s: float = 75.0) -> str:
    """Ego (lane -2, 20 m/s) and a slower Target (lane -1, 15 m/s) ahead that cuts into the Ego lane at 1 s."""
    change = """<PrivateAction><LateralAction><LaneChangeAction>
      <LaneChangeActionDynamics dynamicsShape="sinusoidal" dynamicsDimension="time" value="2"/>
      <LaneChangeTarget><AbsoluteTargetLane value="-2"/></LaneChangeTarget></LaneChangeAction></LateralAction></PrivateAction>"""
    init = lane_teleport("Ego", -2, 50, 20) + lane_teleport("Target", -1, target_s, 15)
    if ctrl:
        init += """<Private entityRef="Ego"><PrivateAction><ControllerAction>
            <ActivateControllerAction longitudinal="true" lateral="false"/></ControllerAction></PrivateAction></Private>"""
    text = scenario(event("CutIn", change, trigger("StartTrigger", sim_time(1.0))), entities=("Ego", "Target"),
                    init=init, stop=trigger("StopTrigger", sim_time(8)), actors=("Target",))
    return with_controller(text, ctrl)


def _follow_doc(ctrl: str, lane: int = -1) -> str:
    """Ego at 20 m/s 90 m behind a 15 m/s Lead; lane 1 runs against s (from the far end of a 1500 m road)."""
    s0 = 10 if lane < 0 else 1490
    ahead = 90 if lane < 0 else -90
    init = lane_teleport("Ego", lane, s0, 20) + lane_teleport("Lead", lane, s0 + ahead, 15) + """<Private entityRef="Ego">
        <PrivateAction><ControllerAction><ActivateControllerAction longitudinal="true" lateral="false"/>
        </ControllerAction></PrivateAction></Private>"""
    text = scenario("", entities=("Ego", "Lead"), init=init, stop=trigger("StopTrigger", sim_time(60)), actors=("Lead",))
    return with_controller(text, ctrl)


def _engine(tmp_path: Path, text: str, length: float = 500.0) -> ScenarioEngine:
    return load_engine(tmp_path, text, length, TICK)


def _run(eng: ScenarioEngine, seconds: float) -> dict[str, list[float]]:
    """Step the engine; per tick the Ego's speed and whether Ego and the other car's boxes overlap."""
    other = [n for n in eng.entities if n != "Ego"][0]
    out: dict[str, list[float]] = {"v": [], "hit": [], "gap": []}
    for k in range(int(round(seconds / TICK))):
        eng.step(round(k * TICK, 9))
        ego, o = eng.entities["Ego"], eng.entities[other]
        out["v"].append(ego.speed)
        out["hit"].append(float(boxes_overlap(ego, o)))
        ahead = (o.x - ego.x) * math.cos(ego.h) + (o.y - ego.y) * math.sin(ego.h)
        out["gap"].append(ahead - (o.length / 2 - o.bbox_cx) - (ego.bbox_cx + ego.length / 2))
    return out


def _decels(v: list[float]) -> list[float]:
    return [(a - b) / TICK for a, b in zip(v, v[1:])]


def test_the_default_controller_runs_into_the_cut_in(tmp_path):
    run = _run(_engine(tmp_path, _cut_in_doc("")), 6.0)
    assert any(run["hit"]), "the scenario is meant to end in a collision without the ALKS"


def test_regulation_model_brakes_for_the_cut_in_within_r157_limits(tmp_path):
    eng = _engine(tmp_path, _cut_in_doc(_ctrl(model="Regulation", cruise="false", fullStop="true")))
    assert isinstance(eng.drivers.get("Ego"), ALKSR157)
    run = _run(eng, 8.0)
    assert not any(run["hit"])
    dec = _decels(run["v"])
    assert max(dec) == pytest.approx(6.0, abs=1e-6)  # R157 5.2.5.4: 6 m/s^2, no more
    first = next(i for i, d in enumerate(dec) if d > 0) * TICK
    assert first > 1.6  # not before the Target's wheel is 0.3 m inside the Ego lane
    assert run["v"][-1] == 0.0  # fullStop: once critical it brakes to a standstill


def _at(log: list[str], what: str) -> float:
    return next(float(line.split("s ")[0]) for line in log if what in line)


@pytest.mark.parametrize("delay", ["Time", "Dist"])
def test_reference_driver_perceives_reacts_then_brakes_with_limited_jerk(tmp_path, delay):
    eng = _engine(tmp_path, _cut_in_doc(_ctrl(model="ReferenceDriver", cruise="false", fullStop="false",
                                              cutInPerceptionDelayMode=delay), target_s=73.0))
    run = _run(eng, 6.0)
    assert not any(run["hit"])
    dec = _decels(run["v"])
    first = next(i for i, d in enumerate(dec) if d > 0) * TICK
    # the Target starts moving at 1 s; wandering 0.375 m, then 0.4 s perception and 0.75 s reaction
    assert first >= 1.0 + 0.4 + 0.75
    assert max(dec) <= 0.85 * G + 1e-6  # AEB deceleration is the ceiling
    onset = [(b - a) / TICK for a, b in zip(dec, dec[1:])]  # the brake is applied with limited jerk
    assert max(onset) <= 0.774 * G / 0.6 + 0.85 * G / 0.6 + 1e-6
    log = eng.drivers["Ego"].model.log
    perceived = _at(log, "PERCEIVE -> REACT")
    assert _at(log, "REACT -> BRAKE_REF") - perceived == pytest.approx(0.75)  # reaction time
    if delay == "Time":
        assert perceived - _at(log, "INACTIVE -> PERCEIVE") == pytest.approx(0.4)  # perception time
    else:  # perceived once the Target has moved 0.72 m further towards the Ego lane
        assert perceived - _at(log, "INACTIVE -> PERCEIVE") < 0.4


@pytest.mark.parametrize("model,max_dec", [("RSS", 0.774 * G), ("FSM", 6.0)])
def test_rss_and_fsm_wait_their_reaction_time_then_brake_clear_of_the_cut_in(tmp_path, model, max_dec):
    eng = _engine(tmp_path, _cut_in_doc(_ctrl(model=model, cruise="false")))
    run = _run(eng, 6.0)
    assert not any(run["hit"])
    dec = _decels(run["v"])
    assert 0 < max(dec) <= max_dec + 1e-6
    critical = next(float(line.split("s ")[0]) for line in eng.drivers["Ego"].model.log if "-> CRITICAL" in line)
    first = (next(i for i, d in enumerate(dec) if d > 1e-9) + 1) * TICK  # the tick ending at this time
    assert first >= critical + 0.75 - 1e-9  # 0.75 s reaction time, foot off the pedal meanwhile


@pytest.mark.parametrize("lane", [-1, 1])
def test_regulation_cruise_follows_a_lead_at_the_r157_gap(tmp_path, lane):
    eng = _engine(tmp_path, _follow_doc(_ctrl(model="Regulation", cruise="true"), lane), length=1500.0)
    run = _run(eng, 40.0)
    v = run["v"][-1]
    assert v == pytest.approx(15.0, abs=0.05)
    assert max(run["v"]) <= 20.0 + 1e-9  # never above the set speed (the speed at activation)
    gap = v * (1.0 + v * 3.6 / 100.0)  # R157 5.2.3.3 time gap above 10 km/h
    # the model measures before its own move and after the lead's (as esmini), so it sees one step more
    assert run["gap"][-1] + v * TICK == pytest.approx(gap, abs=0.1)


def test_without_a_map_the_model_measures_along_the_ego_heading(tmp_path):
    init = teleport("Ego", 0, 0, 0, 20) + teleport("Lead", 90, 0.3, 0, 15) + """<Private entityRef="Ego">
        <PrivateAction><ControllerAction><ActivateControllerAction longitudinal="true" lateral="false"/>
        </ControllerAction></PrivateAction></Private>"""
    text = scenario("", entities=("Ego", "Lead"), init=init, stop=trigger("StopTrigger", sim_time(60)), actors=("Lead",))
    text = with_controller(text, _ctrl(model='Regulation'))
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", tick=TICK)
    eng.init()
    run = _run(eng, 40.0)
    v = run["v"][-1]
    assert v == pytest.approx(15.0, abs=0.05)
    assert run["gap"][-1] + v * TICK == pytest.approx(v * (1.0 + v * 3.6 / 100.0), abs=0.1)
    assert eng.drivers["Ego"].model.log[0].startswith("8.95s")  # the lead comes within the 46 m range at 8.95 s


def test_without_cruise_the_reference_driver_keeps_its_speed_behind_a_steady_lead(tmp_path):
    eng = _engine(tmp_path, _follow_doc(_ctrl(model="ReferenceDriver", cruise="false")), length=1500.0)
    run = _run(eng, 3.0)
    assert run["v"][-1] == pytest.approx(20.0)  # no scenario perceived: the pedal stays where it is


def test_plain_alks_controller_drives_as_esmini_s_acc(tmp_path):
    runs = {}
    for kind in ("ALKSController", "ACCController"):
        ctrl = (f'<ObjectController><Controller name="c"><Properties><Property name="esminiController" value="{kind}"/>'
                f'</Properties></Controller></ObjectController>')
        eng = _engine(tmp_path, _follow_doc(ctrl), length=1500.0)
        assert isinstance(eng.drivers.get("Ego"), ALKS if kind == "ALKSController" else ACC)
        runs[kind] = _run(eng, 20.0)["v"]
    assert runs["ALKSController"] == runs["ACCController"]
    assert runs["ALKSController"][-1] < 16.0  # it slowed for the lead (the default controller would not)


def test_an_unknown_model_is_a_located_scenario_error(tmp_path):
    with pytest.raises(ScenarioError) as ei:
        _engine(tmp_path, _cut_in_doc(_ctrl(model="Clairvoyant")))
    msg = str(ei.value)
    assert "Clairvoyant" in msg and "model" in msg and "s.xosc" in msg and "Regulation" in msg


def test_a_non_numeric_property_is_a_located_scenario_error(tmp_path):
    with pytest.raises(ScenarioError) as ei:
        _engine(tmp_path, _cut_in_doc(_ctrl(model="ReferenceDriver", aebTTC="soon")))
    assert "aebTTC" in str(ei.value) and "'soon'" in str(ei.value)


# ---------------------------------------------------------------------------- esmini's corpus files
CORPUS = {  # file -> the largest Ego position difference from esmini's trajectory this model reaches (m)
    "alks_cut-in": 0.1,
    "alks_cut-out": 0.1,
    "alks_pedestrian": 0.1,
    "alks_r157_cut_in_quick_brake": 0.3,  # the Target's braking runs 0.26 m short of esmini's (SpeedAction timing)
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_file_drives_like_esmini(conformance_dir, name):
    ref: dict[tuple[float, str], tuple[float, float]] = {}
    with open(conformance_dir / "esmini_reference" / f"{name}.csv", newline="") as f:
        for r in csv.DictReader(f):
            ref[(round(float(r["time"]), 2), r["entity"])] = (float(r["x"]), float(r["y"]))
    with open(conformance_dir / "INDEX.tsv", newline="") as f:
        row = next(r for r in csv.DictReader(f, delimiter="\t") if r["xosc_path"].endswith(f"/{name}.xosc"))
    eng = ScenarioEngine(conformance_dir / row["xosc_path"], tick=TICK)
    eng.init()
    assert isinstance(eng.drivers.get("Ego"), ALKSR157)
    worst, k = 0.0, 0
    while not eng.finished and k < 400:
        t = round(k * TICK, 2)
        if (t, "Ego") in ref:
            x, y = ref[(t, "Ego")]
            worst = max(worst, math.hypot(eng.entities["Ego"].x - x, eng.entities["Ego"].y - y))
        eng.step(t)
        k += 1
    assert eng.finished
    assert eng.time == pytest.approx(float(row["esmini_end_time_s"]), abs=TICK + 1e-6)
    assert worst <= CORPUS[name]
