"""NaturalDriver: keeps its desired speed, overtakes a slow lead and returns to its route lane; highway_driver as esmini."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadtest.sim.xosc import drivers
from roadtest.sim.xosc.conditions import boxes_overlap
from roadtest.sim.xosc.drivers.natural import NaturalDriver
from roadtest.sim.xosc.engine import ScenarioEngine
from xosc_docs import lane_teleport, scenario, sim_time, trigger, load_engine, with_controller

TICK = 0.05
ACTIVATE = """<Private entityRef="Ego"><PrivateAction><ControllerAction>
    <ActivateControllerAction longitudinal="true" lateral="false"/></ControllerAction></PrivateAction></Private>"""
PROPS = {"desiredSpeed": "20", "desiredDistance": "5", "laneChangeDuration": "2", "lookAheadDistance": "100",
         "maxDec": "-5", "maxAcc": "3", "laneChangeDelay": "1", "thw": "1.5", "maxImposedBraking": "4",
         "route": "-2", "laneChangeAccGain": "0.3", "politeness": "0.1", "mode": "override"}


def _engine(tmp_path: Path, ego: tuple[float, float], lead: tuple[float, float] | None = None,
            blocker: tuple[float, float] | None = None, **props: str) -> ScenarioEngine:
    """Ego (s, speed) in lane -2 under a NaturalDriver; optionally a default-driven Lead (s, speed) ahead in lane -2
    and a Blocker (s, speed) in lane -1."""
    p = "".join(f'<Property name="{k}" value="{v}"/>' for k, v in {**PROPS, **props}.items())
    ctrl = f'<ObjectController><Controller name="NaturalDriver"><Properties>{p}</Properties></Controller></ObjectController>'
    init = lane_teleport("Ego", -2, *ego)
    ents: tuple[str, ...] = ("Ego",)
    if lead is not None:
        init += lane_teleport("Lead", -2, *lead)
        ents = ("Ego", "Lead")
    if blocker is not None:
        init += lane_teleport("Blocker", -1, *blocker)
        ents += ("Blocker",)
    text = scenario("", entities=ents, init=init + ACTIVATE, stop=trigger("StopTrigger", sim_time(300)))
    text = with_controller(text, ctrl)
    return load_engine(tmp_path, text, 3000.0, TICK)


def _run(eng: ScenarioEngine, seconds: float) -> list[dict]:
    out = []
    for k in range(int(round(seconds / TICK))):
        eng.step(round(k * TICK, 9))
        ego, lead = eng.entities["Ego"], eng.entities.get("Lead")
        out.append({"v": ego.speed, "lane": ego.lane.lane, "x": ego.x,
                    "lead_x": lead.x if lead else None, "hit": bool(lead and boxes_overlap(ego, lead))})
    return out


def test_keeps_its_desired_speed_on_a_free_road(tmp_path):
    eng = _engine(tmp_path, (10, 10))
    assert isinstance(eng.drivers["Ego"], NaturalDriver)
    rows = _run(eng, 40.0)
    v = [r["v"] for r in rows]
    assert max(v) <= 20.0 + 1e-9
    assert v[-1] > 19.5  # IDM: the approach to the desired speed slows as it nears it
    assert max(b - a for a, b in zip(v, v[1:])) / TICK <= 3.0 + 1e-9  # never above maxAcc
    assert all(r["lane"] == -2 for r in rows)  # nothing to overtake: it stays in its route lane


def test_overtakes_a_slow_lead_and_returns_to_its_route_lane(tmp_path):
    eng = _engine(tmp_path, (10, 20), (80, 8))
    rows = _run(eng, 40.0)
    lanes = [r["lane"] for r in rows]
    assert -1 in lanes  # it pulled out to the left lane
    first_out = lanes.index(-1)
    back = next(i for i in range(first_out, len(lanes)) if lanes[i] == -2)
    assert rows[back]["x"] > rows[back]["lead_x"] + 5.0  # back in its lane only once past the lead
    assert lanes[-1] == -2 and not any(r["hit"] for r in rows)
    assert rows[-1]["v"] > 19.0  # and back to its desired speed
    assert min(r["v"] for r in rows[:first_out]) > 12.0  # it pulled out rather than slowing to the lead's 8 m/s


def test_waits_for_a_gap_when_the_left_lane_is_occupied(tmp_path):
    # a car alongside in the left lane would have to brake hard (maxImposedBraking): the Ego slows behind the lead
    # and pulls out only once the left-lane car has gone by
    eng = _engine(tmp_path, (50, 12), (100, 8), blocker=(45, 14))
    rows = []
    for k in range(int(round(20.0 / TICK))):
        eng.step(round(k * TICK, 9))
        ego, lead, blk = eng.entities["Ego"], eng.entities["Lead"], eng.entities["Blocker"]
        assert not boxes_overlap(ego, lead) and not boxes_overlap(ego, blk)
        rows.append((ego.lane.lane, ego.x, blk.x, ego.speed))
    out = next(i for i, r in enumerate(rows) if r[0] == -1)
    assert rows[out][2] > rows[out][1] + 5.0  # the left-lane car is ahead of the Ego when it pulls out
    assert min(r[3] for r in rows[:out]) < 11.0  # it slowed for the lead while it waited


def test_follows_a_lead_it_cannot_overtake(tmp_path):
    # a lead at the route lane's speed leaves no gain worth a lane change (laneChangeAccGain), so it follows (IDM)
    eng = _engine(tmp_path, (10, 20), (80, 15), laneChangeAccGain="50")
    rows = _run(eng, 60.0)
    assert all(r["lane"] == -2 for r in rows) and not any(r["hit"] for r in rows)
    assert rows[-1]["v"] == pytest.approx(15.0, abs=0.2)
    gap = rows[-1]["lead_x"] - rows[-1]["x"] - 5.0  # both cars 5 m long, same box centre offset
    # IDM equilibrium (s0 + v * thw) / sqrt(1 - (v / v0)^4), seen before the Ego's own step of the tick (as esmini)
    assert gap + 15.0 * TICK == pytest.approx((5.0 + 15.0 * 1.5) / (1 - (15.0 / 20.0) ** 4) ** 0.5, abs=0.1)


def test_highway_driver_drives_as_esmini(conformance_dir, monkeypatch):
    from esmini_corpus import corpus_rows, run_corpus_file

    row = next(r for r in corpus_rows(conformance_dir) if r["xosc_path"].endswith("/highway_driver.xosc"))
    res = run_corpus_file(conformance_dir, row)
    assert res.matches and res.max_diff["Ego"] < 0.1  # 0.012 m today
    monkeypatch.delitem(drivers.MODELS, "NaturalDriver")
    assert run_corpus_file(conformance_dir, row).max_diff["Ego"] > 100.0  # the default controller: 535 m
