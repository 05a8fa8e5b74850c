"""Per-rule proof that the suites test their rules: the full expert keeps every rule (feasible) and the expert
that ignores one rule breaks that rule (caught when ignored), per variant and summed into one row per rule."""

from __future__ import annotations

import time
from typing import Any, Iterable

__all__ = ["run_variant", "expected_end", "rule_table", "format_table", "FULL", "LANE_FOLLOWER"]

FULL, LANE_FOLLOWER = "expert", "lane-follower"


def _drive(bundle: Any, agent: str, seed: int, tick: float) -> dict[str, Any]:
    from roadtest.rules.evaluate import evaluate_rules
    from roadtest.runner.episode import EpisodeError, run_episode
    from roadtest.sim.api import SimSettings

    t0 = time.monotonic()
    try:
        trace = run_episode(bundle, seed, agent, SimSettings(tick=tick))
        term = trace.termination.value if trace.termination else None
        res = evaluate_rules(trace, bundle.meta)
        verdicts = {r.id: r.verdict for r in res}
        firsts = {r.id: r.first_violation for r in res if r.first_violation is not None}
        goal = any(ev.kind == "goal_reached" for st in trace.states for ev in st.events)
    except EpisodeError as e:
        term, verdicts, firsts, goal = f"{e.status}: {e.reason}", {}, {}, False
    return {"termination": term, "goal": goal, "verdicts": verdicts, "first_violation": firsts,
            "seconds": round(time.monotonic() - t0, 1)}


def run_variant(bundle_dir: str, seed: int = 0, tick: float = 0.05, lane_follower: bool = True) -> dict[str, Any]:
    """The full expert, the lane follower and, for each rule of the variant the expert can ignore, the expert
    ignoring it, on one bundle: their terminations and verdicts, and whether the variant is feasible and sensitive."""
    from roadtest.agents.ablation import ABLATIONS, ablated_name
    from roadtest.bundle import load_bundle

    bundle = load_bundle(bundle_dir)
    rules = [r["id"] for r in bundle.meta.get("rules", [])]
    row: dict[str, Any] = {"variant": bundle.id, "source": bundle.meta.get("source"), "level": bundle.meta.get("level"),
                           "country": bundle.meta.get("country"), "rules": rules}
    row[FULL] = _drive(bundle, FULL, seed, tick)
    if lane_follower:
        row[LANE_FOLLOWER] = _drive(bundle, LANE_FOLLOWER, seed, tick)
    row["ignoring"] = {r: _drive(bundle, ablated_name(r), seed, tick) for r in rules if r in ABLATIONS}
    ex = row[FULL]
    row["feasible"] = bool(ex["verdicts"]) and ex["termination"] == expected_end(bundle.meta) and "violated" not in ex["verdicts"].values()
    row["sensitive"] = "violated" in (row.get(LANE_FOLLOWER) or {}).get("verdicts", {}).values()
    return row


def expected_end(meta: dict[str, Any]) -> str:
    """How a law-abiding run must end: at the goal ("completed"), or, where the scene's route itself breaks a rule
    (meta.expect.reach_goal false: a route into a no-entry street, a U-turn where it is banned), short of the goal
    at the time limit ("timeout"), having refused the manoeuvre."""
    return "completed" if (meta.get("expect") or {}).get("reach_goal", True) else "timeout"


def rule_table(rows: Iterable[dict[str, Any]], catalogue: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per catalogue rule: the scenes and countries that list it, in how many variants the full
    expert kept it (and every other rule) or it was never in force, and in which countries the expert
    ignoring it broke it (`alone`: and broke no other rule)."""
    from roadtest.agents.ablation import ABLATIONS

    out = {rid: {"rule": rid, "scenes": set(), "countries": set(), "variants": 0, "feasible": 0, "not_applicable": 0,
                 "caught": set(), "caught_alone": set(), "ignorable": rid in ABLATIONS,
                 "closed_loop": getattr(rule, "closed_loop", True),
                 "why_not": getattr(rule, "closed_loop_reason", "")} for rid, rule in catalogue.items()}
    for r in rows:
        for rid in r["rules"]:
            e = out.setdefault(rid, {"rule": rid, "scenes": set(), "countries": set(), "variants": 0, "feasible": 0,
                                     "not_applicable": 0, "caught": set(), "caught_alone": set(),
                                     "ignorable": rid in ABLATIONS, "closed_loop": True, "why_not": ""})
            e["scenes"].add(r.get("source") or r["variant"].split("--")[0])
            e["countries"].add(r["country"])
            e["variants"] += 1
            verdict = r[FULL]["verdicts"].get(rid)
            if verdict == "not_applicable":
                e["not_applicable"] += 1
            elif r["feasible"] and verdict in ("satisfied", "excused"):  # excused: yields to a higher rule
                e["feasible"] += 1
            ign = (r.get("ignoring") or {}).get(rid)
            if ign and ign["verdicts"].get(rid) == "violated":
                e["caught"].add(r["country"])
                if sum(v == "violated" for v in ign["verdicts"].values()) == 1:
                    e["caught_alone"].add(r["country"])
    return [out[k] for k in sorted(out)]


def _cell(countries: set[str]) -> str:
    return f"{len(countries)}: {' '.join(sorted(countries))}" if countries else "0"


def format_table(entries: list[dict[str, Any]]) -> str:
    """The per-rule table as Markdown."""
    lines = ["| rule | scenes | variants | countries | feasible | caught when ignored | caught, no other rule broken | note |",
             "|---|---|---|---|---|---|---|---|"]
    for e in entries:
        if e["closed_loop"] is False:
            note = f"not closed-loop testable: {e['why_not']}"
        elif not e["ignorable"]:
            note = "the expert keeps no separate constraint to drop"
        else:
            note = ""
        feas = f"{e['feasible']}/{e['variants']}" + (f" ({e['not_applicable']} n/a)" if e["not_applicable"] else "")
        lines.append(f"| {e['rule']} | {len(e['scenes'])} | {e['variants']} | {_cell(e['countries'])} | {feas} | "
                     f"{_cell(e['caught']) if e['ignorable'] else '-'} | {_cell(e['caught_alone']) if e['ignorable'] else '-'} | {note} |")
    return "\n".join(lines)
