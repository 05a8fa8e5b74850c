"""The expert's floor at the expressway minimum: the rule's minimum plus a margin, never above the maximum."""

from __future__ import annotations

import pytest

from roadtest.agents.min_speed import MIN_MARGIN, minimum_speed, raise_to_minimum

MIN = 60 / 3.6
VIEW = {"rules": [{"id": "min_speed_expressway", "params": {"min_speed": MIN, "tolerance": 2 / 3.6}}]}


def test_floor_lifts_a_slow_cruise():
    assert minimum_speed(VIEW) == pytest.approx(MIN)
    assert raise_to_minimum(50 / 3.6, VIEW, frozenset(), None, 0.1) == pytest.approx(MIN + MIN_MARGIN)
    assert raise_to_minimum(25.0, VIEW, frozenset(), None, 0.1) == 25.0  # already faster: unchanged


def test_floor_never_passes_the_maximum():
    assert raise_to_minimum(13.0, VIEW, frozenset(), 15.0, 0.1) == pytest.approx(14.9)


def test_ignored_or_absent_rule_leaves_the_cruise():
    assert minimum_speed(VIEW, frozenset({"min_speed_expressway"})) is None
    assert raise_to_minimum(50 / 3.6, VIEW, frozenset({"min_speed_expressway"}), None, 0.1) == pytest.approx(50 / 3.6)
    assert minimum_speed({"rules": ["speed_limit"]}) is None
