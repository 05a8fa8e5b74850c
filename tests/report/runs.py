"""Hand-built run folders for the report and replay tests, with outcomes known by hand.

The ego drives along +x on road "0" (no map file) with speed 5 + t m/s (tick 0.1 s, 201 ticks,
t = 0..20 s). meta.json asks for speed_limit with the road limit 50 km/h: the catalogue's
tolerance is 2 km/h, so the rule is broken once 5 + t > (50 + 2) / 3.6 = 14.444 m/s, i.e. from
the first tick after t = 9.444 s: t = 9.5 s. A collision with "truck" is recorded at t = 15.0 s.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from roadtest.sim.api import ActorState, AgentOutput, Control, Event, LanePos, Trace, WorldState

TICK = 0.1

N_TICKS = 201
LIMIT = 50 / 3.6
VIOLATION_T = 9.5
COLLISION_T = 15.0


def ramp_trace(speed=lambda t: 5.0 + t, collision: bool = True):
    """The ego along +x on road "0", lane -1 (s = x), a truck 30 m ahead; agent outputs (plan, text) every tick."""
    states, x = [], 0.0
    for i in range(N_TICKS):
        t, v = i * TICK, speed(i * TICK)
        x += v * TICK if i else 0.0
        ego = ActorState(id="hero", role="ego", kind="car", x=x, y=-1.75, z=0.0, h=0.0, speed=v, length=4.0, width=2.0,
                         lane=LanePos("0", -1, x, -1.75))
        truck = ActorState(id="truck", role="scenario", kind="truck", x=x + 30.0, y=-1.75, z=0.0, h=0.0, speed=8.0,
                           length=8.0, width=2.5, lane=LanePos("0", -1, x + 30.0, -1.75))
        events = (Event("collision", "hero", "truck", {"other_kind": "truck", "relative_speed": 3.0}),) \
            if collision and abs(t - COLLISION_T) < 1e-9 else ()
        states.append(WorldState(time=t, frame=i, actors=(ego, truck), events=events))
    trace = Trace(states=states, tick=TICK)
    trace.agent = [AgentOutput(time=st.time, control=Control(throttle=0.5), planned=((5.0, 0.0), (10.0, 0.5)),
                               text=f"cruise {st.ego.speed:.1f} m/s") for st in trace.states]
    trace.info = {"backend": "embedded", "seed": 0, "agent": "vlm"}
    return trace


def meta_for(country: str = "CN", level: str = "L1") -> dict:
    """meta.json with speed_limit carried as convert writes it (the catalogue's record resolved for the country)."""
    from roadtest.rules.catalogue_model import load_catalogue
    from roadtest.rules.in_meta import RuleInForce

    rule = RuleInForce.from_rule(load_catalogue()["speed_limit"], country).to_meta()
    return {"id": "ramp", "scenario": "ramp", "country": country, "level": level, "description": "speed ramp",
            "rules": [rule], "scene": {"speed_limit": LIMIT},
            "route": {"waypoints": [[0.0, -1.75], [400.0, -1.75]]}}


def write_run(results: Path, run_id: str, trace, meta: dict, record: dict, vlm: bool = True) -> Path:
    """OUT/runs/<id>/{trace.json.gz, meta.json} and a results.jsonl line; agent entries get a VLM record."""
    run_dir = results / "runs" / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    d = trace.to_dict()
    if vlm:  # a decision every second, in the VLM agent's record shape; the ticks between repeat it
        for a in d["agent"]:
            t = float(int(a["time"] + 1e-9))
            a["record"] = {"kind": "vlm_decision", "t": t, "model": "tiny-vlm", "outcome": "new_plan",
                           "perception": {"signs": [{"id": "speed_limit", "value": 50, "side": "right", "distance": "near"}],
                                          "light": "none", "road_users": []},
                           "plan": {"waypoints": [[5.0, 0.0]] * 6, "target_speed": 5.0 + t, "reason": "road is clear"},
                           "stages": [{"stage": "end_to_end", "raw": '{"reason": "road is clear"}'}]}
    (run_dir / "trace.json.gz").write_bytes(gzip.compress(json.dumps(d).encode()))
    (run_dir / "meta.json").write_text(json.dumps(meta))
    with open(results / "results.jsonl", "a") as f:
        f.write(json.dumps({"run_id": run_id, "variant": "ramp", "seed": 0, "agent": "vlm", "tick": TICK, **record})
                + "\n")
    return run_dir


def suite(results: Path) -> dict[str, Path]:
    """Three runs: A broke speed_limit (CN, L1), B kept it (DE, L2), C broke it (CN, L2)."""
    bad = {"status": "failed", "scenario": "ramp", "vlm": {"decisions": 21, "sign_accuracy_30m": 0.5}, "scores": {"score_composed": 60.0, "score_route": 100.0,
                                                               "score_penalty": 0.6},
           "rules": [{"id": "speed_limit", "verdict": "violated"}],
           "infractions": {"collisions_vehicle": ["Agent collided against object with type=truck and id=truck"]}}
    good = {"status": "completed", "scenario": "steady", "scores": {"score_composed": 100.0, "score_route": 100.0,
                                                                    "score_penalty": 1.0},
            "rules": [{"id": "speed_limit", "verdict": "satisfied"}], "infractions": {}}
    c = {**bad, "scores": {"score_composed": 30.0, "score_route": 50.0, "score_penalty": 0.6}}
    return {
        "A": write_run(results, "A_ramp", ramp_trace(), meta_for("CN", "L1"), bad),
        "B": write_run(results, "B_steady", ramp_trace(lambda t: 10.0, collision=False), meta_for("DE", "L2"), good,
                       vlm=False),
        "C": write_run(results, "C_ramp", ramp_trace(), meta_for("CN", "L2"), c),
    }
