"""Drive one bundle with the VLM agent in-process (the runner's loop, so the test's oracle can read the state)."""

from __future__ import annotations

from typing import Any, Callable

from roadtest.agents import load_agent
from roadtest.bundle import load_bundle
from roadtest.scoring.score import score_run
from roadtest.sim.api import SimSettings

__all__ = ["drive"]


def drive(bundle_dir, config: dict[str, Any], reply_for: Callable[[Any], Any], simulator_cls=None, max_time: float | None = None):
    """(trace, score, figures): `reply_for(sim)` gives the fake server's reply function for this simulation."""
    from fake_openai import FakeOpenAIServer

    if simulator_cls is None:
        from roadtest.sim.embedded import EmbeddedSimulator as simulator_cls
    bundle = load_bundle(bundle_dir)
    sim = simulator_cls().load(bundle, 0, SimSettings(max_time=max_time))
    reply = reply_for(sim)
    with FakeOpenAIServer(reply) as srv:
        cfg = {**config, "backend": "openai", "openai": {**config.get("openai", {}), "base_url": srv.base_url}}
        agent = load_agent("vlm", cfg)
        agent.set_country(bundle.meta.get("country"), bundle.meta.get("driving_side"))
        agent.set_global_plan((bundle.meta.get("route") or {}).get("waypoints"))
        specs = agent.sensors()
        try:
            while not sim.done:
                data = sim.observe(specs)
                t = sim.state.time if sim.state is not None else 0.0
                control = agent(data, t)
                sim.step(control, agent.last_output)
        finally:
            agent.destroy()
            sim.close()
    score = score_run(sim.trace, bundle.meta, None, bundle)
    return sim.trace, score, score.get("vlm"), srv
