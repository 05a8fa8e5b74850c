"""Progress bar with ETA while runs go, then OUT/summary.json and a rich summary table."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from roadtest.runner.episode import STATUSES, write_json_atomic
from roadtest.scoring.record import VERDICTS
from roadtest.scoring.registry import metrics, suite_figure, summary_lines

__all__ = ["Progress", "summarise", "write_summary", "leaderboard_records", "rule_figures", "legend", "columns"]

_CRASH = {"agent_error": "Failed - Agent crashed", "sim_error": "Failed - Simulation crashed",
          "timeout": "Failed - Agent timed out", "invalid": "Failed - Invalid scenario"}


class Progress:
    """A rich progress bar (runs done of planned, elapsed, ETA) on stderr; counts statuses as results come."""

    def __init__(self, total: int, skipped: int = 0):
        self.total, self.skipped = total, skipped
        self.counts = {s: 0 for s in STATUSES}

    def __enter__(self) -> "Progress":
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn
        from rich.progress import TimeElapsedColumn, TimeRemainingColumn

        self._p = RichProgress(TextColumn("[bold]runs"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                               TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.description}"),
                               console=Console(stderr=True), transient=False)
        self._p.__enter__()
        self._task = self._p.add_task("", total=self.total)
        return self

    def advance(self, record: dict[str, Any]) -> None:
        st = record.get("status", "sim_error")
        self.counts[st] = self.counts.get(st, 0) + 1
        self._p.update(self._task, advance=1, description=" ".join(f"{k}={v}" for k, v in self.counts.items() if v))

    def __exit__(self, *exc) -> None:
        self._p.__exit__(*exc)


def leaderboard_records(records: Sequence[dict]) -> list[dict[str, Any]]:
    """Records in the leaderboard checkpoint layout (route_id, status, scores, infractions, meta) for Bench2Drive tools."""
    from roadtest.metrics.leaderboard import INFRACTION_KEYS

    out = []
    for i, r in enumerate(records):
        status = r.get("leaderboard_status") if r.get("status") in ("completed", "failed") else None
        out.append({
            "index": i, "route_id": r["run_id"], "status": status or _CRASH.get(r.get("status"), "Failed"),
            "scores": r.get("scores") or {"score_route": 0.0, "score_penalty": 0.0, "score_composed": 0.0},
            "infractions": r.get("infractions") or {k: [] for k in INFRACTION_KEYS},
            "meta": r.get("meta") or {}, "num_infractions": sum(len(v) for v in (r.get("infractions") or {}).values()),
        })
    return out


_COMPLIANT = ("satisfied", "excused")  # excused: violated because a higher-priority rule demanded it
_BROKEN = ("violated", "fail", "failed", "false")


def rule_figures(rules: Sequence[dict]) -> tuple[int, int, int]:
    """(rules violated, rules in play, rules complied with) of one run; a rule never in play counts in neither."""
    verdicts = [str(r.get("verdict", "")).lower() for r in rules or []]
    violated = sum(v in _BROKEN for v in verdicts)
    complied = sum(v in _COMPLIANT for v in verdicts)
    return violated, violated + complied, complied


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 6) if den else None


def summarise(records: Sequence[dict], planned: Sequence[str]) -> dict[str, Any]:
    """Suite figures over the planned runs: status counts, leaderboard means (missing = 0), rule figures, and each
    registered metric's suite figure under its key."""
    from roadtest.metrics.leaderboard import aggregate_suite

    n = len(planned)
    recs = {r["run_id"]: r for r in records}
    counts = {s: sum(1 for r in recs.values() if r.get("status") == s) for s in STATUSES}
    scored = [r for r in recs.values() if r.get("scores")]
    rules: dict[str, dict[str, int]] = {}
    for r in recs.values():
        for rr in r.get("rules") or []:
            rid = str(rr.get("id") or rr.get("rule") or "?")
            verdict = str(rr.get("verdict", "?")).lower()
            rules.setdefault(rid, {}).setdefault(verdict, 0)
            rules[rid][verdict] += 1
    figures = {m.key: suite_figure(m, [r.get(m.key) for r in recs.values()], n) for m in metrics()}
    figures = {k: v for k, v in figures.items() if v is not None}
    return {
        "planned": n,
        "recorded": len(recs),
        "missing": [rid for rid in planned if rid not in recs],
        "statuses": counts,
        "infrastructure_failures": counts["sim_error"],
        "agent_failures": counts["agent_error"] + counts["timeout"],
        "leaderboard": aggregate_suite(scored, n),
        "rules": rules,
        "rule_verdicts": {v: sum(c.get(v, 0) for c in rules.values()) for v in VERDICTS},
        "rule_figures": _suite_rule_figures(list(recs.values())),
        **figures,
        "runs": [{"run_id": rid, "status": recs[rid].get("status"), "reason": recs[rid].get("reason", ""),
                  "score_composed": (recs[rid].get("scores") or {}).get("score_composed"),
                  "success": (recs[rid].get("bench2drive") or {}).get("success")}
                 for rid in planned if rid in recs],
        "_checkpoint": {"records": leaderboard_records([recs[rid] for rid in planned if rid in recs])},
    }


