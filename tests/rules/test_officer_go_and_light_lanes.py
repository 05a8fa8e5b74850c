"""officer_signal also asks the driver to go when waved on; a light governs only the lanes it faces."""

from __future__ import annotations

from roadtest.rules.catalogue_model import load_catalogue
from roadtest.rules.evaluate import evaluate_rules

from .synth import TICK, drive, segments

CAT = load_catalogue()
# the line at x = 50 on road "0"; the ego drives lane -1 along +x with its front 2 m ahead of its centre
SCENE = {"lights": [{"id": "L1", "road": "0", "s": 50.0}], "stop_lines": [{"road": "0", "s": 50.0}],
         "actors": [{"id": "cop", "kind": "police_officer"}]}


def _verdicts(trace, rules, scene=SCENE):
    meta = {"country": "CN", "driving_side": "right", "rules": [{"id": r, "params": {}} for r in rules], "scene": scene}
    return {r.id: r for r in evaluate_rules(trace, meta, CAT)}


def _stand(seconds: float):
    """8 m/s from x = 20 to just before the line (front at 48 m after 3.25 s), stand `seconds`, then go on."""
    ticks = round(seconds / TICK)
    return segments((8.0, 33), (0.0, ticks), (8.0, 40))


def test_standing_longer_than_go_wait_when_waved_on_breaks_officer_signal():
    go_wait = CAT["officer_signal"].params["go_wait"].value  # 5 s
    sig = lambda i: {"L1": "red", "cop": "go"}  # noqa: E731 - waved through on red
    late = _verdicts(drive(_stand(go_wait + 2.0), x0=20.0, signals=sig), ["officer_signal", "red_light"])
    assert late["officer_signal"].verdict == "violated"
    # the wait becomes a violation once it exceeds go_wait: 3.3 s of approach + 5 s standing
    assert abs(late["officer_signal"].first_violation - (3.3 + go_wait)) <= 2 * TICK
    prompt = _verdicts(drive(_stand(go_wait - 2.0), x0=20.0, signals=sig), ["officer_signal", "red_light"])
    assert prompt["officer_signal"].verdict == "satisfied"
    assert prompt["red_light"].verdict == "excused" and prompt["red_light"].excused_by == "officer_signal"


def test_standing_for_the_officers_stop_is_no_go_wait():
    sig = lambda i: {"L1": "green", "cop": "stop" if i < 110 else "go"}  # noqa: E731 - stop for 11 s, then go
    res = _verdicts(drive(_stand(8.0), x0=20.0, signals=sig), ["officer_signal"])
    assert res["officer_signal"].verdict == "satisfied"


def test_a_light_governs_the_traffic_driving_the_way_of_its_lanes():
    # right-hand traffic on road "0": lane -1 drives along +x, lane 1 against it
    facing_oncoming = {"lights": [{"id": "L1", "road": "0", "s": 50.0, "lanes": [1]}],
                       "stop_lines": [{"road": "0", "s": 50.0, "lanes": [1]}]}
    facing_ego = {"lights": [{"id": "L1", "road": "0", "s": 50.0, "lanes": [-1]}], "stop_lines": [{"road": "0", "s": 50.0}]}
    sig = lambda i: {"L1": "red"}  # noqa: E731
    trace = drive(segments((8.0, 60)), x0=20.0, signals=sig)  # lane -1 through the line on red
    assert _verdicts(trace, ["red_light"], facing_oncoming)["red_light"].verdict == "not_applicable"
    assert _verdicts(trace, ["red_light"], facing_ego)["red_light"].verdict == "violated"
    # overtaking in the oncoming lane does not take the ego out of its light's reach
    passing = drive(segments((8.0, 60)), x0=20.0, signals=sig, lanes=lambda i: 1 if 20 <= i < 50 else -1)
    assert _verdicts(passing, ["red_light"], facing_ego)["red_light"].verdict == "violated"


def test_a_turn_arrow_governs_only_an_ego_taking_that_turn():
    scene = {"lights": [{"id": "arrow", "road": "0", "s": 50.0, "turn": "left"},
                        {"id": "through", "road": "0", "s": 50.0, "turn": "straight"}],
             "stop_lines": [{"road": "0", "s": 50.0}]}
    trace = drive(segments((8.0, 60)), x0=20.0, signals=lambda i: {"arrow": "red", "through": "green"})
    for exit_, expected in (("straight", "satisfied"), ("left", "violated")):
        meta = {"country": "CN", "driving_side": "right", "rules": [{"id": "red_light", "params": {}}], "scene": scene,
                "route": {"exit": exit_}}
        assert {r.id: r.verdict for r in evaluate_rules(trace, meta, CAT)}["red_light"] == expected
