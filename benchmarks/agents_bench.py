"""Cost of the privileged objects sensor and the expert: one expert episode per scenario with the current
code and with a baseline from an earlier commit, in the same process, as a ratio; traces compared exactly.

The baseline is objects_sensor.py and expert.py of git revision --baseline (default: the last commit before
the objects sensor was vectorised), loaded from `git show` into modules of their own and swapped in for the run.
Times are CPU seconds of this process (fastest of --repeat); "sensor" is the time inside objects_view.
Run: python3 benchmarks/agents_bench.py [TARGET ...] [--baseline REV] [--sensor-only] [--repeat 2]
(TARGET: scenario .yaml, suite or bundle folder; default scenarios/suites/smoke.yaml)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import types
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
BASELINE_REV = "ba23cba"  # objects_sensor.py before its vectorisation (memoised, point by point)
SENSOR_PATH = "roadtest/sim/objects_sensor.py"
EXPERT_PATH = "roadtest/agents/expert.py"


def _module_at(rev: str, path: str, name: str) -> types.ModuleType:
    """The file `path` as it was at git revision `rev`, executed as a fresh module called `name`."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], check=True, capture_output=True,
                         text=True).stdout
    mod = types.ModuleType(name)
    sys.modules[name] = mod  # dataclasses look their module up while the class is made
    exec(compile(src, f"{rev}:{path}", "exec"), mod.__dict__)  # noqa: S102 - our own file from our own history
    return mod


def baseline(rev: str = BASELINE_REV) -> tuple[types.ModuleType, str]:
    """(objects sensor module, agent name of the expert) as they were at git revision `rev`."""
    sensor = _module_at(rev, SENSOR_PATH, f"objects_sensor_at_{rev}")
    expert = _module_at(rev, EXPERT_PATH, f"expert_at_{rev}")
    expert.RoutePath, expert.to_ego_frame = sensor.RoutePath, sensor.to_ego_frame
    from roadtest.agents.registry import AGENTS

    AGENTS[f"expert@{rev}"] = f"{expert.__name__}:ExpertAgent"
    return sensor, f"expert@{rev}"


@contextmanager
def sensor_swapped(mod: types.ModuleType | None) -> Iterator[None]:
    """Make the simulator use `mod`'s objects_view (None: leave it as is)."""
    import roadtest.sim.objects_sensor as current

    if mod is None:
        yield
        return
    class ViewOnly:
        """The baseline has no per-run ObjectsSensor: each reading goes through its objects_view."""

        def __init__(self, network, meta):
            self.network, self.meta = network, meta

        def __call__(self, state, ego_id):
            return current.objects_view(state, self.network, self.meta, ego_id)

    saved = current.objects_view, current.ObjectsSensor
    current.objects_view, current.ObjectsSensor = mod.objects_view, ViewOnly
    try:
        yield
    finally:
        current.objects_view, current.ObjectsSensor = saved


def episode(bundle_path: str, mod: types.ModuleType | None, agent: str = "expert") -> tuple[float, int, float, list]:
    """(CPU s, ticks, CPU s spent in objects_view, states and agent outputs as dicts) of one expert episode, seed 0.

    CPU time of this process, not wall time, so other jobs on a shared machine disturb the figures less.
    """
    import roadtest.sim.objects_sensor as current
    from roadtest.bundle import load_bundle
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings

    bundle = load_bundle(bundle_path)
    with sensor_swapped(mod):
        inner, spent = current.objects_view, [0.0]

        def timed(*args, **kwargs):
            t = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[0] += time.process_time() - t

        current.objects_view = timed
        try:
            t0 = time.process_time()
            trace = run_episode(bundle, 0, agent, SimSettings())
            wall = time.process_time() - t0
        finally:
            current.objects_view = inner
    return wall, len(trace.states), spent[0], [asdict(s) for s in trace.states] + [asdict(a) for a in trace.agent]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("targets", nargs="*", type=Path, default=[ROOT / "scenarios" / "suites" / "smoke.yaml"])
    ap.add_argument("--baseline", default=BASELINE_REV, help="git revision of the baseline objects_sensor.py")
    ap.add_argument("--sensor-only", action="store_true",
                    help="swap in only the baseline sensor; the current expert drives both (for revisions whose expert differs)")
    ap.add_argument("--repeat", type=int, default=2, help="episodes per variant and sensor; the fastest counts")
    a = ap.parse_args()
    from roadtest.runner.cli import resolve_target

    base, base_agent = baseline(a.baseline)
    base_agent = "expert" if a.sensor_only else base_agent
    with tempfile.TemporaryDirectory() as tmp:
        bundles = [b for t in a.targets for b in resolve_target(t, Path(tmp))]
        print(f"{'variant':34} {'ticks':>5} {'base s':>7} {'new s':>7} {'ratio':>6} {'sensor base':>11} "
              f"{'sensor new':>10} {'ratio':>6}  trace")
        tot = [0.0, 0.0, 0.0, 0.0]
        for variant, path in bundles:
            episode(path, None)  # warm the map cache and imports so neither side pays for them
            runs: dict[str, tuple] = {}
            for _ in range(max(a.repeat, 1)):  # interleaved, so a busy spell hits both sides alike
                for name, mod, agent in (("base", base, base_agent), ("new", None, "expert")):
                    r = episode(path, mod, agent)
                    runs[name] = r if name not in runs or r[0] < runs[name][0] else runs[name]
            (wb, n, sb, tb), (wn, _, sn, tn) = runs["base"], runs["new"]
            tot = [tot[0] + wb, tot[1] + wn, tot[2] + sb, tot[3] + sn]
            same = "identical" if tb == tn else "DIFFERS"
            print(f"{variant[:34]:34} {n:5d} {wb:7.3f} {wn:7.3f} {wb / wn:6.2f} {sb:11.3f} {sn:10.3f} {sb / max(sn, 1e-9):6.2f}  {same}")
        print(f"{'total':34} {'':5} {tot[0]:7.3f} {tot[1]:7.3f} {tot[0] / tot[1]:6.2f} {tot[2]:11.3f} {tot[3]:10.3f} "
              f"{tot[2] / max(tot[3], 1e-9):6.2f}")


if __name__ == "__main__":
    main()
