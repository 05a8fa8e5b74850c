"""`roadtest rules list | show ID | check`: browse and check the rule catalogue."""

from __future__ import annotations

from roadtest.rules.catalogue_model import PRIORITY_CLASSES, UNITS, get_rule, load_catalogue
from roadtest.errors import Problem, ScenarioError

__all__ = ["rules_list_command", "rules_show_command", "rules_check_command", "check_catalogue"]


def rules_list_command() -> int:
    """One line per rule: id, priority class, norm, action, countries, title."""
    from rich.console import Console
    from rich.table import Table

    cat = load_catalogue()
    table = Table(title=f"{len(cat)} atomic traffic rules", show_lines=False)
    for col in ("id", "priority", "norm", "action", "perception", "countries", "title"):
        table.add_column(col)
    for r in sorted(cat.values(), key=lambda r: (r.priority, r.id)):
        table.add_row(r.id, f"{r.priority} {r.priority_class}", r.norm_type, r.action_type, r.perceptual_type,
                      " ".join(sorted(r.jurisdictions)), r.title)
    Console(width=200).print(table)
    return 0


def rules_show_command(rule_id: str) -> int:
    """The whole record of one rule, with SI parameter values per country."""
    r = get_rule(rule_id, load_catalogue())
    lines = [f"{r.id}: {r.title}", f"  {r.rule_content}",
             f"  perceptual_type: {r.perceptual_type}   norm_type: {r.norm_type}   action_type: {r.action_type}",
             f"  priority: {r.priority} ({r.priority_class}; hierarchy: {' > '.join(PRIORITY_CLASSES)})",
             f"  monitor: {r.monitor.formula}", f"  signals: {', '.join(r.monitor.signals)}",
             f"  in force when: {r.monitor.context() or 'always (every tick of a run)'}"]
    if r.monitor.note:
        lines.append(f"  note: {r.monitor.note}")
    if r.monitor.margin:
        lines.append(f"  margin: {r.monitor.margin}")
    if r.params:
        lines.append("  params (default):")
        for k, p in r.params.items():
            lines.append(f"    {k} = {p.value:g} {p.unit} = {p.si:.4g} {UNITS[p.unit][0]}" + (f"  ({p.description})" if p.description else ""))
    lines.append("  jurisdictions:")
    for cc, j in sorted(r.jurisdictions.items()):
        own = ", ".join(f"{k} = {p.value:g} {p.unit}" for k, p in j.params.items())
        lines.append(f"    {cc}: {j.source}" + (f"  [{own}]" if own else "") + (f"  ({j.note})" if j.note else ""))
    ctx = r.context
    lines.append("  context: " + "; ".join(
        [f"{k} = {' or '.join(v)}" for k, v in ctx.facts.items()]
        + ([f"actors: {', '.join(ctx.actors)}"] if ctx.actors else [])
        + ([f"signs: {', '.join(ctx.signs)}"] if ctx.signs else [])) or "  context: any scene")
    if r.conflicts_with:
        lines.append(f"  conflicts with: {', '.join(r.conflicts_with)}")
    if r.exam is not None:
        lines.append(f"  exam: complies: {r.exam.comply}")
        lines.extend(f"        breaks it: {v}" for v in r.exam.violate)
    if r.ablation:
        lines.append(f"  the expert ignoring it drops: {r.ablation}")
    if r.l1.tweaks or r.l1.scenes:
        lines.append("  its L1 scene adds: " + (", ".join(sorted(r.l1.tweaks)) if r.l1.tweaks else
                                                 "; ".join(f"{' '.join(v.countries)}: {', '.join(sorted(v.tweaks))}"
                                                           for v in r.l1.scenes)))
    lines.append(f"  file: {r.file}")
    print("\n".join(lines))
    return 0


def check_catalogue(cat: dict | None = None) -> list[Problem]:
    """Problems beyond the schema: formulas (names, rtamt parse), signals declared, priority of conflicts."""
    from roadtest.rules.monitor import check_formula, identifiers
    from roadtest.rules.signals import VOCABULARY

    cat = cat if cat is not None else load_catalogue()
    problems = []
    for r in cat.values():
        for msg in check_formula(r.monitor.formula, list(r.params)):
            problems.append(Problem(r.file, 0, 0, "monitor.formula", msg))
        if r.monitor.in_force:
            for msg in check_formula(r.monitor.in_force, list(r.params)):
                problems.append(Problem(r.file, 0, 0, "monitor.in_force", msg))
        used = identifiers(r.monitor.formula) & set(VOCABULARY)
        if set(r.monitor.signals) != used:
            problems.append(Problem(r.file, 0, 0, "monitor.signals",
                                    f"lists {sorted(r.monitor.signals)} but the formula uses {sorted(used)}"))
        if r.id in r.conflicts_with:
            problems.append(Problem(r.file, 0, 0, "conflicts_with", "a rule cannot conflict with itself"))
    return problems


def rules_check_command() -> int:
    """Load and check every record; one line per problem (exit 2), or a one-line summary."""
    cat = load_catalogue()
    problems = check_catalogue(cat)
    if problems:
        raise ScenarioError(problems)
    countries = sorted({cc for r in cat.values() for cc in r.jurisdictions})
    print(f"{len(cat)} rules OK; countries {', '.join(countries)}; "
          f"classes used {len({r.priority_class for r in cat.values()})}/{len(PRIORITY_CLASSES)}")
    return 0
