"""The ablated expert: `expert-ignore:RULE[,RULE...]` drives as the expert except that its planner drops the
constraint it keeps for each named rule, and nothing else.

It shows that a scene tests a rule: the full expert keeps every rule there, the expert that ignores one
rule must be caught by that rule. `ABLATIONS` says, for each rule the expert has a constraint for, what
is dropped; a rule the expert has no separate constraint for (it never makes a U-turn, for instance) cannot
be ignored and is refused by name. `ABLATIONS` is derived: the rules whose constraint a module of the expert
registers (roadtest.agents.constraints), each with its catalogue record's `ablation` text.
"""

from __future__ import annotations

from typing import Any, Mapping

from roadtest.errors import UserError

__all__ = ["ABLATIONS", "PREFIX", "ablations", "parse_ignored", "check_ignored", "ablated_name"]

PREFIX = "expert-ignore:"

_GENERIC = "its speed cap (the rule's max_speed or speed_limit)"


def ablations(catalogue: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Rule id -> what the expert's planner drops when it ignores that rule: each catalogue rule the expert keeps a
    constraint for (roadtest.agents.constraints), described by its record's `ablation`."""
    from roadtest.agents.constraints import kept_by
    from roadtest.rules.catalogue_model import load_catalogue

    cat = catalogue if catalogue is not None else load_catalogue()
    return {rid: r.ablation or (_GENERIC if kept_by(r) == ("roadtest.agents.rules",) else f"its constraint for {rid}")
            for rid, r in cat.items() if kept_by(r)}


def __getattr__(name: str) -> Any:
    if name == "ABLATIONS":  # derived, so it follows the catalogue (and $ROADTEST_RULES) of the moment
        return ablations()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_ignored(name: str) -> list[str]:
    """The rule ids in an `expert-ignore:A,B` agent name; UserError for an unknown rule or one the expert has no constraint for."""
    from roadtest.rules.catalogue_model import load_catalogue

    ids = [r.strip() for r in name[len(PREFIX):].split(",") if r.strip()]
    if not ids:
        raise UserError(f"agent {name!r}: name the rule(s) to ignore, e.g. {PREFIX}red_light")
    return check_ignored(ids, load_catalogue(), where=f"agent {name!r}")


def check_ignored(ids: list[str], catalogue: dict, where: str = "expert config 'ignore'") -> list[str]:
    """`ids` if every one is a catalogue rule with an expert constraint; a UserError that says which is not."""
    for rid in ids:
        if rid not in catalogue:
            raise UserError(f"{where}: unknown rule {rid!r}; expected a catalogue rule id (roadtest rules list)")
    can = ablations(catalogue)
    for rid in ids:
        if rid not in can:
            raise UserError(f"{where}: the expert keeps no separate constraint for {rid!r}, so it cannot ignore it; "
                            f"rules it can ignore: {', '.join(sorted(can))}")
    return ids


def ablated_name(rule_id: str) -> str:
    """The agent name of the expert that ignores `rule_id`."""
    return PREFIX + rule_id
