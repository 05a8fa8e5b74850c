"""The exam beside the road test: for each (rule, scene), did the model know the rule, and did it comply?

`knows`: every action question of that scene that involves the rule was answered right.
`complies`: on the road, the rule's verdict was satisfied (or excused) in every run of that scene;
a rule that was never in play on the road (`not_applicable`) or never asked is left out, not counted.
The four cells: knows and complies, knows but violates, does not know yet complies, neither.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from roadtest.errors import UserError
from roadtest.report.exam_matrix import EXAM_FILE

__all__ = ["CELLS", "matrix", "compare_command", "read_jsonl", "report_items"]

CELLS = ("knows_complies", "knows_violates", "unknown_complies", "unknown_violates")
_COMPLY = {"satisfied", "excused"}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every JSON object line of a file; a torn last line is skipped."""
    if not path.exists():
        raise UserError(f"{path}: not found")
    rows = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        raw = raw.strip()
        if not raw:
            continue
        try:
            rows.append(json.loads(raw))
        except json.JSONDecodeError:
            continue
    return rows


def _knowledge(answers: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for a in answers:
        if a.get("kind") != "action":
            continue
        for rule in a.get("rules") or []:
            cell = out.setdefault((rule, a["variant"]), {"right": 0, "asked": 0, "level": a.get("level"),
                                                         "country": a.get("country")})
            cell["asked"] += 1
            cell["right"] += bool(a.get("correct"))
    return out


def _conduct(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for rec in records:
        if rec.get("status") not in ("completed", "failed"):
            continue
        for r in rec.get("rules") or []:
            rid, verdict = r.get("id"), str(r.get("verdict", "")).lower()
            if verdict == "not_applicable" or not rid:
                continue
            cell = out.setdefault((rid, rec["variant"]), {"runs": 0, "complied": 0})
            cell["runs"] += 1
            cell["complied"] += verdict in _COMPLY
    return out


def matrix(answers: Iterable[Mapping[str, Any]], records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Per (rule, scene) cells and their counts per rule and per level."""
    know, road = _knowledge(answers), _conduct(records)
    cells = []
    for key in sorted(set(know) & set(road)):
        k, r = know[key], road[key]
        knows = k["right"] == k["asked"]
        complies = r["complied"] == r["runs"]
        cell = ("knows" if knows else "unknown") + "_" + ("complies" if complies else "violates")
        cells.append({"rule": key[0], "variant": key[1], "level": k["level"], "country": k["country"],
                      "knows": knows, "complies": complies, "cell": cell,
                      "exam": f"{k['right']}/{k['asked']}", "road": f"{r['complied']}/{r['runs']}"})
    by_rule: dict[str, dict[str, int]] = {}
    by_level: dict[str, dict[str, int]] = {}
    for c in cells:
        for table, name in ((by_rule, c["rule"]), (by_level, str(c["level"]))):
            row = table.setdefault(name, {k: 0 for k in CELLS})
            row[c["cell"]] += 1
    totals = {k: sum(1 for c in cells if c["cell"] == k) for k in CELLS}
    return {"cells": cells, "by_rule": by_rule, "by_level": by_level, "totals": totals,
            "unmatched": {"exam_only": len(set(know) - set(road)), "road_only": len(set(road) - set(know))}}


def report_items(m: dict[str, Any]) -> dict[str, Any]:
    """The matrix in the shape the HTML report reads (roadtest/report/exam_matrix.py)."""
    return {"version": 1, "exam": m.get("model") or "",
            "items": [{"scenario": c["variant"], "rule": c["rule"], "exam": "correct" if c["knows"] else "wrong",
                       "road": "followed" if c["complies"] else "broken"} for c in m["cells"]]}


def compare_command(exam_results: Path, road_results: Path, out: Path | None = None) -> int:
    """`roadtest exam compare`: print the four-cell table per rule and write it as JSON."""
    from rich.console import Console
    from rich.table import Table

    answers = read_jsonl(Path(exam_results) / "answers.jsonl")
    road = read_jsonl(Path(road_results) / "results.jsonl")
    m = matrix(answers, road)
    if not m["cells"]:
        raise UserError(f"{exam_results} and {road_results} share no (rule, scene): run the exam and the road test "
                        "on the same suite")
    model = next((a.get("model") for a in answers if a.get("model")), None)
    m["model"] = model
    target = Path(out) if out else Path(exam_results) / "compare.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(m, indent=1))
    (Path(road_results) / EXAM_FILE).write_text(json.dumps(report_items(m), indent=1))  # `roadtest report` shows it
    table = Table(title=f"exam vs road{f' - {model}' if model else ''}: (rule, scene) pairs")
    for col in ("rule", "knows & complies", "knows, violates", "unknown, complies", "neither"):
        table.add_column(col)
    for rule, row in sorted(m["by_rule"].items()):
        table.add_row(rule, *(str(row[k]) for k in CELLS))
    table.add_row("all", *(str(m["totals"][k]) for k in CELLS), style="bold")
    Console(width=120).print(table)
    print(f"written {target}")
    return 0
