"""Runs to the first violation: roadtest search's optuna samplers against random sampling, on scenes built here
with a known, narrow failure region, over several sampler seeds, in one command.

Scenes (written into the work folder):
  runner   the lane follower (12 m/s, blind to road users) meets a pedestrian running across at 14 km/h; it is hit
           only when the runner starts within about 1 s of a 20 s range (RUNNER_WINDOW, measured on a 0.2 s grid).
  fog-sign the builtin camera agent must read a 30 km/h sign on an 80 km/h road; it misses it only in fog thinner
           than about FOG_THRESHOLD m of visibility, out of 10..400 m.

Every evaluation is an ordinary run (the built-in simulator); a candidate already run in this work folder, by any
method or seed, is taken from the cache (same values, same deterministic run, same record), which is what makes 10
seeds affordable. A method that finds nothing within the budget counts budget + 1 (and is reported).

  python benchmarks/search_bench.py [--seeds 10] [--budget 40] [--methods tpe,gp,cmaes] [--scenes runner,fog-sign]
                                    [-j 2] [--work DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RUNNER_WINDOW = (9.0, 10.0)  # s: the start times that break no_collision_vru, measured with --measure 0.25
FOG_THRESHOLD = 30.0  # m: visibilities below it (10 and 20 on the 10 m grid) break speed_limit, --measure 10

SCENES = {
    "runner": ("""\
name: runner
country: CN
road: {kind: straight, length: 200, lanes: {forward: 1, backward: 1, width: 3.5}, speed_limit: 50}
ego: {lane: 1, s: 10, speed: 43, route: {distance: 150}}
actors:
  - id: runner
    kind: pedestrian
    place: {side: right, s: 130}
    behaviours:
      - {action: cross_road, speed: 14, to: left, trigger: {time: 3}}
rules: [no_collision_vru]
expect: {reach_goal: true, timeout: 30}
search:
  actors.runner.behaviours.0.trigger.time: {range: [0, 20], step: 0.25}
""", "lane-follower", "no_collision_vru", 0.1),
    "fog-sign": ("""\
name: fog-sign
country: DE
road:
  kind: straight
  length: 170
  lanes: {forward: 1, backward: 1, width: 3.5}
  speed_limit: 80
  markings: {center: broken_white}
  signs:
    - {id: speed_limit, s: 80, side: right, value: 30}
ego: {lane: 1, s: 10, speed: 70, route: {distance: 140}}
rules: [speed_limit]
expect: {reach_goal: true, timeout: 40}
search:
  environment.visibility: {range: [10, 400], step: 10}
""", "vlm", "speed_limit", 0.05),
}


def cached_executor(cache_dir: Path, workers: int, counter: dict):
    """Run jobs on the local pool, but take a candidate already run (same bundle content) from the cache."""
    from roadtest.runner.pool import run_jobs

    cache_dir.mkdir(parents=True, exist_ok=True)

    def key(job) -> str:
        meta = json.loads((Path(job.bundle) / "meta.json").read_text())
        values = {k: round(v, 6) if isinstance(v, float) else v for k, v in (meta.get("sweep") or {}).items()}
        return json.dumps([job.agent, values], sort_keys=True)

    index_path = cache_dir / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}

    def run(jobs, on_result):
        todo = []
        for job in jobs:
            rec = index.get(key(job))
            if rec is not None:
                on_result({**copy.deepcopy(rec), "run_id": job.run_id, "variant": job.variant, "cached": True})
            else:
                todo.append(job)
        keys = {j.run_id: key(j) for j in todo}

        def fresh(rec):
            counter["runs"] += 1
            index[keys[rec["run_id"]]] = {k: v for k, v in rec.items() if k != "search"}
            on_result(rec)

        if todo:
            run_jobs(todo, workers, fresh)
            index_path.write_text(json.dumps(index))

    return run


def measure(scene: Path, agent: str, rule: str, step: float, execute, out: Path, tick: float) -> list[tuple[float, bool, float]]:
    """(value, broken, objective) on a grid of the scene's one searched parameter: where the failure region is."""
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.loader import Variant, validate_doc
    from roadtest.dsl.search_space import concrete_doc
    from roadtest.runner.cli import run_id_for
    from roadtest.runner.episode import Job
    from roadtest.search.engine import load_scene, objective_of

    doc, scn, params = load_scene(scene)
    p = params[0]
    n = int(round((p.high - p.low) / step))
    jobs = []
    for k in range(n + 1):
        value = round(p.low + k * step, 6)
        value = int(value) if p.kind == "int" else value
        cdoc = concrete_doc(doc, {p.key: value}, params)
        vid = f"{scn.name}--grid-{k:04d}"
        bundle = write_bundle(Variant(scenario=validate_doc(cdoc), id=vid, seed=0, sweep={p.key: value}, source=scene),
                              out / "bundles")
        jobs.append(Job(run_id=run_id_for(vid, 0, agent), bundle=str(bundle), variant=vid, seed=0, agent=agent,
                        tick=tick, out=str(out), timeout=600.0, reference=False))
    found = {}

    def on_result(rec):
        value = json.loads((Path(next(j.bundle for j in jobs if j.run_id == rec["run_id"])) / "meta.json").read_text())["sweep"][p.key]
        obj, broken, _ = objective_of(rec, "robustness", rule)
        found[value] = (value, broken, obj)

    execute(jobs, on_result)
    return [found[v] for v in sorted(found)]


