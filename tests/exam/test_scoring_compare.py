"""Exam scoring (letters, format, open answers) and the exam-vs-road matrix on hand-made result pairs."""

from __future__ import annotations

import json

import pytest

from roadtest.exam.compare import matrix
from roadtest.exam.scoring import accuracy_by, extract_letter, follows_format, score_open


@pytest.mark.parametrize("text, letter", [
    ("B", "B"), (" c. ", None), ("C.", "C"), ("(D)", "D"), ("The answer is B.", "B"),
    ('{"answer": "C"}', "C"), ("B or C", None), ("A and B are both fine", None),
    ("A car should stop here, so C.", "C"), ("Not A; the right one is B.", "B"), ("", None), (None, None),
    ("I would choose option D because the light is red.", "D"), ("The correct option is A here.", "A"),
    ("A car is ahead. So A.", "A"),
])
def test_the_letter_an_answer_names_and_several_letters_count_as_none(text, letter):
    assert extract_letter(text) == letter


def test_instruction_following_is_one_letter_as_asked():
    assert follows_format("B") and follows_format("B.") and follows_format('{"answer": "A"}')
    assert not follows_format("I think B") and not follows_format("B, because") and not follows_format(None)


def test_open_answers_are_matched_on_the_signs_and_the_action_vocabulary():
    key = {"signs": [{"id": "speed_limit", "meaning": "Maximum speed: 30 km/h"},
                     {"id": "stop", "meaning": "Stop at the stop line, then give way"}],
           "action": "Come to a full stop before the stop line, then go when the way is clear."}
    good = score_open("A 30 km/h maximum speed sign and a stop sign: I must come to a full stop before the line "
                      "and give way, then go when clear.", key)
    assert good["correct"] and good["sign_recall"] == 1.0
    wrong_value = score_open("Maximum speed 50 km/h sign and a stop sign; come to a full stop before the line.", key)
    assert not wrong_value["signs"][0]["identified"] and not wrong_value["correct"]
    nothing = score_open("Drive carefully.", key)
    assert nothing["sign_recall"] == 0.0 and not nothing["action"]


def test_accuracy_groups_rows_under_each_value_of_a_list_field():
    rows = [{"rules": ["a", "b"], "correct": True}, {"rules": ["a"], "correct": False}, {"rules": ["b"], "correct": True}]
    assert accuracy_by(rows, "rules") == {"a": {"accuracy": 0.5, "n": 2}, "b": {"accuracy": 1.0, "n": 2}}


def _ans(variant, rules, correct, level="L1"):
    return {"kind": "action", "variant": variant, "rules": rules, "correct": correct, "level": level, "country": "DE"}


def _run(variant, verdicts, status="completed"):
    return {"variant": variant, "status": status, "rules": [{"id": r, "verdict": v} for r, v in verdicts.items()]}


def test_the_four_cells_from_hand_made_pairs():
    answers = [
        _ans("v1", ["stop_sign"], True),                         # knows stop_sign in v1
        _ans("v2", ["stop_sign"], True), _ans("v2", ["stop_sign"], False),  # one of two wrong: does not know
        _ans("v3", ["red_light", "officer_signal"], True, "L5"),
        _ans("v4", ["speed_limit"], False),
        {"kind": "sign", "variant": "v4", "rules": ["speed_limit"], "correct": True},  # sign questions do not count
    ]
    road = [
        _run("v1", {"stop_sign": "satisfied"}),
        _run("v1", {"stop_sign": "violated"}),                   # a second seed broke it: violates
        _run("v2", {"stop_sign": "satisfied"}),
        _run("v3", {"red_light": "excused", "officer_signal": "satisfied"}),
        _run("v4", {"speed_limit": "not_applicable"}),           # never in play: left out
        _run("v5", {"stop_sign": "satisfied"}),                  # no exam for v5: unmatched
        _run("v3", {"red_light": "violated"}, status="sim_error"),  # infrastructure failures do not count
    ]
    m = matrix(answers, road)
    got = {(c["rule"], c["variant"]): c["cell"] for c in m["cells"]}
    assert got == {("stop_sign", "v1"): "knows_violates", ("stop_sign", "v2"): "unknown_complies",
                   ("red_light", "v3"): "knows_complies", ("officer_signal", "v3"): "knows_complies"}
    assert m["by_rule"]["stop_sign"] == {"knows_complies": 0, "knows_violates": 1, "unknown_complies": 1,
                                         "unknown_violates": 0}
    assert m["by_level"]["L5"]["knows_complies"] == 2
    assert m["totals"] == {"knows_complies": 2, "knows_violates": 1, "unknown_complies": 1, "unknown_violates": 0}
    assert m["unmatched"] == {"exam_only": 1, "road_only": 1}
    json.dumps(m)
