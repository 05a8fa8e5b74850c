"""Stand-in executors for search tests: records made from a known formula of the candidate, no simulation.

`stand_in_executor(formula)` reads each job's candidate values from its bundle's meta.json (`sweep`) and makes a
record whose no_collision_vru margin is formula(values): negative is a violation, as a monitor's would be.
"""

from __future__ import annotations

import json
from pathlib import Path

BASE = """\
name: synthetic
country: CN
road: {kind: straight, length: 300, lanes: {forward: 1, backward: 1, width: 3.5}, speed_limit: 40}
ego: {lane: 1, s: 10, speed: 35, route: {distance: 250}}
actors:
  - id: walker
    kind: pedestrian
    place: {side: right, s: 130}
    behaviours:
      - {action: cross_road, speed: 5, to: left, trigger: {time: 3}}
rules: [no_collision_vru]
expect: {reach_goal: true, timeout: 55}
"""


def write_scene(folder: Path, search: str) -> Path:
    p = Path(folder) / "synthetic.yaml"
    p.write_text(BASE + "search:\n" + "".join("  " + line + "\n" for line in search.strip().splitlines()))
    return p


def stand_in_executor(formula, order=lambda jobs: jobs, stop_after: int | None = None):
    """A callable(jobs, on_result) like the pool, in `order`; raises KeyboardInterrupt after `stop_after` records
    in total (a stand-in for a kill) when given."""
    state = {"n": 0}

    def run(jobs, on_result):
        for job in order(list(jobs)):
            if stop_after is not None and state["n"] >= stop_after:
                raise KeyboardInterrupt("stand-in kill")
            values = json.loads((Path(job.bundle) / "meta.json").read_text())["sweep"]
            m = float(formula(values))
            verdict = "violated" if m < 0 else "satisfied"
            on_result({"run_id": job.run_id, "variant": job.variant, "seed": job.seed, "agent": job.agent,
                       "status": "failed" if m < 0 else "completed",
                       "rules": [{"id": "no_collision_vru", "verdict": verdict, "worst": -1.0 if m < 0 else 1.0,
                                  "margin": m}]})
            state["n"] += 1

    return run
