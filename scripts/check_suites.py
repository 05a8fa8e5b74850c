"""Check every variant of the L1..L5 suites and print the per-rule table: the full expert must keep every rule
(feasible); the expert ignoring a rule (`expert-ignore:RULE`) must break that rule (caught when ignored); the
rule-blind lane follower should break at least one (sensitive).

Usage: python3 scripts/check_suites.py [L1 L2 ...] [--out DIR] [--workers N] [--limit N] [--resume] [--table-md FILE]
Prints one line per variant, a summary and the per-rule table; results go to OUT/check.jsonl (appended).
Exit 0 when every checked variant is feasible and every rule listed by a checked variant that the expert
can ignore is caught in at least one variant, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from roadtest.runner.coverage import FULL, LANE_FOLLOWER, format_table, rule_table, run_variant  # noqa: E402


def _round_robin(dirs: list[Path]) -> list[Path]:
    """One variant of every scenario file first, then the second of each, ...: a cut-short check still covers every file."""
    seen: dict[str, int] = {}
    keyed = []
    for d in dirs:
        source = json.loads((d / "meta.json").read_text()).get("source", d.name)
        keyed.append((seen.get(source, 0), d))
        seen[source] = seen.get(source, 0) + 1
    return [d for _, d in sorted(keyed, key=lambda x: x[0])]


def _short(v: dict) -> str:
    return ",".join(f"{k}={'ok' if x == 'satisfied' else 'n/a' if x == 'not_applicable' else x}" for k, x in v.items()) or "-"


def _report(r: dict) -> None:
    ex, lf = r[FULL], r.get(LANE_FOLLOWER) or {"verdicts": {}}
    ign = " ".join(f"ignoring-{k}[{_short(v['verdicts'])}]" for k, v in (r.get("ignoring") or {}).items())
    print(f"{r['variant']:<64} expert[{ex['termination']}; {_short(ex['verdicts'])}] "
          f"lane-follower[{_short(lf['verdicts'])}] {ign} feasible={r['feasible']}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("levels", nargs="*", default=["L1", "L2", "L3", "L4", "L5"])
    ap.add_argument("--out", type=Path, default=Path("build/check_suites"))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="check at most N variants per suite (0: all)")
    ap.add_argument("--resume", action="store_true", help="skip variants already in OUT/check.jsonl")
    ap.add_argument("--tick", type=float, default=0.05, help="simulation tick, s (0.1 halves the cost)")
    ap.add_argument("--table-md", type=Path, default=None, help="also write the per-rule table to this Markdown file")
    a = ap.parse_args(argv)
    from roadtest.dsl.convert import convert_command
    from roadtest.rules.catalogue_model import load_catalogue

    a.out.mkdir(parents=True, exist_ok=True)
    log = a.out / "check.jsonl"
    done = {}
    if a.resume and log.exists():
        for line in log.read_text().splitlines():
            r = json.loads(line)
            done[r["variant"]] = r
    todo = []
    for level in a.levels:
        bdir = a.out / "bundles" / level
        if not bdir.exists():
            convert_command(ROOT / "scenarios" / "suites" / f"{level}.yaml", bdir)
        dirs = sorted(p for p in bdir.iterdir() if (p / "scenario.xosc").exists())
        todo += dirs[: a.limit] if a.limit else dirs
    todo = _round_robin(todo)
    rows = [done[d.name] for d in todo if d.name in done]
    pending = [str(d) for d in todo if d.name not in done]
    print(f"{len(todo)} variants, {len(rows)} already checked, {len(pending)} to run", flush=True)
    for r in rows:
        _report(r)
    with open(log, "a") as f:
        results = (ProcessPoolExecutor(a.workers).map(run_variant, pending, [0] * len(pending), [a.tick] * len(pending))
                   if a.workers > 1 else (run_variant(d, 0, a.tick) for d in pending))
        for r in results:
            f.write(json.dumps(r) + "\n")
            f.flush()
            _report(r)
            rows.append(r)
    table = rule_table(rows, load_catalogue())
    text = format_table(table)
    print(f"summary: {len(rows)} variants; feasible {sum(r['feasible'] for r in rows)}/{len(rows)}; "
          f"lane follower breaks a rule in {sum(r['sensitive'] for r in rows)}/{len(rows)}")
    print(text)
    if a.table_md:
        a.table_md.write_text(text + "\n")
    uncaught = [e["rule"] for e in table if e["variants"] and e["ignorable"] and not e["caught"]]
    return 0 if all(r["feasible"] for r in rows) and not uncaught else 1


if __name__ == "__main__":
    sys.exit(main())
