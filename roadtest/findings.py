"""What a metric or a rule monitor finds in a run: the result types both produce, on the floor under both.

rules/ and metrics/ import these and never each other; the scoring room above both gathers what they find
into one record.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

__all__ = ["Violation", "MetricResult", "episodes"]


@dataclass(frozen=True)
class Violation:
    """One episode of a metric going wrong: when it started, how long it lasted, how bad it got."""

    start: float  # s
    duration: float  # s; 0 for an instantaneous event
    worst: float  # in the metric's unit
    kind: str = ""  # leaderboard infraction key, e.g. "collisions_vehicle"
    description: str = ""  # text as the leaderboard writes it
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "duration": self.duration, "worst": self.worst, "kind": self.kind,
                "description": self.description, "data": dict(self.data)}


@dataclass(frozen=True)
class MetricResult:
    """A metric's value for one run, with its unit and the violations behind it."""

    name: str
    unit: str  # "%", "m", "1" (ratio), ...
    value: float | None  # None: not computable for this run (the reason is in details["note"])
    violations: tuple[Violation, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "unit": self.unit, "value": self.value,
                "violations": [v.to_dict() for v in self.violations], "details": dict(self.details)}


def episodes(times: Sequence[float], flags: Sequence[bool], values: Sequence[float], tick: float,
             kind: str = "", describe: Callable[[float, float], str] | None = None,
             worst: Callable[[float, float], float] = max) -> list[Violation]:
    """Group consecutive flagged ticks into violations; worst is the largest value of each run (`worst=min`: the least,
    as for robustness, where more negative is worse)."""
    out: list[Violation] = []
    start = None
    bad = -math.inf
    last = None
    for t, f, v in zip(times, flags, values):
        if f:
            if start is None:
                start, bad = t, v
            bad = worst(bad, v)
            last = t
        elif start is not None:
            out.append(Violation(start, last - start + tick, bad, kind, describe(start, bad) if describe else ""))
            start = None
    if start is not None:
        out.append(Violation(start, last - start + tick, bad, kind, describe(start, bad) if describe else ""))
    return out
