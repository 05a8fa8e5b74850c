"""roadtest's own time per VLM decision against a fake OpenAI-compatible server that answers after a fixed 200 ms.

    PYTHONPATH=. python benchmarks/vlm_overhead.py [--decisions 30] [--delay 0.2]

Per decision (two calls, sync mode) it splits the wall time into: rendering the camera (observe on the
decision tick), roadtest's side of the calls (image encoding, HTTP client: the calls' wall time minus the
server's fixed delay and its own measured handling), the decision's bookkeeping (prompts, hashes, parsing),
and control (run_step on the ticks between
decisions). Its verdict: roadtest's share of the model's time, which should stay under 5 %. The camera is the
embedded renderer's (its GL renderer is printed: software llvmpipe on a CPU machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "agents" / "vlm"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=30)
    ap.add_argument("--delay", type=float, default=0.2, help="server answer time, s")
    a = ap.parse_args()
    from fake_openai import FakeOpenAIServer, FakeReply
    from oracle import route_following_reply

    from roadtest.agents import load_agent
    from roadtest.bundle import load_bundle
    from roadtest.runner.cli import resolve_target
    from roadtest.sim.api import SimSettings
    from roadtest.sim.embedded import EmbeddedSimulator

    out = Path(os.environ.get("TMPDIR", "/tmp")) / "roadtest-vlm-bench"
    (vid, path), = resolve_target(ROOT / "scenarios" / "straight_speed_limit.yaml", out)
    bundle = load_bundle(path)
    camera, sim_cls = "embedded renderer", EmbeddedSimulator
    good = route_following_reply(30.0)
    with FakeOpenAIServer(lambda req: FakeReply(content=good(req), delay=a.delay)) as srv:
        agent = load_agent("vlm", {"backend": "openai", "openai": {"base_url": srv.base_url}})
        agent.set_country(bundle.meta.get("country"))
        agent.set_global_plan(bundle.meta["route"]["waypoints"])
        specs = agent.sensors()
        sim = sim_cls().load(bundle, 0, SimSettings())
        render, control, sim_step = [], [], []
        decision_walls = []
        while agent.decisions < a.decisions and not sim.done:
            t0 = time.perf_counter()
            data = sim.observe(specs)
            t1 = time.perf_counter()
            n = agent.decisions
            c = agent(data, sim.state.time if sim.state is not None else 0.0)
            t2 = time.perf_counter()
            sim.step(c, agent.last_output)
            t3 = time.perf_counter()
            sim_step.append(t3 - t2)
            if agent.decisions > n:
                render.append(t1 - t0)
                decision_walls.append(t2 - t1)
            else:
                control.append(t2 - t1)
        sim.close()
        agent.destroy()
    recs = [o.record for o in sim.trace.agent if o.record]
    calls = len(recs[0]["stages"])
    server = [sum(srv.handling_s[i * calls:(i + 1) * calls]) for i in range(len(recs))]  # the fake model's own work
    recs, render, server = recs[1:], render[1:], server[1:]  # the first decision pays for imports and connecting
    model = calls * a.delay
    client = [sum(s["latency_s"] for s in r["stages"]) - model - sv for r, sv in zip(recs, server)]
    agent_side = [r["agent_overhead_s"] for r in recs]
    ticks_per = max(1, round(len(control) / max(len(recs), 1)))
    per_control = statistics.fmean(control) if control else 0.0
    med = statistics.median
    own = med(render) + med(client) + med(agent_side) + ticks_per * per_control
    from roadtest.sim.embedded.render.renderer import gl_context

    camera += f" ({gl_context().info['GL_RENDERER']})"
    print(f"camera: {camera}, {specs[0]['width']}x{specs[0]['height']}; {len(recs)} decisions, {calls} calls each, "
          f"server delay {a.delay * 1000:.0f} ms per call ({model * 1000:.0f} ms model time per decision)")
    print(f"  render (observe on a decision tick)    median {med(render) * 1000:7.2f} ms")
    print(f"  calls minus the server's time (encode, HTTP client) median {med(client) * 1000:7.2f} ms "
          f"(the fake server's own handling, not counted: {med(server) * 1000:.2f} ms)")
    print(f"  decision bookkeeping (prompts, parse)  median {med(agent_side) * 1000:7.2f} ms")
    print(f"  control, {ticks_per} ticks between decisions    mean {ticks_per * per_control * 1000:7.2f} ms")
    print(f"  (simulation step per tick, not counted  mean {statistics.fmean(sim_step) * 1000:7.2f} ms)")
    share = own / model
    print(f"roadtest's own time per decision {own * 1000:.1f} ms = {100 * share:.2f} % of the model's "
          f"{model * 1000:.0f} ms: {'OK (< 5 %)' if share < 0.05 else 'OVER the 5 % budget'}")
    rest = (own - med(render)) / model
    print(f"  without rendering (encode, HTTP client, parse, control): {100 * rest:.2f} %")
    return 0 if share < 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
