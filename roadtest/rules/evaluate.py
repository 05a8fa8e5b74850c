"""Rule-violation metric: every rule listed in meta.json checked by its STL monitor over the trace.

`evaluate_rules(trace, meta)` extracts the signals once (signals.py), evaluates each rule's formula,
as meta.json carries it (in_meta.py), with rtamt, and returns one RuleResult per rule. Adding a rule
is one YAML file when its signals exist. Where rules conflict, a violated lower-priority rule is
"excused" when the governing higher-priority rule it conflicts with holds. A rule whose context
(Monitor.context(): when it is in force) never held during the run is "not_applicable": a run
that never met the rule says nothing about it, so it is neither satisfied nor violated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from roadtest.findings import Violation, episodes
from roadtest.rules.catalogue_model import Rule
from roadtest.rules.in_meta import RuleInForce, rules_in_force
from roadtest.rules.monitor import robustness
from roadtest.rules.rulebook import RulebookScore, compare, rulebook_score, violation_vector
from roadtest.rules.signals import VOCABULARY, Signals, extract_signals
from roadtest.sim.api import Trace

__all__ = [
    "RuleResult", "evaluate_rules", "evaluate_rule", "in_force_ticks", "rule_episodes", "governing_rule", "EPS",
    "RulebookScore", "rulebook_score", "violation_vector", "compare", "extract_signals", "VOCABULARY",
]

EPS = 1e-6  # robustness above -EPS counts as satisfied (float noise in unit conversions)


@dataclass(frozen=True)
class RuleResult:
    """One rule's verdict on one run."""

    id: str
    verdict: str  # "satisfied" | "violated" | "excused" (violated, but a governing higher-priority rule demanded
    #                it) | "not_applicable" (never in force during the run)
    worst: float  # least robustness over the run (its unit follows the formula; negative = violated)
    first_violation: float | None  # s
    episodes: tuple[Violation, ...]  # start, duration, worst robustness of each violated stretch
    priority: int  # index in PRIORITY_CLASSES, lower = more important
    priority_class: str
    params: Mapping[str, float] = field(default_factory=dict)  # SI values used
    robustness: tuple[float, ...] = ()  # per tick
    times: tuple[float, ...] = ()
    excused_by: str | None = None
    in_force_time: float = 0.0  # s the rule was in force
    margin: float | None = None  # quantitative robustness in the rule's units where its monitor is a ±1 flag (margins.py)

    @property
    def violated(self) -> bool:
        return self.verdict == "violated"

    def to_dict(self, series: bool = False) -> dict[str, Any]:
        d = {"id": self.id, "verdict": self.verdict, "worst": self.worst if math.isfinite(self.worst) else None,
             "first_violation": self.first_violation, "episodes": [e.to_dict() for e in self.episodes],
             "priority": self.priority, "priority_class": self.priority_class, "params": dict(self.params),
             "excused_by": self.excused_by, "in_force_time": self.in_force_time}
        if self.margin is not None:
            d["margin"] = self.margin
        if series:
            d["robustness"], d["times"] = list(self.robustness), list(self.times)
        return d


def rule_episodes(rule_id: str, times: Sequence[float], series: Sequence[float], tick: float) -> list[Violation]:
    """Maximal stretches of negative robustness: start, duration, worst (least) robustness."""
    return episodes(times, [r < -EPS for r in series], series, tick, rule_id, worst=min)


def in_force_ticks(rule: Rule | RuleInForce, params: Mapping[str, float], signals: Signals) -> list[bool]:
    """Per tick, whether the rule is in force (its context holds); every tick when it has no context."""
    ctx = rule.monitor.context()
    if ctx is None:
        return [True] * len(signals)
    series, _ = robustness(ctx, params, signals)
    return [r > 0 for r in series]


def evaluate_rule(rule: Rule | RuleInForce, params: Mapping[str, float], signals: Signals) -> RuleResult:
    """One rule's monitor on extracted signals; not_applicable when its context never held."""
    series, overall = robustness(rule.monitor.formula, params, signals)
    eps = rule_episodes(rule.id, signals.time, series, signals.tick)
    in_force = sum(in_force_ticks(rule, params, signals)) * signals.tick
    verdict = "violated" if overall < -EPS else "satisfied" if in_force > 0 else "not_applicable"
    return RuleResult(
        id=rule.id, verdict=verdict, worst=overall if verdict != "not_applicable" else math.inf, in_force_time=in_force,
        first_violation=eps[0].start if eps else None, episodes=tuple(eps), priority=rule.priority,
        priority_class=rule.priority_class, params=dict(params), robustness=tuple(series), times=tuple(signals.time))


