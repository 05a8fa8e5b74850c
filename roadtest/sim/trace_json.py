"""A Trace's JSON text, byte for byte what json.dumps(trace.to_dict(), separators=(",", ":")) writes, without
building its dicts: a run's trace is its largest output, and most of the writing went on making dicts to encode.

Each actor of a tick is formatted from one template; what rarely changes (id, role, kind, box, flags) is encoded
once per distinct value. Any value the templates do not cover exactly (a non-float number, NaN, a subclass) sends
that actor, tick or record through the general encoder, so the text never differs.
"""

from __future__ import annotations

import json
import math
from dataclasses import fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from roadtest.sim.api import ActorState, LanePos, _plain

if TYPE_CHECKING:
    from roadtest.sim.api import Trace, WorldState

__all__ = ["trace_json"]

_dumps = json.JSONEncoder(separators=(",", ":")).encode
_STATIC = ("id", "role", "kind", "length", "width", "height", "siren", "visible")
_NAMES = tuple(f.name for f in fields(ActorState))
_DYN = tuple(n for n in _NAMES if n not in _STATIC and n != "lane")
_dyn = attrgetter(*_DYN)
_static = attrgetter(*_STATIC)
_frepr = float.__repr__
_isfinite = math.isfinite


# The templates below follow ActorState's field order; another order sends every actor to the general encoder.
_FAST = _NAMES == ("id", "role", "kind") + _DYN + ("length", "width", "height", "lane", "siren", "visible")
_DYN_FMT = ",".join(f'"{n}":%r' for n in _DYN)  # %r of a float is float.__repr__, as json writes it
_FLOATS = [float] * len(_DYN)


class _Writer:
    def __init__(self):
        self.statics: dict[tuple, tuple[str, str] | None] = {}
        self.roads: dict[str, str] = {}
        self.envs: dict[int, tuple[Any, str]] = {}

    def _static_text(self, st: tuple) -> tuple[str, str] | None:
        key = st + tuple(map(type, st))  # 1 == 1.0 == True as keys; their texts differ
        got = self.statics.get(key, False)
        if got is not False:
            return got
        ident, role, kind, length, width, height, siren, visible = st
        ok = all(type(v) is str for v in (ident, role, kind)) and all(
            type(v) is float and _isfinite(v) for v in (length, width, height)) and all(
            type(v) is bool for v in (siren, visible))
        got = None
        if ok:
            head = f'{{"id":{_dumps(ident)},"role":{_dumps(role)},"kind":{_dumps(kind)},'
            tail_l = f',"length":{_frepr(length)},"width":{_frepr(width)},"height":{_frepr(height)},"lane":'
            tail_r = f',"siren":{"true" if siren else "false"},"visible":{"true" if visible else "false"}}}'
            got = (head, tail_l, tail_r)
        self.statics[key] = got
        return got

    def actor(self, a: ActorState) -> str:
        if _FAST and type(a) is ActorState:
            st = self._static_text(_static(a))
            vals = _dyn(a)
            if st is not None and list(map(type, vals)) == _FLOATS and _isfinite(sum(vals)):
                lane = a.lane
                if lane is None:
                    lt = "null"
                elif type(lane) is LanePos and type(lane.road) is str and type(lane.lane) is int and \
                        type(lane.s) is float and type(lane.t) is float and _isfinite(lane.s + lane.t):
                    road = self.roads.get(lane.road)
                    if road is None:
                        road = self.roads[lane.road] = _dumps(lane.road)
                    lt = '{"road":%s,"lane":%d,"s":%r,"t":%r}' % (road, lane.lane, lane.s, lane.t)
                else:
                    lt = None
                if lt is not None:
                    return st[0] + _DYN_FMT % vals + st[1] + lt + st[2]
        return _dumps(_plain(a))

    def environment(self, env) -> str:
        got = self.envs.get(id(env))
        if got is not None and got[0] is env:
            return got[1]
        text = _dumps(_plain(env))
        self.envs[id(env)] = (env, text)  # the object is kept, so its id is not reused while cached
        return text

    def state(self, s: WorldState) -> str:
        t, frame = s.time, s.frame
        if type(t) is not float or not _isfinite(t) or type(frame) is not int or type(s.actors) is not tuple:
            return _dumps(_plain(s))
        actors = ",".join(map(self.actor, s.actors))
        signals = "{}" if type(s.signals) is dict and not s.signals else _dumps(_plain(s.signals))
        events = _dumps(_plain(s.events)) if s.events else "[]"
        return (f'{{"time":{_frepr(t)},"frame":{int.__repr__(frame)},"actors":[{actors}],"signals":{signals},'
                f'"environment":{self.environment(s.environment)},"events":{events}}}')


def trace_json(trace: Trace) -> str:
    """json.dumps(trace.to_dict(), separators=(",", ":")), written state by state."""
    w = _Writer()
    head = _dumps({"tick": trace.tick, "termination": trace.termination.value if trace.termination else None,
                   "reason": trace.reason, "info": trace.info})
    states = ",".join(map(w.state, trace.states))
    agent = _dumps([_plain(a) for a in trace.agent])
    return f'{head[:-1]},"states":[{states}],"agent":{agent}}}'
