"""Check every variant of the L1..L5 suites: the expert must keep every rule (feasible), the lane follower
must break at least one (sensitive).

Usage: python3 scripts/check_suites.py [L1 L2 ...] [--out DIR] [--workers N] [--limit N] [--resume]
Prints one line per variant and a summary; results go to OUT/check.jsonl (appended, one line per variant).
Exit 0 when every checked variant is feasible and sensitive, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ("expert", "lane-follower")


def run_variant(bundle_dir: str, seed: int = 0, tick: float = 0.05) -> dict:
    """Both agents on one bundle: termination and rule verdicts of each, feasible and sensitive."""
    from roadtest.bundle import load_bundle
    from roadtest.rules.evaluate import evaluate_rules
    from roadtest.runner.episode import EpisodeError, run_episode
    from roadtest.sim.api import SimSettings

    bundle = load_bundle(bundle_dir)
    row: dict = {"variant": bundle.id, "level": bundle.meta.get("level"), "country": bundle.meta.get("country"),
                 "rules": [r["id"] for r in bundle.meta.get("rules", [])]}
    for agent in AGENTS:
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
        row[agent] = {"termination": term, "goal": goal, "verdicts": verdicts, "first_violation": firsts,
                      "seconds": round(time.monotonic() - t0, 1)}
    ex, lf = row["expert"], row["lane-follower"]
    row["feasible"] = bool(ex["verdicts"]) and ex["termination"] == "completed" and "violated" not in ex["verdicts"].values()
    row["sensitive"] = "violated" in lf["verdicts"].values()
    return row


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
    return ",".join(f"{k}={'ok' if x == 'satisfied' else x}" for k, x in v.items()) or "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("levels", nargs="*", default=["L1", "L2", "L3", "L4", "L5"])
    ap.add_argument("--out", type=Path, default=Path("build/check_suites"))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="check at most N variants per suite (0: all)")
    ap.add_argument("--resume", action="store_true", help="skip variants already in OUT/check.jsonl")
    ap.add_argument("--tick", type=float, default=0.05, help="simulation tick, s (0.1 halves the cost)")
    a = ap.parse_args(argv)
    from roadtest.dsl.convert import convert_command

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

    def report(r: dict) -> None:
        ex, lf = r["expert"], r["lane-follower"]
        print(f"{r['variant']:<70} expert[{ex['termination']}; {_short(ex['verdicts'])}] "
              f"lane-follower[{_short(lf['verdicts'])}] feasible={r['feasible']} sensitive={r['sensitive']}", flush=True)

    for r in rows:
        report(r)
    with open(log, "a") as f:
        if a.workers > 1:
            with ProcessPoolExecutor(a.workers) as pool:
                for r in pool.map(run_variant, pending, [0] * len(pending), [a.tick] * len(pending)):
                    f.write(json.dumps(r) + "\n")
                    f.flush()
                    report(r)
                    rows.append(r)
        else:
            for d in pending:
                r = run_variant(d, 0, a.tick)
                f.write(json.dumps(r) + "\n")
                f.flush()
                report(r)
                rows.append(r)
    feas = sum(r["feasible"] for r in rows)
    sens = sum(r["sensitive"] for r in rows)
    print(f"summary: {len(rows)} variants; feasible {feas}/{len(rows)}; sensitive {sens}/{len(rows)}")
    return 0 if feas == sens == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
