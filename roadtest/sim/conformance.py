"""The check every simulator backend passes: same seed, bundle and agent give the same trace; closed runs refuse work."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Callable

from roadtest.errors import RoadtestError
from roadtest.sim.api import Control, SimSettings, SimulationClosed, Simulator, Termination

__all__ = ["ConformanceFailure", "check_backend", "scripted_control", "trace_digest"]


class ConformanceFailure(RoadtestError):
    """A backend broke the simulation contract; the message lists every failed check."""


def scripted_control(frame: int) -> Control:
    """A fixed control sequence that exercises throttle, braking and both steering directions."""
    phase = (frame // 40) % 3
    return Control(throttle=0.6 if phase != 2 else 0.0, brake=0.4 if phase == 2 else 0.0,
                   steer=0.2 * math.sin(frame * 0.1))


def trace_digest(trace) -> str:
    """SHA-256 of the trace's canonical JSON (states, agent outputs, termination, info)."""
    return hashlib.sha256(json.dumps(trace.to_dict(), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _run(simulator: Simulator, bundle, seed: int, settings: SimSettings, agent_factory, steps: int):
    sim = simulator.load(bundle, seed, settings)
    agent = agent_factory() if agent_factory is not None else None
    specs = list(agent.sensors()) if agent is not None else []
    drives = sim.state is None or sim.state.ego is not None
    problems = []
    last = sim.state
    try:
        for i in range(steps):
            if sim.done:
                break
            if agent is not None:
                data = sim.observe(specs)
                now = sim.state.time if sim.state is not None else 0.0
                control = agent(data, now) if callable(agent) else agent.run_step(data, now)
            else:
                control = scripted_control(i) if drives else None
            st = sim.step(control)
            if last is not None:
                if st.frame != last.frame + 1:
                    problems.append(f"frame went {last.frame} -> {st.frame}, expected +1")
                if abs(st.time - last.time - sim.tick) > 1e-6:
                    problems.append(f"time went {last.time} -> {st.time}, expected +{sim.tick}")
            last = st
    finally:
        if agent is not None and hasattr(agent, "destroy"):
            agent.destroy()
    return sim, problems


def check_backend(simulator: Simulator, bundle, agent_factory: Callable[[], Any] | None = None, steps: int = 200,
                  seed: int = 0, settings: SimSettings | None = None) -> dict[str, Any]:
    """Run the bundle twice and probe the closed state; raise ConformanceFailure listing what broke.

    `agent_factory()` builds a fresh agent per run (leaderboard shape: sensors(), run_step()); without one a
    scripted control sequence drives the ego. Returns {"steps", "digest", "termination"} of the first run.
    """
    settings = settings or SimSettings()
    problems: list[str] = []
    sim_a, pa = _run(simulator, bundle, seed, settings, agent_factory, steps)
    sim_b, pb = _run(simulator, bundle, seed, settings, agent_factory, steps)
    problems += pa + [p for p in pb if p not in pa]
    for sim in (sim_a, sim_b):
        sim.close()
    da, db = trace_digest(sim_a.trace), trace_digest(sim_b.trace)
    if da != db:
        first = next((i for i, (x, y) in enumerate(zip(sim_a.trace.states, sim_b.trace.states)) if x != y),
                     min(len(sim_a.trace.states), len(sim_b.trace.states)))
        problems.append(f"same seed, bundle and agent gave different traces (first difference at state {first})")
    if not sim_a.trace.states:
        problems.append("the run recorded no state")
    for name, call in (("step", lambda s: s.step(None)), ("observe", lambda s: s.observe([]))):
        try:
            call(sim_a)
            problems.append(f"{name}() on a closed simulation did not raise")
        except SimulationClosed:
            pass
    try:
        sim_a.close()
    except Exception as e:  # noqa: BLE001 - any error here is the failure being reported
        problems.append(f"a second close() raised {type(e).__name__}: {e}")
    if sim_a.trace.termination is None or not isinstance(sim_a.trace.termination, Termination):
        problems.append("a closed run has no Termination")
    simulator.close()
    simulator.close()
    if problems:
        raise ConformanceFailure("backend " + getattr(simulator, "name", "?") + " fails the conformance check:\n  "
                                 + "\n  ".join(problems))
    return {"steps": len(sim_a.trace.states), "digest": da, "termination": sim_a.trace.termination}