def runs_to_first(trials) -> int | None:
    for i, t in enumerate(sorted(trials, key=lambda t: t.number), start=1):
        if t.broken:
            return i
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--budget", type=int, default=40)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--methods", default="tpe,gp,cmaes")
    ap.add_argument("--scenes", default="runner,fog-sign")
    ap.add_argument("-j", "--workers", type=int, default=2)
    ap.add_argument("--work", type=Path, default=Path("search-bench"))
    ap.add_argument("--measure", type=float, default=None, metavar="STEP",
                    help="Only run a grid of this step over each scene's parameter and print where it breaks.")
    a = ap.parse_args(argv)

    from roadtest.search.engine import run_search

    methods = [m for m in a.methods.split(",") if m] + ["random"]
    rows = []
    for scene_name in a.scenes.split(","):
        text, agent, rule, tick = SCENES[scene_name]
        work = a.work / scene_name
        work.mkdir(parents=True, exist_ok=True)
        scene = work / f"{scene_name}.yaml"
        scene.write_text(text)
        counter = {"runs": 0}
        execute = cached_executor(work / "cache", a.workers, counter)
        if a.measure:
            grid = measure(scene, agent, rule, a.measure, execute, work / "grid", tick)
            broken = [v for v, b, _ in grid if b]
            print(f"{scene_name}: {len(grid)} grid values, broken at {broken}")
            for v, b, o in grid:
                print(f"  {v:g}: {'BROKEN' if b else 'kept'} {o}")
            continue
        per_method = {}
        start = time.monotonic()
        for method in methods:
            found = []
            for seed in range(a.seeds):
                out = work / f"{method}-s{seed}"
                if out.exists():
                    import shutil

                    shutil.rmtree(out)
                trials = run_search(scene, [agent], a.budget, out, rule=rule, method=method, seed=seed, batch=a.batch, tick=tick,
                                    executor=execute, stop_on_violation=True, quiet=True)[agent]
                n = runs_to_first(trials)
                found.append(n)
                print(f"{scene_name} {method} seed {seed}: {n if n else f'none in {a.budget}'}", file=sys.stderr)
            per_method[method] = found
        counted = {m: [n if n is not None else a.budget + 1 for n in v] for m, v in per_method.items()}
        med_random = statistics.median(counted["random"])
        for m in methods:
            med = statistics.median(counted[m])
            rows.append((scene_name, m, med, sum(n is None for n in per_method[m]), med_random / med,
                         " ".join(str(n) if n else "-" for n in per_method[m])))
        print(f"{scene_name}: {counter['runs']} fresh runs, {time.monotonic() - start:.0f} s", file=sys.stderr)
    print(f"\nruns to first violation, median over {a.seeds} seeds (budget {a.budget}, batch {a.batch}; "
          f"not found counts {a.budget + 1})\n")
    print("| scene | method | median runs | not found | random / method | per seed |")
    print("|---|---|---|---|---|---|")
    for scene_name, m, med, missing, ratio, per in rows:
        print(f"| {scene_name} | {m} | {med:g} | {missing} | {ratio:.2f}x | {per} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
