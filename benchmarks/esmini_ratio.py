"""Steps per CPU second of roadtest's simulator core against esmini on the same OpenSCENARIO files, in one command.

Workload: benchmarks/xosc_run_profile.py's generated file (an ego and N storyboard vehicles on a straight
three-lane 5 km road, a third of them changing lane and speed at set times, stopped by a SimulationTimeCondition)
for N in 5, 20, 80, each written for T=60 s and T=10 s at a 0.05 s tick.
roadtest core: EmbeddedSimulator.load and the run loop (sim.loop.drive, no agent: the ego under its storyboard,
the trace recorded) in this process; esmini: the headless player on the same file in a child process
(--headless --fixed_timestep 0.05, no log). Each side's rate is the 1000 ticks between the T=60 and the T=10
run over the difference of their CPU times (process time here, the child's rusage for esmini), so start-up
(imports, parsing, the map) cancels; medians over rounds, the two sides interleaved so that a loaded machine
disturbs both alike. The ratio is esmini's rate over roadtest's (lower is better for roadtest).

esmini is found by --esmini, else $ESMINI, else ../esmini/build/... beside the repository, else on PATH; build it
with ../shared/tools/build_esmini.sh.

    PYTHONPATH=$PWD python3 benchmarks/esmini_ratio.py [--esmini PATH] [--rounds 5] [--vehicles 5,20,80]
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from xosc_run_profile import TICK, write_file  # noqa: E402

LONG, SHORT = 60.0, 10.0
STEPS = round((LONG - SHORT) / TICK)
BESIDE = HERE.parent.parent / "esmini" / "build" / "EnvironmentSimulator" / "Applications" / "esmini" / "esmini"


def find_esmini(given: str | None) -> Path | None:
    for cand in (given, os.environ.get("ESMINI"), str(BESIDE), shutil.which("esmini")):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return Path(cand)
    return None


def roadtest_cpu(path: Path) -> tuple[float, int]:
    """CPU seconds of loading and running the file to its stop trigger, and the steps it took (one more than
    esmini's frames: the step whose snapshot fires the stop trigger is taken, its end time is the snapshot's)."""
    from roadtest.sim.api import SimSettings, Termination
    from roadtest.sim.embedded import EmbeddedSimulator
    from roadtest.sim.loop import drive

    t0 = time.process_time()
    sim = EmbeddedSimulator().load(path, seed=0, settings=SimSettings(tick=TICK))
    trace = drive(sim)
    cpu = time.process_time() - t0
    sim.close()
    if trace.termination is not Termination.COMPLETED:
        raise SystemExit(f"{path.name}: roadtest ended {trace.termination}: {trace.reason}")
    return cpu, len(trace.states) - 1


def esmini_cmd(exe: Path, path: Path, log: Path | None = None) -> list[str]:
    cmd = [str(exe), "--headless", "--fixed_timestep", str(TICK), "--seed", "1", "--osc", path.name, "--disable_stdout"]
    return cmd + ["--csv_logger", str(log)] if log is not None else cmd


def esmini_cpu(exe: Path, path: Path) -> float:
    """CPU seconds (user + system) of one esmini run of the file, from the child's resource usage."""
    p = subprocess.Popen(esmini_cmd(exe, path), cwd=path.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{path.name}: esmini exited {p.returncode}: {' '.join(esmini_cmd(exe, path))}")
    return ru.ru_utime + ru.ru_stime


def esmini_ticks(exe: Path, path: Path) -> int:
    """Ticks esmini ran (frames in its CSV log less the initial one): the same workload as roadtest's."""
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "log.csv"
        subprocess.run(esmini_cmd(exe, path, log), cwd=path.parent, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        with open(log, newline="") as f:
            frames = {row[0].strip() for row in csv.reader(f) if row and row[0].strip().isdigit()}
    return len(frames) - 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--esmini", help="the esmini binary (default: $ESMINI, ../esmini/build/..., PATH)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--vehicles", default="5,20,80", help="comma-separated vehicle counts")
    args = ap.parse_args(argv)
    exe = find_esmini(args.esmini)
    if exe is None:
        print("esmini not found: give --esmini PATH or set $ESMINI (build it with ../shared/tools/build_esmini.sh "
              "ESMINI_GIT_DIR FMT_GIT_DIR OUT_DIR; it prints the binary's path)", file=sys.stderr)
        return 2
    counts = [int(v) for v in args.vehicles.split(",")]
    print(f"esmini: {exe}\nroadtest core vs esmini, ego + N storyboard vehicles, {STEPS} ticks (T={LONG:g} s run minus "
          f"T={SHORT:g} s run), CPU time, median of {args.rounds} rounds")
    print(f"{'N':>4} {'roadtest steps/s':>17} {'esmini steps/s':>15} {'ratio':>7}   T=60 run: roadtest steps / esmini frames")
    with tempfile.TemporaryDirectory() as d:
        for n in counts:
            folder = Path(d) / f"n{n}"
            long, short = write_file(folder, n, LONG), write_file(folder, n, SHORT)
            _, ticks = roadtest_cpu(short)  # imports and map caches out of the way
            rt, es = [], []
            for _ in range(args.rounds):
                a, ticks = roadtest_cpu(long)
                b, _ = roadtest_cpu(short)
                rt.append(STEPS / max(a - b, 1e-9))
                es.append(STEPS / max(esmini_cpu(exe, long) - esmini_cpu(exe, short), 1e-9))
            r, e = statistics.median(rt), statistics.median(es)
            print(f"{n:4d} {r:17.0f} {e:15.0f} {e / r:6.1f}x   {ticks} / {esmini_ticks(exe, long)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
