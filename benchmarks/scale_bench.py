"""Scaling of suites, as ratios measured in this one command: this tree against a baseline commit on the L1 suite,
1 against 2 local workers, and Ray against the local pool, on 100 and 1,000 runs.

Part 1 (--baseline REV, default e797568, the main before workers lived across runs): the L1 suite with the expert
on 2 workers, run by `roadtest` from this tree and from a `git archive` copy of REV, back to back (--repeat N
rounds, alternating which goes first); prints each wall time, the median of the rounds' ratios this/baseline,
and whether every run's trace, score.json and status are equal between the two trees.
Part 2: CPU seconds (getrusage of the child) of `roadtest validate` on a malformed scenario, both trees.
Part 3 (--sizes, default 100 1000): one short scenario with --seeds N on the local pool with 1 and 2 workers and on
a local Ray with 2 CPUs (started before the clock, as a cluster would be); prints runs/s, the speed-up of 2
workers over 1 and Ray's rate over the local pool's (median of --scale-repeat alternated rounds up to 100 runs).
Every figure comes with the machine's load: how many of its cores were busy (from /proc/stat, this benchmark
included) and the 1-minute load average, so a figure taken on a quiet machine can be told from one taken beside
other work.
Run: python benchmarks/scale_bench.py [--baseline REV] [--repeat N] [--sizes 100 1000] [--skip-ray] [--skip-l1]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
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
BAD = """name: bad
country: DE
road: {kind: straight, length: 200, lanes: {forward: 1, backward: 1, width: 3.5}, speed_limit: 50}
ego: {lane: 1, s: 10, speed: 30}
rules: [speed_limt]
"""


def _cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine so far."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


class Load:
    """The machine's load over a measurement: cores busy (all processes, this one included) and load average."""

    def __enter__(self) -> "Load":
        self.t0 = _cpu_ticks()
        return self

    def __exit__(self, *exc) -> None:
        b1, t1 = _cpu_ticks()
        total = t1 - self.t0[1]
        self.busy = (b1 - self.t0[0]) / total * (os.cpu_count() or 1) if total > 0 else float("nan")
        self.loadavg = os.getloadavg()[0]

    def __str__(self) -> str:
        return f"[machine: {self.busy:.1f} of {os.cpu_count()} cores busy, 1-min load average {self.loadavg:.1f}]"


def baseline_tree(rev: str, into: Path) -> Path:
    """A copy of the repository at `rev` (git archive), to run beside this tree."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def _which(tree: Path) -> str:
    """The roadtest package a subprocess with this tree's environment imports (checks the A/B really differ)."""
    out = subprocess.run([sys.executable, "-c", "import roadtest; print(roadtest.__file__)"], env=_env(tree),
                         capture_output=True, text=True, check=True, cwd=tree)
    return str(Path(out.stdout.strip()).parent.parent)


def _adopt_orphans() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux prctl PR_SET_CHILD_SUBREAPER), so the CPU
    of worker processes that a forkserver started, and the forkserver's own, reach RUSAGE_CHILDREN here."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _reap(timeout: float = 10.0) -> None:
    """Wait for every descendant that has been handed to this process (the forkserver leaves after its parent)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cli_run(tree: Path, target: Path, out: Path, workers: int) -> tuple[float, float | None, Load]:
    """(wall s, CPU s of the whole process tree or None, load) of `roadtest run TARGET --agent expert -j WORKERS`
    with `tree` on the path."""
    adopted = _adopt_orphans()
    with Load() as load:
        cpu0 = _children_cpu()
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "roadtest", "run", str(target), "--agent", "expert", "-j", str(workers),
                        "--out", str(out)], env=_env(tree), cwd=out.parent, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        if adopted:
            _reap()
        cpu = _children_cpu() - cpu0 if adopted else None
    return wall, cpu, load


def _run_files(out: Path) -> dict[str, tuple]:
    """run id -> (trace, score.json, status) of every run in a results folder, the folder's own path scrubbed."""
    got = {}
    for rec in read_records(out):
        folder = out / "runs" / rec["run_id"]
        with gzip.open(folder / "trace.json.gz", "rt") as f:
            trace = f.read().replace(str(out), "OUT")
        score = (folder / "score.json").read_text().replace(str(out), "OUT") if (folder / "score.json").exists() else None
        got[rec["run_id"]] = (trace, score, rec.get("status"))
    return got


