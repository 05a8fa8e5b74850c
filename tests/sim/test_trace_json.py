"""The trace file's text is json.dumps of Trace.to_dict, byte for byte, whatever the values' types: the fast
templates must hand every value they do not format exactly (NaN, ints, numpy numbers, odd lanes) to json."""

from __future__ import annotations

import gzip
import json

import numpy as np

from roadtest.sim.api import (ActorState, AgentOutput, Control, Environment, Event, LanePos, Termination, Trace,
                              WorldState)
from roadtest.sim.trace_json import trace_json


def _reference(tr: Trace) -> str:
    return json.dumps(tr.to_dict(), separators=(",", ":"))


def _actor(**kw) -> ActorState:
    base = dict(id="hero", role="ego", kind="car", x=1.5, y=-2.0, z=0.0, h=0.1, speed=3.0, vx=2.9, vy=0.3,
                ax=0.1, ay=-0.2, yaw_rate=0.01, lane=LanePos(road="1", lane=-1, s=12.5, t=0.2))
    return ActorState(**{**base, **kw})


def test_trace_text_equals_json_dumps_for_plain_and_odd_values():
    env_a, env_b = Environment(), Environment(precipitation="rain", wetness=0.5)
    odd = [
        _actor(),
        _actor(id="p\u00e9d", role="scenario", kind="pedestrian", lane=None, siren=True),
        _actor(x=float("nan")),  # json writes NaN, repr writes nan
        _actor(y=float("inf"), lane=LanePos("2", -3, float("-inf"), 0.0)),
        _actor(x=np.float64(3.25)),  # a float subclass whose repr is np.float64(3.25)
        _actor(length=4),  # an int where a float is usual: 4, not 4.0
        _actor(length=4.0),  # then the float of equal value: 4.0 (a cache keyed on values alone would mix them)
        _actor(siren=1),  # an int flag: 1, not true
        _actor(lane=LanePos("1", -2, np.float64(3.0), 0.5)),
        _actor(lane=LanePos(1, -2, 3, 0.5)),  # a numeric road id and an int s
        _actor(speed=1e308, vx=1e308),  # finite values whose sum overflows
        _actor(visible=False, speed=-0.0),
    ]
    states = [WorldState(0.0, 0, tuple(odd), {"10": "red"}, env_a, ()),
              WorldState(0.05, 1, tuple(odd[:3]), {}, env_b,
                         (Event("collision", "hero", "p", {"relative_speed": 2.5, "k": (1, 2)}),)),
              WorldState(0.1, 2, (), {}, env_a, ()),
              WorldState(1, 3, tuple(odd[1:2]), {}, env_a, ())]  # an int time
    agent = [AgentOutput(0.0, Control(throttle=0.5), ((1.0, 0.0), (2.0, 0.1)), "go")]
    tr = Trace(states=states, agent=agent, termination=Termination.COMPLETED, reason="done \u2713", tick=0.05,
               info={"ego": "hero", "bbox_cx": {"hero": 1.4}})
    text = trace_json(tr)
    assert text == _reference(tr)
    assert '"x":NaN' in text and '"length":4,' in text and '"length":4.0,' in text and '"siren":1,' in text


def test_saved_file_holds_the_reference_text(tmp_path):
    tr = Trace(states=[WorldState(0.05 * i, i, (_actor(x=0.7 * i),), {}, Environment(), ()) for i in range(50)],
               termination=Termination.TIMEOUT, tick=0.05)
    tr.save(tmp_path / "t.json.gz")
    assert gzip.decompress((tmp_path / "t.json.gz").read_bytes()).decode() == _reference(tr)
    assert Trace.load(tmp_path / "t.json.gz").states[49].actors[0].x == 0.7 * 49
