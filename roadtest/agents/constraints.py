"""Which rules the expert keeps a constraint of its own for, registered by rule id in the module that keeps it.

`expert-ignore:RULE` drops that constraint (roadtest.agents.ablation derives from here which rules can be ignored;
the rule's catalogue record says what ignoring it drops). A rule whose only constraint is the generic speed cap
(a `max_speed` or `speed_limit` param, which roadtest.agents.rules caps the speed at) needs no registration, so a new
rule of that shape is one catalogue file.
"""

from __future__ import annotations

from typing import Any

__all__ = ["keeps", "kept_by", "registered", "GENERIC_PARAMS"]

GENERIC_PARAMS = ("max_speed", "speed_limit")  # the params roadtest.agents.rules reads as a rule's plain speed cap
_KEPT: dict[str, list[str]] = {}  # rule id -> modules that keep a constraint for it


def keeps(module: str, *rule_ids: str) -> None:
    """Register that `module` keeps a constraint for each of `rule_ids` (it honours `rid in ignore`)."""
    for rid in rule_ids:
        where = _KEPT.setdefault(rid, [])
        if module not in where:
            where.append(module)


def registered() -> dict[str, tuple[str, ...]]:
    """Rule id -> the modules of the expert that keep a constraint for it (the expert's modules loaded first)."""
    import roadtest.agents.expert  # noqa: F401 - its modules register their constraints when imported

    return {rid: tuple(m) for rid, m in sorted(_KEPT.items())}


def kept_by(rule: Any) -> tuple[str, ...]:
    """The modules that keep a constraint for a catalogue rule (empty: the expert cannot ignore it)."""
    mods = registered().get(rule.id, ())
    if not mods and any(p in rule.params for p in GENERIC_PARAMS):
        mods = ("roadtest.agents.rules",)  # the generic cap
    return mods
