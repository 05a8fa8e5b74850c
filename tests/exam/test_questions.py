"""Exam questions: one compliant option under the priority order, named distractors, look-alike sign options."""

from __future__ import annotations

import pytest

from roadtest.exam.questions import (LETTERS, Option, action_question, compliant, display, excused_rules,
                                     sign_question)
from roadtest.rules.catalogue_model import load_catalogue

CAT = load_catalogue()
CONFLICTS = {rid: tuple(r.conflicts_with) for rid, r in CAT.items()}


def _rule(rid, **params):
    r = CAT[rid]
    return {"id": rid, "params": params, "priority": r.priority, "priority_class": r.priority_class}


def test_display_units_by_country_hand_computed():
    assert display(30 / 3.6, "kmh", "DE") == "30 km/h"
    assert display(30 / 3.6, "kmh", "US") == "19 mph"  # 30 / 1.609344 = 18.64
    assert display(65 * 1.609344 / 3.6, "kmh", "US") == "65 mph"
    assert display(1.5, "s", "CN") == "1.5 s"


def test_an_l2_action_question_has_exactly_one_compliant_option_and_each_distractor_breaks_a_named_rule():
    rules = [_rule("stop_sign", stop_speed=0.1, stop_zone=4.0), _rule("speed_limit", tolerance=0.55)]
    q = action_question("v1__s0__t120__action", rules, None, CONFLICTS, "DE", "right", {"limit": 50 / 3.6}, "L2", {})
    assert len(q.options) == 4 and len({o.text for o in q.options}) == 4
    good = [o for o in q.options if compliant(o, set())]
    assert len(good) == 1 and LETTERS[q.options.index(good[0])] == q.answer
    assert "full stop" in good[0].text and "50 km/h" in good[0].text
    for o in q.options:
        if o is not good[0]:
            assert len(o.breaks) == 1 and o.breaks[0] in ("stop_sign", "speed_limit")
    assert {b for o in q.options for b in o.breaks} == {"stop_sign", "speed_limit"}
    assert q.justification["rules"] == ["speed_limit", "stop_sign"]  # one class (traffic signs): by id


def test_the_same_question_id_gives_the_same_question_and_another_may_reorder():
    rules = [_rule("red_light")]
    a = action_question("x", rules, None, CONFLICTS, "CN", "right", {}, "L1", {})
    b = action_question("x", rules, None, CONFLICTS, "CN", "right", {}, "L1", {})
    assert a == b
    answers = {action_question(f"q{i}", rules, None, CONFLICTS, "CN", "right", {}, "L1", {}).answer for i in range(20)}
    assert len(answers) > 1  # the key is not always in the same place


def test_l5_officer_over_red_light_the_cautious_option_is_wrong():
    # The catalogue says officer_signal (command personnel, class 2) conflicts with red_light (class 3):
    # a driver waved on by the officer breaks red_light, excused; staying stopped breaks officer_signal.
    rules = [_rule("red_light"), _rule("officer_signal")]
    assert excused_rules(rules, "officer_signal", CONFLICTS) == {"red_light"}
    q = action_question("l5", rules, "officer_signal", CONFLICTS, "US", "right", {}, "L5", {})
    key = q.options[LETTERS.index(q.answer)]
    assert "officer" in key.text and "stop before the stop line" not in key.text
    cautious = [o for o in q.options if "go by the traffic light" in o.text]
    assert cautious and not compliant(cautious[0], {"red_light"})
    assert sum(compliant(o, {"red_light"}) for o in q.options) == 1


def test_compliance_is_judged_by_the_rules_an_option_breaks():
    assert compliant(Option("x", ()), set())
    assert not compliant(Option("x", ("red_light",)), set())
    assert compliant(Option("x", ("red_light",)), {"red_light"})


SIGNS = {
    "stop": {"meaning": "Stop at the line.", "value": "none", "codes": {"DE": {"shape": "octagon", "colour": "red"}}},
    "yield": {"meaning": "Give way.", "value": "none", "codes": {"DE": {"shape": "triangle_down", "colour": "red"}}},
    "no_entry": {"meaning": "No entry.", "value": "none", "codes": {"DE": {"shape": "circle", "colour": "red"}}},
    "speed_limit": {"meaning": "Maximum speed", "value": "required", "unit": "km/h",
                    "codes": {"DE": {"shape": "circle", "colour": "red"}}},
    "no_overtaking": {"meaning": "No overtaking.", "value": "none", "codes": {"DE": {"shape": "circle", "colour": "red"}}},
    "keep_right": {"meaning": "Keep right.", "value": "none", "codes": {"DE": {"shape": "circle", "colour": "blue"}}},
    "tunnel": {"meaning": "Tunnel.", "value": "none", "codes": {"DE": {"shape": "rectangle", "colour": "blue"}},},
    "us_only": {"meaning": "Only in the US.", "value": "none", "codes": {"US": {"shape": "circle", "colour": "red"}}},
}


def test_sign_question_distractors_look_alike_and_come_from_the_same_country():
    q = sign_question("s1", "speed_limit", 50.0, "DE", SIGNS)
    texts = [o.text for o in q.options]
    assert texts[LETTERS.index(q.answer)] == "Maximum speed: 50 km/h"
    assert "Maximum speed: 70 km/h" in texts  # the same face with another value
    assert "Only in the US." not in texts
    others = [o.breaks[0] for o in q.options if o.breaks and o.breaks[0] != "speed_limit"]
    assert set(others) <= {"no_entry", "no_overtaking"}  # red circles, as the speed limit is
    assert len(set(texts)) == 4


def test_a_sign_without_enough_look_alikes_still_gets_three_distinct_distractors():
    q = sign_question("s2", "tunnel", None, "DE", SIGNS)
    assert len({o.text for o in q.options}) == 4
    assert q.options[LETTERS.index(q.answer)].text == "Tunnel"


def test_every_catalogue_rule_has_action_phrases_that_fill():
    from roadtest.exam.questions import action_phrases

    phrases = action_phrases()
    assert set(phrases) == set(CAT)
    assert all(len(p["violate"]) >= 3 for p in phrases.values())  # a single-rule (L1) question needs three
    for rid, r in CAT.items():
        params = r.params_for("US", {})
        q = action_question(f"all-{rid}", [_rule(rid, **params)], None, CONFLICTS, "US", "right",
                            {"limit": 25.0}, "L1", {})
        assert sum(compliant(o, set()) for o in q.options) == 1, rid


def test_an_unknown_sign_is_a_users_error():
    from roadtest.errors import UserError

    with pytest.raises(UserError, match="not in the sign catalogue"):
        sign_question("s", "nope", None, "DE", SIGNS)


def test_a_rule_without_action_phrases_is_a_user_error_naming_it_and_the_missing_field():
    from roadtest.errors import UserError

    with pytest.raises(UserError) as e:
        action_question("q", [{"id": "no_such_rule", "params": {}, "priority": 1}], None, {}, "DE", "right", {}, "L1", {})
    assert "no_such_rule" in str(e.value) and "exam: {comply, violate}" in str(e.value)
