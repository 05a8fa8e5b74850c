"""The builtin baseline (not a VLM) answers from what its perception detects, never from the key."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from roadtest.exam.questions import LETTERS, action_question
from roadtest.rules.catalogue_model import load_catalogue

CAT = load_catalogue()
CONFLICTS = {rid: tuple(r.conflicts_with) for rid, r in CAT.items()}


@pytest.fixture
def examinee(monkeypatch):
    from roadtest.agents.vlm.config import merge_config
    from roadtest.exam.builtin_examinee import BuiltinExaminee

    ex = BuiltinExaminee(merge_config({"backend": "builtin"}), fov=90.0)
    seen = {"detections": [], "lamp": "none"}
    monkeypatch.setattr(ex, "_perceive", lambda image: (seen["detections"], seen["lamp"]))
    return ex, seen


def _det(sign_id, value=None):
    return SimpleNamespace(sign_id=sign_id, value=value)


def _ask(ex, q):
    return ex.complete([{"role": "user", "content": q.prompt}], [object()], None, 1.0).text


def test_a_stop_sign_it_sees_gives_the_stop_answer_and_nothing_seen_gives_a_guess(examinee):
    ex, seen = examinee
    rule = CAT["stop_sign"]
    q = action_question("q", [{"id": "stop_sign", "params": rule.params_for("DE", {}), "priority": rule.priority,
                               "priority_class": rule.priority_class}], None, CONFLICTS, "DE", "right", {}, "L1", {})
    seen["detections"] = [_det("stop")]
    assert _ask(ex, q) == q.answer
    seen["detections"] = []
    assert _ask(ex, q) == LETTERS[0]  # nothing seen: every option ties, it takes the first


def test_a_sign_question_is_answered_by_the_meaning_of_the_detected_sign(examinee):
    from roadtest.signs.catalogue import load_signs
    from roadtest.exam.questions import sign_question

    ex, seen = examinee
    q = sign_question("s", "speed_limit", 50.0, "DE", load_signs())
    seen["detections"] = [_det("speed_limit", 50.0)]
    assert _ask(ex, q) == q.answer
    seen["detections"] = [_det("speed_limit", 70.0)]  # misread value: the look-alike option
    assert _ask(ex, q) != q.answer
