"""`roadtest search`: run the search, then write counterexamples and, with --map, the boundary of each parameter."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Sequence

from roadtest.errors import UserError

__all__ = ["search_command", "boundaries", "BOUNDARY_FILE"]

BOUNDARY_FILE = "boundary.json"


def boundaries(params, trials_by_agent: dict[str, list]) -> dict[str, list[dict[str, Any]]]:
    """Per agent, the boundary of each numeric searched parameter and, for two, their joint 50 % line (runs that did not
    end normally left out)."""
    from roadtest.dsl.search_space import numeric_value
    from roadtest.search.boundary import estimate_boundary, estimate_joint_boundary

    out: dict[str, list[dict[str, Any]]] = {}
    for agent, trials in trials_by_agent.items():
        done = [t for t in trials if t.objective is not None]
        rows = []
        for p in params:
            if p.kind == "choice":
                continue
            scale = 60.0 if p.kind == "time" else 1.0  # times in hours, as numeric_value gives them
            xs = [numeric_value(p, t.values[p.key]) for t in done]
            b = estimate_boundary(p.key, xs, [not t.broken for t in done], p.low / scale, p.high / scale)
            rows.append({**b.to_json(), "sentence": b.sentence("h" if p.kind == "time" else "")})
        numeric = [p for p in params if p.kind != "choice"]
        if len(numeric) == 2:
            scales = [60.0 if p.kind == "time" else 1.0 for p in numeric]
            cols = [[numeric_value(p, t.values[p.key]) for t in done] for p in numeric]
            j = estimate_joint_boundary((numeric[0].key, numeric[1].key), cols[0], cols[1], [not t.broken for t in done],
                                        tuple((p.low / sc, p.high / sc) for p, sc in zip(numeric, scales)))
            rows.append({**j.to_json(), "joint": True, "sentence": j.sentence()})
        out[agent] = rows
    return out


def search_command(scene: Path, agents: Sequence[str], budget: int, rule: str | None = None,
                   objective: str = "robustness", method: str | None = None, batch: int = 4, workers: int = 1,
                   executor: str = "local", address: str | None = None, out: Path | None = None, resume: bool = False,
                   seed: int = 0, tick: float = 0.05, timeout: float = 600.0, map_: bool = False, clips: bool = False,
                   stop_on_violation: bool = False, agent_config: Path | None = None) -> int:
    """Search, write counterexamples (and boundaries); 0 when nothing broke, 1 when counterexamples were found."""
    from roadtest.runner.plan import new_results_folder
    from roadtest.search.counterexamples import write_counterexamples
    from roadtest.search.engine import load_scene, run_search

    if workers < 1:
        raise UserError(f"--workers: expected at least 1, got {workers}")
    if executor not in ("local", "ray"):
        raise UserError(f"--executor: expected local or ray, got {executor!r}")
    if resume and out is None:
        raise UserError("--resume: expected --out DIR, the folder of the search to continue")
    doc, scn, params = load_scene(Path(scene))
    if map_:
        numeric = [p for p in params if p.kind != "choice"]
        if not 1 <= len(numeric) <= 2 or len(numeric) != len(params):
            raise UserError(f"--map: expected one or two numeric search parameters, {Path(scene).name} has "
                            f"{len(params)} ({', '.join(p.key for p in params)})")
    from roadtest.agents.registry import agent_class

    for a in agents:
        cls = agent_class(a)  # an unknown agent is the user's mistake: say so before any run
        if agent_config is not None and hasattr(cls, "check_config"):
            cls.check_config(agent_config)
    method = method or ("qmc" if map_ else "tpe")
    if out is None:
        out = new_results_folder(Path(f"{Path(scene).stem}-search"))
    print(f"roadtest: search results in {out}", file=sys.stderr)
    trials = run_search(Path(scene), list(dict.fromkeys(agents)), budget, Path(out), rule=rule, objective=objective,
                        method=method, seed=seed, batch=batch, workers=workers, executor=executor, address=address,
                        resume=resume, tick=tick, timeout=timeout, stop_on_violation=stop_on_violation,
                        agent_config=agent_config)
    everyone = [t for ts in trials.values() for t in ts]
    index = write_counterexamples(Path(out), doc, params, everyone, Path(scene), objective, rule, clips=clips)
    for agent, ts in trials.items():
        broken = sum(t.broken for t in ts)
        failed = sum(t.objective is None for t in ts)
        best = min((t.objective for t in ts if t.objective is not None), default=None)
        print(f"{agent}: {len(ts)} runs, {broken} broken, {failed} did not end normally; least objective "
              f"{best if best is None else format(best, '.4g')}")
    if index:
        print(f"counterexamples in {Path(out) / 'counterexamples'} (most violating and boundary first):")
        for e in index[:10]:
            vals = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in e["values"].items())
            print(f"  {e['file']}  {e['role'] or '':14s} objective {e['objective']:.4g}  {vals}")
        if len(index) > 10:
            print(f"  ... {len(index) - 10} more in index.json")
    if map_:
        found = boundaries(params, trials)
        (Path(out) / BOUNDARY_FILE).write_text(json.dumps(found, indent=1))
        for agent, rows in found.items():
            for r in rows:
                print(f"{agent}: {r['sentence']}")
    return 1 if index else 0
