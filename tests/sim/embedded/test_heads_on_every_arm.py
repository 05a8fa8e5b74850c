"""The built-in simulator runs every arm's heads: a reacting cross car and background traffic stop at their red."""

from __future__ import annotations

from pathlib import Path

from roadtest.bundle import load_bundle
from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.loader import Variant
from roadtest.dsl.model import Scenario
from roadtest.runner.episode import run_episode
from roadtest.sim.api import SimSettings

# two-phase plan, offset 0: the ego's axis green [0, 20), yellow [20, 23), all red [23, 25); the cross axis green
# [25, 35), yellow [35, 38), all red [38, 40). So the left arm's head is red until t = 25 s.
CROSS_GREEN_AT = 20 + 3 + 2
SCENE = {
    "name": "cross-red", "country": "CN",
    "road": {"kind": "intersection", "length": 130, "speed_limit": 50,
             "signal_plan": {"kind": "two_phase", "green": 20, "yellow": 3, "all_red": 2, "cross_green": 10}},
    "ego": {"lane": 1, "s": 10, "speed": 0, "route": {"exit": "straight"}},
    # 67 m before its line at 40 km/h: there after about 6 s, long before its green
    "actors": [{"id": "cross", "kind": "vehicle", "place": {"arm": "left", "lane": 1, "s": 60}, "speed": 40,
                "reacts": True, "behaviours": [{"action": "keep_speed"}]}],
    "rules": ["red_light"], "expect": {"timeout": 40},
}


def _trace(tmp_path: Path, density: float = 0.0):
    data = {**SCENE, "traffic": {"density": density, "seed": 2}}
    b = write_bundle(Variant(scenario=Scenario.model_validate(data), id="x", seed=0, sweep={}, source=Path("t.yaml")),
                     tmp_path)
    bundle = load_bundle(b)
    return bundle, run_episode(bundle, 0, "idle", SimSettings(tick=0.05))


def test_cross_car_waits_at_its_red_and_goes_on_green(tmp_path):
    bundle, trace = _trace(tmp_path)
    left = next(lt for lt in bundle.meta["scene"]["lights"] if lt["id"] == "tl_left")
    line = left["s"]  # local s on road 4; the car drives toward the junction, i.e. toward smaller s
    for st in trace.states:
        car = st.actor("cross")
        front = car.lane.s - car.length / 2 if car.lane is not None and car.lane.road == "4" else None
        if st.time < CROSS_GREEN_AT:
            assert st.signals["tl_left"] == "red"
            assert front is not None and front >= line, f"the cross car passed its red line at t = {st.time}"
        if 12.0 <= st.time < CROSS_GREEN_AT:
            assert car.speed < 0.1  # standing at the line
    after = [st for st in trace.states if st.time >= CROSS_GREEN_AT + 5.0]
    assert after and after[0].actor("cross").lane.road != "4"  # gone on across the junction once green


def test_background_traffic_crosses_every_arm_line_only_on_green_or_yellow(tmp_path):
    bundle, trace = _trace(tmp_path, density=30.0)
    heads = {lt["road"]: lt for lt in bundle.meta["scene"]["lights"]}
    last: dict[str, tuple[str, float]] = {}
    crossed: list[tuple[str, str]] = []
    for st in trace.states:
        for a in st.actors:
            if a.role != "background" or a.lane is None:
                continue
            head = heads.get(str(a.lane.road))
            if head is None or a.lane.lane not in head["lanes"]:
                last.pop(a.id, None)
                continue
            toward = 1.0 if head["arm"] is None else -1.0  # the approach runs with s, the arms against it
            front = a.lane.s + toward * a.length / 2
            prev = last.get(a.id)
            if prev is not None and prev[0] == head["id"] and toward * (head["s"] - prev[1]) > 0 >= toward * (head["s"] - front):
                crossed.append((head["id"], st.signals[head["id"]]))
            last[a.id] = (head["id"], front)
    assert len({h for h, _ in crossed}) >= 2  # traffic went through on more than one arm
    assert all(state in ("green", "yellow") for _, state in crossed), crossed