def governing_rule(rule_ids: Sequence[str], catalogue: Mapping[str, Rule]) -> tuple[str | None, list[dict[str, Any]]]:
    """The rule the expected behaviour follows where composed rules conflict, and each conflict resolved.

    A conflict is a pair where either lists the other in conflicts_with; the lower priority index wins.
    """
    conflicts = []
    ids = list(dict.fromkeys(rule_ids))
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            ra, rb = catalogue[a], catalogue[b]
            if b in ra.conflicts_with or a in rb.conflicts_with:
                win, lose = (ra, rb) if (ra.priority, ids.index(a)) <= (rb.priority, ids.index(b)) else (rb, ra)
                conflicts.append({"governs": win.id, "yields": lose.id, "reason":
                                  f"{win.priority_class} outranks {lose.priority_class}" if win.priority != lose.priority
                                  else "same class: the rule listed first governs"})
    governing = min((c["governs"] for c in conflicts), key=lambda r: catalogue[r].priority, default=None)
    return governing, conflicts


ACTIVE_LEAD = 3.0  # s: a governing rule in play this long before a violation still excuses it
RETURN_WINDOW = 20.0  # s: rejoining within this long after the governing rule stops is part of the manoeuvre


def _in_play(rule: Rule, params: Mapping[str, float], lose: RuleResult, sig: Signals) -> bool:
    """Whether every violation of the outranked rule was forced by the governing rule.

    A violation is forced when the governing rule was in play around it, or when it is the one
    return, within RETURN_WINDOW, after the governing rule was last in play: pulling over for an
    ambulance includes rejoining the lane once it has passed.
    """
    if rule.monitor.context() is None:
        return True
    on = [t for t, yes in zip(sig.time, in_force_ticks(rule, params, sig)) if yes]
    returned: set[float] = set()
    for ep in lose.episodes:
        if any(ep.start - ACTIVE_LEAD <= t <= ep.start + ep.duration for t in on):
            continue
        last_on = max((t for t in on if t <= ep.start), default=None)
        if last_on is None or ep.start - last_on > RETURN_WINDOW or last_on in returned:
            return False
        returned.add(last_on)  # the return; a further violation needs its own reason
    return True


def evaluate_rules(trace: Trace, meta: Mapping[str, Any] | None, catalogue: Mapping[str, Rule] | None = None,
                   signals: Signals | None = None) -> list[RuleResult]:
    """Every rule of meta.rules on the trace, in meta order, from the rule data meta.json carries (formula, SI
    params in force, priority); a meta that lists only ids and params needs the catalogue passed explicitly."""
    meta = meta or {}
    rules = rules_in_force(meta, catalogue)
    if not rules:
        return []
    sig = signals if signals is not None else extract_signals(trace, meta)
    results = {rid: evaluate_rule(r, r.params, sig) for rid, r in rules.items()}
    from roadtest.rules.margins import MARGINS, margin

    for rid in MARGINS:
        res = results.get(rid)
        if res is not None and res.verdict != "not_applicable":
            results[rid] = RuleResult(**{**res.__dict__, "margin": margin(rid, trace, sig, res.robustness, res.violated,
                                                                          res.params, meta)})
    cat = rules
    _, conflicts = governing_rule(list(rules), cat)
    chosen = meta.get("governing")
    for c in conflicts:
        win_id, lose_id = c["governs"], c["yields"]
        if chosen in (win_id, lose_id):
            win_id, lose_id = chosen, lose_id if chosen == win_id else win_id
        lose, win = results[lose_id], results[win_id]
        if lose.verdict == "violated" and win.verdict == "satisfied" and _in_play(cat[win_id], win.params, lose, sig):
            results[lose_id] = RuleResult(**{**lose.__dict__, "verdict": "excused", "excused_by": win_id})
    return list(results.values())
