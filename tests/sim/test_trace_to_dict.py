"""Trace.to_dict writes what dataclasses.asdict would, byte for byte as JSON, without its deep copies."""

from __future__ import annotations

import json
from dataclasses import asdict

from roadtest.sim.api import (ActorState, AgentOutput, Control, Environment, Event, LanePos, Termination, Trace,
                              WorldState)


def test_trace_json_is_that_of_dataclasses_asdict():
    a = ActorState(id="hero", role="ego", kind="car", x=1.5, y=-2.0, z=0.0, h=0.1, speed=3.0,
                   lane=LanePos(road="1", lane=-1, s=12.5, t=0.2))
    b = ActorState(id="p", role="scenario", kind="pedestrian", x=4.0, y=1.0, z=0.0, h=3.1, speed=1.2, lane=None)
    ev = (Event("lane_invasion", "hero", None, {"road": "1", "lane": -1, "allowed": False, "s": [1.0, (2, 3)]}),
          Event("collision", "hero", "p", {"relative_speed": 2.5, "nested": {"k": (1, 2)}}))
    states = [WorldState(0.0, 0, (a, b), {"10": "red"}, Environment(), ()),
              WorldState(0.05, 1, (a,), {}, Environment(precipitation="rain", wetness=0.5), ev)]
    agent = [AgentOutput(0.0, Control(throttle=0.5), ((1.0, 0.0), (2.0, 0.1)), "go"), AgentOutput(0.05, Control())]
    tr = Trace(states=states, agent=agent, termination=Termination.COMPLETED, reason="done", tick=0.05, info={"ego": "hero"})
    expected = {"tick": 0.05, "termination": "completed", "reason": "done", "info": {"ego": "hero"},
                "states": [asdict(s) for s in states], "agent": [asdict(x) for x in agent]}
    assert json.dumps(tr.to_dict()) == json.dumps(expected)
    back = Trace.from_dict(json.loads(json.dumps(tr.to_dict())))
    assert back.states[1].events[1].other == "p" and back.states[0].actors[0].lane.s == 12.5
