"""Heads on every arm of a signalised junction: placement, the generated plan, and the conflicting-green check."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from lxml import etree

from roadtest.cli import main
from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.loader import Variant
from roadtest.dsl.model import Scenario, TrafficLight
from roadtest.dsl.signal_plan import go_intervals, heads_conflict, junction_heads
from roadtest.dsl.validate import check_file


def _scenario(**road) -> dict:
    return {"name": "heads", "country": "CN", "road": {"kind": "intersection", "length": 130, **road},
            "ego": {"lane": 1, "s": 10, "speed": 30, "route": {"exit": "straight"}}, "rules": ["red_light"]}


def _cycle(green: float, red: float) -> list[dict]:
    return [{"state": "green", "duration": green}, {"state": "red", "duration": red}]


def test_conflicting_greens_fail_convert_with_both_heads_and_the_time(tmp_path, capsys):
    # main: green [0, 20); side (left arm) 15 s into the same cycle at t = 0: green [0, 5), then [25, 45)
    lights = [{"id": "main", "s": 127, "phases": _cycle(20, 20)},
              {"id": "side", "arm": "left", "s": 127, "offset": 15, "phases": _cycle(20, 20)}]
    src = tmp_path / "conflict.yaml"
    src.write_text(yaml.safe_dump(_scenario(traffic_lights=lights), sort_keys=False))
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    line = next(i for i, text in enumerate(src.read_text().splitlines(), 1) if "id: side" in text)
    assert f"conflict.yaml:{line}:" in err and "road.traffic_lights.1" in err
    assert "conflicting greens" in err and "main (the ego's approach, turn all)" in err
    assert "side (the left arm, turn all)" in err and "t = 0.0 s to 5.0 s" in err
    assert "Traceback" not in err


def test_heads_that_take_turns_convert(tmp_path, capsys):
    lights = [{"id": "main", "s": 127, "phases": _cycle(20, 20)},
              {"id": "side", "arm": "left", "s": 127, "offset": 20, "phases": _cycle(20, 20)},  # green [20, 40)
              {"id": "facing", "arm": "opposite", "s": 127, "phases": _cycle(20, 20)}]  # with main: compatible
    src = tmp_path / "ok.yaml"
    src.write_text(yaml.safe_dump(_scenario(traffic_lights=lights), sort_keys=False))
    assert main(["convert", str(src), "-o", str(tmp_path / "out")]) == 0


def _tl(arm=None, turn="all") -> TrafficLight:
    return TrafficLight(id="x", s=1.0, phases=[{"state": "green", "duration": 1}], arm=arm, turn=turn)


@pytest.mark.parametrize("a, b, traffic, conflict", [
    ((None, "all"), ("opposite", "all"), "right", False),  # opposite full heads: far-side turns are permitted
    ((None, "all"), ("opposite", "left"), "right", True),  # a protected left across the oncoming straight
    ((None, "left"), ("opposite", "left"), "right", False),  # opposing protected lefts pass each other
    ((None, "right"), ("right", "right"), "right", False),  # near-side turns of adjacent arms: S->E, E->N
    ((None, "right"), ("left", "straight"), "right", True),  # both end in the east arm
    ((None, "straight"), ("right", "straight"), "right", True),  # crossing streams
    ((None, "left"), ("left", "left"), "left", False),  # left-hand traffic: near-side turns S->W, W->N
    ((None, "all"), ("opposite", "right"), "left", True),  # left-hand traffic: a protected far-side (right) turn
])
def test_movement_conflicts(a, b, traffic, conflict):
    assert (heads_conflict(_tl(*a), _tl(*b), traffic) is not None) == conflict


def test_two_phase_plan_intervals_by_hand():
    sc = Scenario.model_validate(_scenario(signal_plan={"kind": "two_phase", "green": 20, "yellow": 3, "all_red": 1,
                                                        "cross_green": 7, "offset": 23}))
    heads = {h.light.id: h.light for h in junction_heads(sc.road)}
    assert sorted(heads) == ["tl_left", "tl_main", "tl_opposite", "tl_right"]
    # cycle 20 + 3 + 1 + 7 + 3 + 1 = 35 s; t = 0 is 23 s in, where the ego's axis turns red
    assert go_intervals(heads["tl_main"], 70) == [(12.0, 32.0, "green"), (32.0, 35.0, "yellow"),
                                                  (47.0, 67.0, "green"), (67.0, 70.0, "yellow")]
    assert go_intervals(heads["tl_left"], 70) == [(1.0, 8.0, "green"), (8.0, 11.0, "yellow"),
                                                  (36.0, 43.0, "green"), (43.0, 46.0, "yellow")]
    assert go_intervals(heads["tl_opposite"], 70) == go_intervals(heads["tl_main"], 70)
    assert all(h.s == 127.0 for h in heads.values())


def _bundle(tmp_path: Path, country: str) -> Path:
    data = _scenario(signal_plan={"kind": "two_phase", "green": 20, "yellow": 3, "all_red": 2})
    data["country"] = country
    data["actors"] = [{"id": "officer", "kind": "police_officer", "place": {"side": "kerb", "s": 126},
                       "signal": [{"state": "stop", "duration": 12}, {"state": "go", "duration": 30}]}]
    data["rules"] = ["red_light", "officer_signal"]
    v = Variant(scenario=Scenario.model_validate(data), id=f"heads-{country}", seed=0, sweep={}, source=Path("t.yaml"))
    return write_bundle(v, tmp_path)


@pytest.mark.parametrize("country, t, lane, y", [("CN", 4.5, 1, -4.5), ("JP", -4.5, -1, 4.5)])
def test_left_arm_head_in_meta_xodr_xosc(tmp_path, country, t, lane, y):
    """Hand calculation: junction radius 1 x 3.5 + 2 (sidewalk) + 4 = 9.5 m; the left arm (road 4) starts at
    (-9.5, 0) heading west; a head 127 m along the 130 m arm stands at local s = 3, on the kerb of a driver heading
    east toward the junction (right-hand: south, left of the road's reference; left-hand: north), one lane (3.5 m)
    plus half the 2 m sidewalk from the centre line. That driver's lane is the road's backward lane."""
    b = _bundle(tmp_path, country)
    meta = json.loads((b / "meta.json").read_text())
    left = next(lt for lt in meta["scene"]["lights"] if lt["id"] == "tl_left")
    assert (left["road"], left["s"], left["arm"], left["lanes"]) == ("4", 3.0, "left", [lane])
    assert {"road": "4", "s": 3.0, "lanes": [lane]} in meta["scene"]["stop_lines"]
    odr = etree.parse(str(b / "road.xodr"))
    sig = odr.find(".//road[@id='4']/signals/signal[@id='tl_left']")
    assert (float(sig.get("s")), float(sig.get("t")), sig.get("orientation"), sig.get("dynamic")) == (3.0, t, "-", "yes")
    assert [int(v.get("fromLane")) for v in sig.findall("validity")] == [lane]
    from roadtest.sim.road.network import load_map

    p = load_map(b / "road.xodr").road_to_world("4", 3.0, t)
    assert math.isclose(p.x, -12.5, abs_tol=1e-6) and math.isclose(p.y, y, abs_tol=1e-6)
    osc = etree.parse(str(b / "scenario.xosc"))
    ctrl = osc.find(".//TrafficSignalController[@name='controller_tl_left']")
    states = [(ph.find("TrafficSignalState").get("trafficSignalId"), ph.find("TrafficSignalState").get("state"),
               float(ph.get("duration"))) for ph in ctrl.findall("Phase")]
    # plan offset 0: the cross axis is red for the ego axis' 20 + 3 + 2 s, then green 20, yellow 3, red 2
    assert states == [("tl_left", "red", 25.0), ("tl_left", "green", 20.0), ("tl_left", "yellow", 3.0),
                      ("tl_left", "red", 2.0)]
    officer = osc.find(".//TrafficSignalController[@name='controller_officer']")
    assert [(ph.find("TrafficSignalState").get("trafficSignalId"), ph.find("TrafficSignalState").get("state"),
             float(ph.get("duration"))) for ph in officer.findall("Phase")] == [("officer", "stop", 12.0), ("officer", "go", 30.0)]
    assert check_file(b / "scenario.xosc", strict=True) == []
    assert check_file(b / "road.xodr") == []


@pytest.mark.parametrize("road, field, words", [
    ({"kind": "t_junction", "traffic_lights": [{"id": "a", "arm": "opposite", "s": 127, "phases": _cycle(20, 20)}]},
     "road.traffic_lights.0.arm", "has no 'opposite' arm"),
    ({"kind": "straight", "signal_plan": {"kind": "two_phase"}}, "road.signal_plan", "needs a junction"),
])
def test_arms_and_plans_the_road_cannot_have_are_refused(tmp_path, capsys, road, field, words):
    data = _scenario()
    data["road"].update(road)
    if road["kind"] == "straight":
        data["ego"]["route"] = {"distance": 100}
    src = tmp_path / "bad.yaml"
    src.write_text(yaml.safe_dump(data, sort_keys=False))
    assert main(["validate", str(src)]) == 2
    got = capsys.readouterr()
    said = got.out + got.err
    assert "bad.yaml:" in said and field in said and words in said
