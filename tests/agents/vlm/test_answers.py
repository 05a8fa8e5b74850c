"""Reading model answers: extraction, repairs (named), and what makes an answer invalid."""

from __future__ import annotations

from roadtest.agents.vlm.answers import extract_json, read_perception, read_plan

SIX = [[2.0 * k, 0.1 * k] for k in range(1, 7)]


def test_extract_plain_fenced_prose_and_trailing_commas():
    assert extract_json('{"a": 1}').value == {"a": 1} and extract_json('{"a": 1}').repairs == []
    p = extract_json('Sure!\n```json\n{"a": {"b": "x}y"}, "c": [1, 2]}\n```\nDone.')
    assert p.value == {"a": {"b": "x}y"}, "c": [1, 2]} and p.repairs == ["extracted JSON object from surrounding text"]
    p = extract_json('answer: {"a": [1, 2,], "b": 3,}')
    assert p.value == {"a": [1, 2], "b": 3} and "removed trailing commas" in p.repairs
    assert extract_json('{"a": "quote \\" and brace }"}').value == {"a": 'quote " and brace }'}


def test_extract_refuses_what_is_not_one_object():
    assert extract_json("").error == "empty answer"
    assert extract_json(None).error == "empty answer"
    assert extract_json("go straight").error == "no JSON object in the answer"
    assert extract_json("[1, 2]").error == "expected a JSON object, got list"
    assert extract_json('{"a": 1').error == "no JSON object in the answer"
    assert extract_json("{'a': 1}").error.startswith("invalid JSON")


def test_read_plan_repairs_only_the_unambiguous():
    rep: list[str] = []
    plan, why = read_plan({"waypoints": [{"x": x, "y": y} for x, y in SIX], "target_speed": "30"}, rep)
    assert why is None and plan["waypoints"][2] == (6.0, 0.30000000000000004) and plan["target_speed"] == 30.0
    assert rep == ["points written as {x, y}", "missing reason"]
    for body, why_start in [({"waypoints": SIX[:5], "target_speed": 1}, "waypoints: expected 6, got 5"),
                            ({"waypoints": SIX, "target_speed": None}, "target_speed: expected a number"),
                            ({"waypoints": SIX[:5] + [[1.0, float("inf")]], "target_speed": 1}, "waypoints.5: not finite"),
                            ({"waypoints": [[1, 2, 3]] * 6, "target_speed": 1}, "waypoints.0: expected [x, y]"),
                            ({"waypoints": SIX[:3] + [[-0.6, 0]] + SIX[3:5], "target_speed": 1}, "waypoints.3: behind the car"),
                            ({"target_speed": 1}, "waypoints: expected a list")]:
        plan, why = read_plan(body, [])
        assert plan is None and why.startswith(why_start), why
    plan, _ = read_plan({"waypoints": SIX[:3] + [[-0.4, 0]] + SIX[3:5], "target_speed": 1, "reason": "r"}, [])
    assert plan is not None  # within the 0.5 m tolerance behind the car


def test_read_perception_normalises_ids_and_light_names():
    rep: list[str] = []
    per, why = read_perception({"signs": [{"id": "Speed Limit", "value": "50"}, {"id": "unicorn"}, "stop"],
                                "light": "Amber"}, {"speed_limit", "stop"}, rep)
    assert why is None
    assert [(s["id"], s["value"]) for s in per["signs"]] == [("speed_limit", 50.0), ("other", None), ("stop", None)]
    assert per["light"] == "yellow" and per["road_users"] == [] and rep == ["signs.2: bare id read as a sign"]
    assert read_perception({"signs": [], "light": "purple"}, set(), [])[1].startswith("light: expected one of")
