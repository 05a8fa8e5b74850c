"""A rule as meta.json carries it: what its monitor needs, resolved at convert time.

Conversion writes, for each rule in force, its STL formula (and the condition under which it is in play),
the SI parameter values for the scenario's country, its priority class, the rules it conflicts with and
the context it needs. Scoring reads only that, so a bundle scores the same wherever it is run and
whatever the catalogue says by then; nothing downstream of conversion reads the rule YAML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from roadtest.errors import UserError
from roadtest.rules.catalogue_model import PRIORITY_CLASSES, Rule

__all__ = ["MonitorSpec", "RuleInForce", "rules_in_force"]


@dataclass(frozen=True)
class MonitorSpec:
    """The STL monitor of a rule in force (same fields as the catalogue's Monitor)."""

    formula: str
    signals: tuple[str, ...] = ()
    in_force: str | None = None  # STL condition: where it holds, the rule is in play (it can excuse what it outranks)

    def context(self) -> str | None:
        """When the rule is in force, as the catalogue's Monitor.context() says."""
        from roadtest.rules.catalogue_model import monitor_context

        return monitor_context(self.formula, self.in_force)


@dataclass(frozen=True)
class RuleInForce:
    """One rule of a scenario with everything its monitor and the conflict resolution need."""

    id: str
    params: Mapping[str, float]  # SI values in force (catalogue default < country < scenario)
    priority_class: str
    monitor: MonitorSpec
    conflicts_with: tuple[str, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)  # facts, actors, signs the scene needs

    @property
    def priority(self) -> int:
        return PRIORITY_CLASSES.index(self.priority_class)

    @classmethod
    def from_rule(cls, rule: Rule, country: str | None, overrides: Mapping[str, float] | None = None) -> "RuleInForce":
        """Resolve a catalogue record for a country and a scenario's own SI values."""
        m = rule.monitor
        return cls(id=rule.id, params=rule.params_for(country, dict(overrides or {})), priority_class=rule.priority_class,
                   monitor=MonitorSpec(m.formula, tuple(m.signals), m.in_force), conflicts_with=tuple(rule.conflicts_with),
                   context=rule.context.model_dump())

    def to_meta(self) -> dict[str, Any]:
        """The meta.json entry (rules[*])."""
        return {"id": self.id, "params": dict(self.params), "priority": self.priority,
                "priority_class": self.priority_class,
                "monitor": {"formula": self.monitor.formula, "signals": list(self.monitor.signals),
                            "in_force": self.monitor.in_force},
                "conflicts_with": list(self.conflicts_with), "context": dict(self.context)}

    @classmethod
    def from_meta(cls, entry: Mapping[str, Any], where: str) -> "RuleInForce":
        """Read a meta.json entry; a bundle written without the rule data is refused with what to do."""
        rid = str(entry.get("id", "?"))
        mon = entry.get("monitor")
        if not isinstance(mon, Mapping) or not isinstance(mon.get("formula"), str):
            raise UserError(f"{where} ({rid}): no monitor formula; the bundle was written without the rule data "
                            "scoring needs (an older roadtest): convert its scenario again")
        pclass = entry.get("priority_class")
        if pclass not in PRIORITY_CLASSES:
            raise UserError(f"{where}.priority_class ({rid}): {pclass!r} is not one of {', '.join(PRIORITY_CLASSES)}")
        try:
            params = {str(k): float(v) for k, v in (entry.get("params") or {}).items()}
        except (TypeError, ValueError, AttributeError) as e:
            raise UserError(f"{where}.params ({rid}): expected numbers in SI units ({e})") from e
        return cls(id=rid, params=params, priority_class=pclass,
                   monitor=MonitorSpec(mon["formula"], tuple(mon.get("signals") or ()), mon.get("in_force")),
                   conflicts_with=tuple(entry.get("conflicts_with") or ()), context=dict(entry.get("context") or {}))


def rules_in_force(meta: Mapping[str, Any], catalogue: Mapping[str, Rule] | None = None) -> dict[str, RuleInForce]:
    """meta.rules by id, in meta order: from the entries themselves, or, for a meta written by hand (tests,
    tools) that lists only ids and params, resolved against an explicitly given catalogue."""
    out: dict[str, RuleInForce] = {}
    for i, ref in enumerate(meta.get("rules") or []):
        entry = {"id": ref} if isinstance(ref, str) else dict(ref)
        rid = str(entry.get("id"))
        if catalogue is None:
            out[rid] = RuleInForce.from_meta(entry, f"meta.json rules[{i}]")
            continue
        if rid not in catalogue:
            raise UserError(f"meta.json rules[{i}]: unknown rule id {rid!r}; see `roadtest rules list`")
        out[rid] = RuleInForce.from_rule(catalogue[rid], meta.get("country"), entry.get("params"))
    return out
