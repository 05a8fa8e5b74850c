"""One run's score record: the leaderboard's fields, Bench2Drive's figures, roadtest's corrected figures, planning, rules."""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any

from roadtest.metrics import bench2drive, corrected, leaderboard, planning
from roadtest.sim.api import Trace

__all__ = ["score_run", "jsonable"]


def jsonable(obj: Any) -> Any:
    """Plain JSON values: dataclasses and enums unpacked, non-finite floats as None, tuples as lists."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if hasattr(obj, "to_dict"):
            return jsonable(obj.to_dict())
        return jsonable(dataclasses.asdict(obj))
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalar
        return jsonable(obj.item())
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    if hasattr(obj, "to_dict"):
        return jsonable(obj.to_dict())
    return str(obj)


def _rules(trace: Trace, meta: dict) -> tuple[list[Any] | None, str | None]:
    try:
        from roadtest.rules.evaluate import evaluate_rules
    except ImportError as e:
        return None, f"rule monitors unavailable ({e})"
    return [jsonable(r) for r in evaluate_rules(trace, meta)], None


def score_run(trace: Trace, meta: dict, reference: Trace | None = None) -> dict[str, Any]:
    """Everything roadtest reports about one run, JSON-ready, field names as the leaderboard writes them."""
    lb = leaderboard.evaluate(trace, meta, reference)
    out = lb.to_dict()
    out["termination"] = trace.termination.value if trace.termination else None
    out["termination_reason"] = trace.reason
    out["bench2drive"] = bench2drive.evaluate(trace, meta, reference)
    out["roadtest"] = corrected.evaluate(trace, meta, lb)
    out["planning"] = planning.evaluate(trace, meta, reference).to_dict()
    try:
        rules, note = _rules(trace, meta)
    except Exception as e:  # noqa: BLE001 - a monitor's bug must not cost the run its driving score
        import traceback

        tb = traceback.extract_tb(e.__traceback__)[-1]
        rules, note = None, None
        out["rules_error"] = f"{type(e).__name__}: {e} at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}"
    if note:
        out["notes"].append(note)
    if rules is not None:
        out["rules"] = rules
        out["rule_verdicts"] = verdict_counts(rules)
    return jsonable(out)


VERDICTS = ("satisfied", "violated", "excused", "not_applicable")


def verdict_counts(rules: list[dict[str, Any]]) -> dict[str, int]:
    """How many rules got each verdict; not_applicable (never in force) is kept apart from satisfied."""
    counts = {v: 0 for v in VERDICTS}
    for r in rules:
        v = str(r.get("verdict", ""))
        counts[v] = counts.get(v, 0) + 1
    return counts
