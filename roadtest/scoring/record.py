"""One run's record: which keys of the score record go into results.jsonl, the rule verdict counts, and the
JSON form of everything (dataclasses unpacked, non-finite floats as None)."""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, Mapping

__all__ = ["jsonable", "VERDICTS", "verdict_counts", "LEADERBOARD_KEYS", "RULE_KEYS", "record_keys", "record_fields"]

VERDICTS = ("satisfied", "violated", "excused", "not_applicable")
LEADERBOARD_KEYS = ("scores", "infractions", "meta")  # the leaderboard's own fields, as Bench2Drive tools read them
RULE_KEYS = ("rules", "rule_verdicts", "rules_error")


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


def verdict_counts(rules: list[dict[str, Any]]) -> dict[str, int]:
    """How many rules got each verdict; not_applicable (never in force) is kept apart from satisfied."""
    counts = {v: 0 for v in VERDICTS}
    for r in rules:
        v = str(r.get("verdict", ""))
        counts[v] = counts.get(v, 0) + 1
    return counts


def record_keys() -> tuple[str, ...]:
    """The score record's keys that results.jsonl carries: the leaderboard's, every registered metric's, the rules'."""
    from roadtest.scoring.registry import metrics

    return LEADERBOARD_KEYS + tuple(m.key for m in metrics()) + RULE_KEYS


def record_fields(score: Mapping[str, Any]) -> dict[str, Any]:
    """What results.jsonl takes of a score record: its record_keys() that it has, and the leaderboard status."""
    out = {k: score[k] for k in record_keys() if k in score}
    out["leaderboard_status"] = score.get("status")
    return out
