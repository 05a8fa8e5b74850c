"""Digests of every guarded run (traces, scores, verdicts) so that a refactor can prove it changed nothing.

Sets: `examples` (every variant of scenarios/*.yaml), `levels` (every variant of the L1..L5 suites), each run
with the expert and the lane follower through the ordinary run path (execute_run: trace, score.json, record),
and `corpus` (the self-contained esmini files of ../shared/conformance, no agent, as the corpus test runs them).

Usage:
  python3 scripts/trace_guard.py record [SET ...] [--workers N] [--file F]   write the digests
  python3 scripts/trace_guard.py check  [SET ...] [--workers N] [--file F]   compare; exit 1 on any difference

A digest covers the canonical JSON of the trace and of the score with wall-clock figures and temporary paths
removed and every number rounded to 1e-6; beside it a short summary (termination, ticks, driving score, verdicts) says what changed.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = ROOT / "tests" / "guards" / "trace_digests.json"
SETS = ("examples", "levels", "corpus")
AGENTS = ("expert", "lane-follower")
CONFORMANCE = ROOT.parent / "shared" / "conformance"
# Numbers are compared to 1e-6: machines with the same libraries differ in the last bits of some transcendental and
# spline results (seen on trajectory-following files), which a bit-exact digest would report as changed runs.
DECIMALS = 6
VOLATILE = frozenset({"wall_s", "wall", "bundle", "out", "run_dir", "path", "elapsed_s"})


def _canonical(value, tmp: str):
    """The value with wall-clock keys dropped and the run's folder written as <tmp>, by its given and its resolved
    path: a reader names files by their resolved path, and the folder may be reached through a link."""
    real = str(Path(tmp).resolve())
    return _scrub(value, sorted({tmp, real}, key=len, reverse=True))


def _scrub(value, prefixes: list[str]):
    if isinstance(value, dict):
        return {k: _scrub(v, prefixes) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [_scrub(v, prefixes) for v in value]
    if isinstance(value, str):
        for prefix in prefixes:
            value = value.replace(prefix, "<tmp>")
    if isinstance(value, float):
        return round(value, DECIMALS) + 0.0  # + 0.0: -0.0 and 0.0 are one value
    return value


def _sha(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:20]


def _bundles(set_name: str, out: Path) -> list[Path]:
    """Bundle folders of one set, converted into OUT."""
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target

    targets = (sorted((ROOT / "scenarios").glob("*.yaml")) if set_name == "examples"
               else [ROOT / "scenarios" / "suites" / f"L{i}.yaml" for i in range(1, 6)])
    folders = []
    for target in targets:
        for _source, result in iter_target(target):
            if not isinstance(result, list):
                raise SystemExit(f"{target}: {result}")
            folders += [write_bundle(v, out) for v in result]
    return sorted(set(folders))


def _agents(folder: Path, set_name: str) -> list[str]:
    """The expert and the lane follower everywhere; on the levels also the expert ignoring each rule it lists."""
    if set_name != "levels":
        return list(AGENTS)
    rules = json.loads((folder / "meta.json").read_text()).get("rules") or []
    return list(AGENTS) + [f"expert-ignore:{r['id'] if isinstance(r, dict) else r}" for r in rules]


def _run_agent(args: tuple[str, str, str]) -> tuple[str, dict]:
    """One bundle with one agent through execute_run: its digests and summary."""
    from roadtest.runner.episode import Job, execute_run

    folder, agent, tmp = args
    out = Path(tmp) / "results" / agent
    name = Path(folder).name
    out = out / name  # one results folder per run: the expert's reference trace stays where its run wrote it
    job = Job(run_id=name, bundle=folder, variant=name, seed=0, agent=agent, tick=0.05, out=str(out), timeout=600.0)
    record = execute_run(job)
    run_dir = out / "runs" / name
    trace = json.loads(gzip.decompress((run_dir / "trace.json.gz").read_bytes())) if (run_dir / "trace.json.gz").exists() else None
    score = json.loads((run_dir / "score.json").read_text()) if (run_dir / "score.json").exists() else None
    summary = {"status": record.get("status"), "termination": record.get("termination"), "ticks": record.get("ticks"),
               "ds": (record.get("scores") or {}).get("score_composed"),
               "verdicts": {r.get("id"): r.get("verdict") for r in record.get("rules") or []}}
    return f"{name}/{agent}", {"trace": _sha(_canonical(trace, tmp)), "score": _sha(_canonical(score, tmp)),
                               "record": _sha(_canonical(record, tmp)), "summary": summary}


def _run_corpus(args: tuple[str, str]) -> tuple[str, dict]:
    """One corpus row as the conformance test runs it (seed 1, 0.05 s, no traffic, capped past esmini's end)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from roadtest.bundle import load_bundle
    from roadtest.errors import UnsupportedError
    from roadtest.sim.api import SimSettings
    from roadtest.sim.embedded import run_bundle
    from roadtest.sim.xosc.parser import expand_distribution

    from esmini_corpus import ESMINI_LIMIT, LIMIT_CAP  # noqa: F401

    path, esm = Path(args[0]), args[1]
    cap = LIMIT_CAP if not esm else float(esm) + 2.0
    try:
        target, params = expand_distribution(path)[0]
        trace = run_bundle(load_bundle(target), 1, SimSettings(tick=0.05, max_time=cap, traffic=False),
                           params=params or None)
    except UnsupportedError as e:
        return path.stem, {"trace": _sha(f"refused: {e}"), "summary": {"refused": str(e)[:120]}}
    except Exception as e:  # noqa: BLE001 - an error row is a digest of its own
        return path.stem, {"trace": _sha(f"error: {type(e).__name__}"), "summary": {"error": f"{type(e).__name__}: {e}"[:160]}}
    d = trace.to_dict()
    return path.stem, {"trace": _sha(_canonical(d, str(CONFORMANCE))),
                       "summary": {"termination": d["termination"], "ticks": len(d["states"])}}


def compute(set_name: str, workers: int) -> dict[str, dict]:
    """Digests of one set, keyed by bundle/agent (or corpus file)."""
    if set_name == "corpus":
        import csv

        if not (CONFORMANCE / "INDEX.tsv").exists():
            raise SystemExit(f"corpus: {CONFORMANCE} is not here")
        with open(CONFORMANCE / "INDEX.tsv", newline="") as f:
            rows = [r for r in csv.DictReader(f, delimiter="\t") if r["source"] == "esmini" and r["self_contained"] == "yes"]
        jobs = [(str(CONFORMANCE / r["xosc_path"]), r.get("esmini_end_time_s") or "") for r in rows]
        fn = _run_corpus
    else:
        tmp = tempfile.mkdtemp(prefix=f"guard-{set_name}-")
        folders = _bundles(set_name, Path(tmp) / "bundles")
        jobs = [(str(f), a, tmp) for f in folders for a in _agents(f, set_name)]
        fn = _run_agent
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return dict(sorted(pool.map(fn, jobs, chunksize=1)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("record", "check"))
    ap.add_argument("sets", nargs="*", default=list(SETS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE)
    a = ap.parse_args(argv)
    stored = json.loads(a.file.read_text()) if a.file.exists() else {}
    bad = 0
    for s in a.sets:
        if s not in SETS:
            ap.error(f"unknown set {s!r}; expected one of {', '.join(SETS)}")
        now = compute(s, a.workers)
        if a.action == "record":
            stored[s] = now
            continue
        before = stored.get(s, {})
        for key in sorted(set(before) | set(now)):
            old, new = before.get(key), now.get(key)
            if old is None or new is None or any(old.get(k) != new.get(k) for k in ("trace", "score", "record")):
                bad += 1
                print(f"{s}: {key}: was {old and old.get('summary')}, now {new and new.get('summary')}")
        print(f"{s}: {len(now)} runs, {sum(1 for k in now if k in before and all(before[k].get(x) == now[k].get(x) for x in ('trace', 'score', 'record')))} identical")
    if a.action == "record":
        a.file.parent.mkdir(parents=True, exist_ok=True)
        a.file.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        print(f"wrote {a.file}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
