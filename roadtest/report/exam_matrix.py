"""The exam-vs-road comparison the report shows: did a model that answered the written question right also drive right?

Read from RESULTS_DIR/exam_compare.json, else from summary.json's "exam_compare" key, in this shape:

    {"version": 1,
     "exam": "optional label of the exam",
     "items": [{"scenario": "red-light-intersection", "rule": "red_light",
                "exam": "correct" | "wrong",          # the model's answer to the scene's question
                "road": "followed" | "broken",        # the rule's verdict on the road run
                "run_id": "optional", "question": "optional", "answer": "optional"}]}

The report counts items into a 2 x 2 matrix (exam correct / wrong by road followed / broken),
overall and per rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roadtest.errors import UserError

__all__ = ["ExamMatrix", "load_exam_matrix", "EXAM_FILE", "EXAM_VALUES", "ROAD_VALUES"]

EXAM_FILE = "exam_compare.json"
EXAM_VALUES = ("correct", "wrong")
ROAD_VALUES = ("followed", "broken")


@dataclass
class ExamMatrix:
    """Counts[(exam, road)] overall and per rule, and the items they came from."""

    label: str
    items: list[dict[str, Any]]
    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    per_rule: dict[str, dict[tuple[str, str], int]] = field(default_factory=dict)


def _parse(data: Any, where: str) -> ExamMatrix:
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise UserError(f"{where}: expected an object with an \"items\" list (see roadtest/report/exam_matrix.py)")
    m = ExamMatrix(label=str(data.get("exam") or ""), items=[])
    for k, it in enumerate(data["items"]):
        if not isinstance(it, dict):
            raise UserError(f"{where}: items.{k}: expected an object, got {type(it).__name__}")
        for key, allowed in (("exam", EXAM_VALUES), ("road", ROAD_VALUES)):
            if it.get(key) not in allowed:
                raise UserError(f"{where}: items.{k}.{key}: expected one of {', '.join(allowed)}, got {it.get(key)!r}")
        if not it.get("rule"):
            raise UserError(f"{where}: items.{k}.rule: expected a rule id")
        cell = (it["exam"], it["road"])
        m.items.append(it)
        m.counts[cell] = m.counts.get(cell, 0) + 1
        per = m.per_rule.setdefault(str(it["rule"]), {})
        per[cell] = per.get(cell, 0) + 1
    return m


def load_exam_matrix(results_dir: Path, summary: dict[str, Any] | None) -> ExamMatrix | None:
    """The comparison for a results folder, None when no exam was compared."""
    path = Path(results_dir) / EXAM_FILE
    if path.is_file():
        try:
            data = json.loads(path.read_text())
        except ValueError as e:
            raise UserError(f"{path}: not valid JSON ({e})") from e
        return _parse(data, str(path))
    if summary and summary.get("exam_compare") is not None:
        return _parse(summary["exam_compare"], f"{Path(results_dir) / 'summary.json'}: exam_compare")
    return None
