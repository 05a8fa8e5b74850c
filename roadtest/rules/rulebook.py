"""Rulebook scoring: the violation vector ordered by priority class, lexicographic order, and a scalar.

In the scalar each priority level outweighs all lower levels together: with N_j rules at level j,
level l weighs prod_{j>l} (N_j + 1), so one more violated rule at level l costs more than every rule
below it violated at once (a mixed-radix number, exact in integers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from roadtest.rules.catalogue_model import PRIORITY_CLASSES

__all__ = ["RulebookScore", "violation_vector", "compare", "level_weights", "rulebook_score"]


@dataclass(frozen=True)
class RulebookScore:
    """Per-run rulebook figures; lower is better everywhere."""

    vector: tuple[int, ...]  # violated rules per priority class, most important first
    severity: tuple[float, ...]  # summed -worst robustness of the violated rules per class
    scalar: int  # mixed-radix sum, each level outweighing all lower ones
    normalized: float  # scalar / its maximum for this rule set, 0..1
    classes: tuple[str, ...] = PRIORITY_CLASSES

    def to_dict(self) -> dict:
        return {"vector": list(self.vector), "severity": list(self.severity), "scalar": self.scalar,
                "normalized": self.normalized, "classes": list(self.classes)}


def violation_vector(results: Sequence) -> tuple[int, ...]:
    """Number of violated rules (verdict "violated"; excused ones do not count) per priority class."""
    vec = [0] * len(PRIORITY_CLASSES)
    for r in results:
        if r.verdict == "violated":
            vec[r.priority] += 1
    return tuple(vec)


def compare(a: Sequence[int], b: Sequence[int]) -> int:
    """-1 when vector a is preferred (fewer violations at the first level where they differ), 1 when b is, 0 on a tie."""
    for x, y in zip(a, b):
        if x != y:
            return -1 if x < y else 1
    return 0


def level_weights(counts: Sequence[int]) -> list[int]:
    """Weight per level given the number of rules at each level."""
    w = [1] * len(counts)
    for i in range(len(counts) - 2, -1, -1):
        w[i] = w[i + 1] * (counts[i + 1] + 1)
    return w


def rulebook_score(results: Sequence) -> RulebookScore:
    """Vector, severity and scalar of one run's RuleResults."""
    counts = [0] * len(PRIORITY_CLASSES)
    severity = [0.0] * len(PRIORITY_CLASSES)
    for r in results:
        counts[r.priority] += 1
        if r.verdict == "violated":
            severity[r.priority] += max(0.0, -r.worst)
    vec = violation_vector(results)
    w = level_weights(counts)
    scalar = sum(n * wi for n, wi in zip(vec, w))
    top = sum(n * wi for n, wi in zip(counts, w))
    return RulebookScore(vec, tuple(severity), scalar, scalar / top if top else 0.0)