def part_l1(tmp: Path, rev: str, repeat: int) -> None:
    base = baseline_tree(rev, tmp / "baseline")
    trees = {"this": ROOT, rev: base}
    for name, tree in trees.items():
        print(f"  {name:8s} imports roadtest from {_which(tree)}")
    walls: dict[str, list[float]] = {name: [] for name in trees}
    cpus: dict[str, list[float]] = {name: [] for name in trees}
    order = list(trees)
    for i in range(repeat):
        for name in (order if i % 2 == 0 else order[::-1]):
            out = tmp / f"l1-{name}-{i}"
            wall, cpu, load = cli_run(trees[name], trees[name] / "scenarios" / "suites" / "L1.yaml", out, 2)
            n = len(list(read_records(out)))
            walls[name].append(wall)
            if cpu is not None:
                cpus[name].append(cpu)
            print(f"  L1 expert -j 2  {name:8s} {n} runs  wall {wall:6.1f} s  CPU "
                  f"{'?' if cpu is None else f'{cpu:6.1f}'} s (all its processes)  {load}")
    ratios = [a / b for a, b in zip(walls["this"], walls[rev])]  # each round's pair ran back to back
    if cpus["this"] and cpus[rev]:
        print(f"  CPU this/{rev} = {statistics.median(a / b for a, b in zip(cpus['this'], cpus[rev])):.2f} "
              "(the work itself, whatever else the machine runs)")
    a, b = _run_files(tmp / "l1-this-0"), _run_files(tmp / f"l1-{rev}-0")
    same = sorted(a) == sorted(b) and all(a[k] == b[k] for k in a)
    differ = [k for k in a if k in b and a[k] != b[k]]
    print(f"L1 suite, expert, 2 workers: this/{rev} wall = {statistics.median(ratios):.2f}  (target <= 0.33; "
          f"median of {repeat} alternated round(s): {', '.join(f'{r:.2f}' for r in ratios)})")
    print(f"  traces, score.json and status identical in every run: {same}"
          + ("" if same else f" (runs differing: {len(differ)}, e.g. {differ[:3]}; only in one: "
                             f"{sorted(set(a) ^ set(b))[:3]})"))


def timed_run(target: Path, out: Path, workers: int, executor: str, seeds: int) -> tuple[float, Load, int]:
    with Load() as load:
        start = time.perf_counter()
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
            run_command(target=target, agent="expert", seeds=seeds, seed=0, tick=0.05, workers=workers, out=out,
                        resume=False, trace_csv=None, timeout=600.0, backend="embedded", executor=executor)
        wall = time.perf_counter() - start
    return wall, load, len(list(read_records(out)))


def part_scale(tmp: Path, sizes: list[int], ray: bool, repeat: int) -> None:
    short = tmp / "short.yaml"
    short.write_text(SHORT)
    if ray:
        import ray as ray_module

        start = time.perf_counter()
        ray_module.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
        print(f"  local Ray with 2 CPUs started in {time.perf_counter() - start:.1f} s (not counted below)")
    try:
        for n in sizes:
            ways = [("local", 1), ("local", 2)] + ([("ray", 2)] if ray else [])
            speedup, on_ray = [], []
            for i in range(repeat if n <= 100 else 1):
                rates = {}
                for executor, workers in (ways if i % 2 == 0 else ways[::-1]):
                    out = tmp / f"{executor}{workers}-{n}-{i}"
                    wall, load, got = timed_run(short, out, workers, executor, n)
                    rates[(executor, workers)] = got / wall
                    print(f"  {n:5d} runs  {executor:5s} x{workers}: {got} recorded in {wall:6.1f} s  "
                          f"{got / wall:5.2f} runs/s  {load}")
                    shutil.rmtree(out, ignore_errors=True)
                speedup.append(rates[("local", 2)] / rates[("local", 1)])
                if ("ray", 2) in rates:
                    on_ray.append(rates[("ray", 2)] / rates[("local", 2)])
            line = f"{n} runs: 2 local workers / 1 = {statistics.median(speedup):.2f}x (target >= 1.8)"
            if on_ray:
                line += f"; Ray x2 / local x2 = {statistics.median(on_ray):.2f} (target >= 0.90)"
            print(line + (f"  (median of {len(speedup)} alternated rounds: "
                          f"{', '.join(f'{x:.2f}' for x in speedup)}"
                          + (f" / {', '.join(f'{x:.2f}' for x in on_ray)})" if on_ray else ")")))
    finally:
        if ray:
            ray_module.shutdown()


def part_validate(tmp: Path, rev: str) -> None:
    bad = tmp / "bad.yaml"
    bad.write_text(BAD)
    for name, tree in (("this", ROOT), (rev, tmp / "baseline")):
        if not tree.exists():
            continue
        cpu = []
        for _ in range(3):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc = subprocess.run([sys.executable, "-m", "roadtest", "validate", str(bad)], env=_env(tree), cwd=tmp,
                                  capture_output=True, text=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        print(f"  validate (malformed file) {name:8s} exit {proc.returncode}  CPU {statistics.median(cpu):.2f} s "
              f"(median of 3; target < 0.3)  first line: {proc.stdout.splitlines()[0] if proc.stdout else ''}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="e797568", help="commit to compare the L1 suite against")
    ap.add_argument("--repeat", type=int, default=1, help="L1 runs per tree, alternating which goes first")
    ap.add_argument("--sizes", nargs="*", type=int, default=[100, 1000])
    ap.add_argument("--scale-repeat", type=int, default=3, help="alternated rounds for sizes up to 100 (larger: one)")
    ap.add_argument("--skip-ray", action="store_true")
    ap.add_argument("--skip-l1", action="store_true")
    args = ap.parse_args(argv)
    print(f"cores {os.cpu_count()}  load average before {os.getloadavg()}")
    tmp = Path(tempfile.mkdtemp(prefix="roadtest-scale-"))
    try:
        if not args.skip_l1:
            part_l1(tmp, args.baseline, args.repeat)
        part_validate(tmp, args.baseline)
        if args.sizes:
            part_scale(tmp, args.sizes, not args.skip_ray, args.scale_repeat)
        print(f"load average after {os.getloadavg()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