def _suite_rule_figures(records: Sequence[dict]) -> dict[str, Any]:
    """Rule verdicts over the scored runs: violations, the share of in-play verdicts complied with, clean runs."""
    scored = [r for r in records if r.get("rules") is not None]
    figs = [rule_figures(r.get("rules") or []) for r in scored]
    violated, in_play, complied = (sum(f[i] for f in figs) for i in range(3))
    return {"rules_violated": violated, "rules_in_play": in_play, "rule_compliance_rate": _rate(complied, in_play),
            "runs_without_violation": sum(1 for f in figs if f[0] == 0), "runs_with_rules": len(scored)}


_CORE_LEGEND = (
    ("status", "completed; failed: the run missed what the scenario expects (goal, rules); else why it stopped"),
    ("DS, RC %, penalty", "CARLA leaderboard 2.0 driving score, route completion, infraction penalty, as its code computes them"),
    ("rules viol.", "rules this run violated"),
    ("compliance", "rules complied with (satisfied, or excused by a higher rule) of the rules in play"),
)


def columns() -> list[tuple[str, str, Any]]:
    """The registered metrics' columns of the summary table: (metric key, head, Column)."""
    return [(m.key, c.head, c) for m in metrics() for c in m.columns]


def legend() -> tuple[tuple[str, str], ...]:
    """What each column of the summary table means: the leaderboard's and the rules', then each registered metric's."""
    return (_CORE_LEGEND + tuple((head, c.legend) for _, head, c in columns() if c.legend)
            + (("", "a rule never in play (not_applicable) counts in neither rule column"),))


def _infraction_text(r: dict) -> str:
    parts = [f"{k}×{len(v)}" for k, v in (r.get("infractions") or {}).items() if v]
    broken = [str(x.get("id") or x.get("rule")) for x in r.get("rules") or []
              if str(x.get("verdict", "")).lower() in _BROKEN]
    if broken:
        parts.append("rules: " + ",".join(broken))
    return " ".join(parts) or ("-" if r.get("scores") else r.get("reason", "")[:60])


def write_summary(out: Path, records: Sequence[dict], planned: Sequence[str]) -> dict[str, Any]:
    """Write OUT/summary.json and print the table; return the summary."""
    from rich.console import Console

    from roadtest.runner.table import print_runs

    summary = summarise(records, planned)
    write_json_atomic(Path(out) / "summary.json", summary)
    recs = {r["run_id"]: r for r in records}
    extra = columns()
    cols = ("run", "status", "DS", "RC %", "penalty", "rules viol.", "compliance", *(head for _, head, _ in extra),
            "infractions / reason")
    fmt = (lambda x, f: "" if x is None else format(x, f))
    rows = []
    for rid in planned:
        r = recs.get(rid)
        if r is None:
            rows.append(dict.fromkeys(cols, "") | {"run": rid, "status": "missing"})
            continue
        sc = r.get("scores") or {}
        violated, in_play, complied = rule_figures(r.get("rules") or [])
        rows.append(dict(zip(cols, (
            rid, r.get("status", ""), fmt(sc.get("score_composed"), ".2f"), fmt(sc.get("score_route"), ".1f"),
            fmt(sc.get("score_penalty"), ".3f"), str(violated) if r.get("rules") is not None else "",
            f"{complied}/{in_play}" if in_play else "-",
            *(fmt((r.get(key) or {}).get(c.field), c.fmt) for key, _, c in extra), _infraction_text(r)))))
    lb = summary["leaderboard"]["scores_mean"]
    rf = summary["rule_figures"]
    rate = rf["rule_compliance_rate"]
    console = Console()
    print_runs(console, f"roadtest: {summary['recorded']}/{summary['planned']} runs in {out}", cols, rows, legend())
    console.print(f"rules: {rf['rules_violated']} violated of {rf['rules_in_play']} in play, compliance rate "
                  f"{'-' if rate is None else f'{100 * rate:.1f} %'}, runs without violation "
                  f"{rf['runs_without_violation']}/{rf['runs_with_rules']}")
    console.print(f"leaderboard 2.0: driving score {lb['score_composed']:.2f}  route completion {lb['score_route']:.2f}  "
                  f"penalty {lb['score_penalty']:.3f}")
    rv = summary["rule_verdicts"]
    console.print(f"rule verdicts: satisfied {rv['satisfied']}, violated {rv['violated']}, excused {rv['excused']}, "
                  f"not applicable {rv['not_applicable']} (never in force in the run)")
    for m in metrics():
        for line in summary_lines(m, summary.get(m.key)):
            console.print(line, highlight=False, markup=False)
    st = summary["statuses"]
    console.print("statuses: " + ", ".join(f"{k} {v}" for k, v in st.items())
                  + f"; infrastructure failures {summary['infrastructure_failures']}, agent failures "
                  f"{summary['agent_failures']}" + (f"; missing {len(summary['missing'])}" if summary["missing"] else ""))
    return summary
