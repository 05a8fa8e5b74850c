"""Scaling of suites: runs per minute on 1 and 2 local workers and on a local Ray, and how wall time grows with runs.

Part 1 runs the level suites (default L1-L5, the expert) three ways in this one command: the local pool with
1 worker, with 2, and a local Ray started with 2 CPUs; it prints runs/min and the scaling efficiency
(rate / (workers x the 1-worker rate)) and Ray's rate against the 2-worker pool.
Part 2 runs one short scenario with --seeds N for N in --growth (default 10 100) on 2 workers and prints
wall time per run, split into the time inside the runs (the records' wall_s: load, simulate, score, write)
and the rest (process start-up, planning, bundle writing, results and summary).
Run: python benchmarks/scale_bench.py [--suites L1 L2 ...] [--growth 10 100 1000] [--skip-ray]
Prints the machine's core count and load average, since other work on the machine changes the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from roadtest.runner.cli import run_command  # noqa: E402
from roadtest.runner.store import read_records  # noqa: E402

SHORT = """name: bench-short
country: DE
environment: {weather: clear, time: "12:00"}
road: {kind: straight, length: 200, lanes: {forward: 1, backward: 1, width: 3.5}, speed_limit: 50}
ego: {lane: 1, s: 10, speed: 30, route: {distance: 60}}
rules: [speed_limit]
expect: {reach_goal: true, timeout: 20}
"""


def timed_run(target: Path, out: Path, workers: int, executor: str, seeds: int = 1, agent: str = "expert") -> tuple[float, list]:
    start = time.perf_counter()
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
        run_command(target=target, agent=agent, seeds=seeds, seed=0, tick=0.05, workers=workers, out=out,
                    resume=False, trace_csv=None, timeout=600.0, backend="embedded", executor=executor)
    wall = time.perf_counter() - start
    return wall, list(read_records(out))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", nargs="+", default=["L1", "L2", "L3", "L4", "L5"])
    ap.add_argument("--growth", nargs="*", type=int, default=[10, 100])
    ap.add_argument("--skip-ray", action="store_true")
    args = ap.parse_args(argv)
    print(f"cores {os.cpu_count()}  load average before {os.getloadavg()}")
    tmp = Path(tempfile.mkdtemp(prefix="roadtest-scale-"))
    try:
        targets = [ROOT / "scenarios" / "suites" / f"{s}.yaml" for s in args.suites]
        ways = [("local", 1), ("local", 2)] + ([] if args.skip_ray else [("ray", 2)])
        rates = {}
        for executor, workers in ways:
            wall, n = 0.0, 0
            for t in targets:
                w, recs = timed_run(t, tmp / f"{executor}{workers}-{t.stem}", workers, executor)
                wall += w
                n += len(recs)
            rates[(executor, workers)] = 60.0 * n / wall
            print(f"{executor:5s} x{workers}: {n} runs in {wall:7.1f} s  {rates[(executor, workers)]:6.1f} runs/min")
        one = rates[("local", 1)]
        print(f"scaling efficiency, 2 local workers: {rates[('local', 2)] / (2 * one):.2f}  "
              f"(speed-up {rates[('local', 2)] / one:.2f}x)")
        if ("ray", 2) in rates:
            print(f"ray x2 / local x2: {rates[('ray', 2)] / rates[('local', 2)]:.2f}  "
                  f"(speed-up over 1 worker {rates[('ray', 2)] / one:.2f}x)")
        short = tmp / "short.yaml"
        short.write_text(SHORT)
        for n in args.growth:
            wall, recs = timed_run(short, tmp / f"growth-{n}", 2, "local", seeds=n)
            inside = sum(r.get("wall_s", 0.0) for r in recs) / 2.0
            print(f"{n:5d} runs: wall {wall:7.1f} s, {wall / n * 1000:6.0f} ms/run; inside runs {inside / n * 1000:6.0f} "
                  f"ms/run per worker, outside (start-up, planning, results) {(wall - inside) / n * 1000:6.0f} ms/run")
        print(f"load average after {os.getloadavg()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
