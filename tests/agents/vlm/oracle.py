"""TEST-ONLY scripted answers for the fake server, built from the scene's ground truth (a stand-in for a model).

`GroundTruthOracle(sim)` reads the simulation's current state through the privileged objects sensor:
perception answers list the signs ahead, the governing light and the road users as they are; planning
answers are the rule-aware expert's own plan for that state (its waypoints; as target speed the fastest
its plan goes, or 0 when the plan ends standing). `blind_to={"stop"}` hides stop signs and stop lines from both, which is the
"ignore the stop sign" model.
"""

from __future__ import annotations

import json
import math
from typing import Any

from roadtest.agents import load_agent
from roadtest.agents.base import sensor_data

from fake_openai import FakeReply, stage_of

__all__ = ["GroundTruthOracle", "route_following_reply"]

_MPH = {"US", "GB"}


def _dist_class(d: float) -> str:
    return "near" if d <= 15 else "mid" if d <= 30 else "far"


class GroundTruthOracle:
    def __init__(self, sim: Any, blind_to: frozenset[str] = frozenset()):
        self.sim, self.blind = sim, set(blind_to)
        self.expert = load_agent("expert")
        wps = (sim.meta.get("route") or {}).get("waypoints")
        if wps:
            self.expert.set_global_plan(wps)
        self.unit = 0.44704 if str(sim.meta.get("country")) in _MPH else 1 / 3.6
        self.calls = 0

    def _view(self) -> dict[str, Any]:
        data = self.sim.observe(self.expert.sensors())
        view = sensor_data(data, "objects")
        if "stop" in self.blind:
            view["signs"] = [s for s in view["signs"] if not str(s.get("kind")).startswith("stop")]
            view["stop_lines"] = [s for s in view["stop_lines"] if not s.get("stop_sign")]
        return data, view

    def perception(self) -> dict[str, Any]:
        _, view = self._view()
        signs = [{"id": s["id"], "value": s.get("value"), "side": "right", "distance": _dist_class(s["distance"])}
                 for s in view["signs"] if 0.0 < s["distance"] <= 60.0]
        lights = [lt for lt in view["lights"] if 0.0 < lt["stop_distance"] <= 60.0]
        users = [{"kind": a["kind"], "where": "ahead", "distance": _dist_class(a["distance"])}
                 for a in view["actors"] if a.get("distance", 1e9) <= 60.0]
        return {"signs": signs, "light": lights[0]["state"] if lights else "none", "road_users": users}

    def plan(self) -> dict[str, Any]:
        data, view = self._view()
        data = dict(data)
        data["objects"] = (data["objects"][0], view)
        t = self.sim.state.time if self.sim.state is not None else 0.0
        self.expert(data, t)
        pts = [list(p) for p in self.expert.planned]
        prev, steps = (0.0, 0.0), []
        for p in pts:
            steps.append(math.hypot(p[0] - prev[0], p[1] - prev[1]) / 0.5)
            prev = p
        target = 0.0 if steps[-1] < 0.3 else max(steps)  # stops where the expert's plan stops
        return {"waypoints": pts, "target_speed": target / self.unit, "reason": self.expert.text or "as planned"}

    def __call__(self, request: dict[str, Any]) -> FakeReply | str:
        self.calls += 1
        stage = stage_of(request)
        if stage == "perception":
            return json.dumps(self.perception())
        if stage == "planning":
            return json.dumps(self.plan())
        return json.dumps({**self.perception(), **self.plan()})


def route_following_reply(speed: float = 20.0):
    """A model that sees nothing and follows the route it is told at `speed` (in the prompt's unit)."""
    from fake_openai import prompt_text

    def reply(request: dict[str, Any]) -> str:
        stage = stage_of(request)
        if stage == "perception":
            return json.dumps({"signs": [], "light": "none", "road_users": []})
        text = prompt_text(request)
        route = json.loads(text.split("(x metres forward, y metres to the left): ", 1)[1].split("\n", 1)[0])
        step = speed / 3.6 * 0.5
        pts, acc = [], 0.0
        prev = (0.0, 0.0)
        for k in range(1, 7):  # walk the route polyline k * step metres
            want, acc, prev, out = k * step, 0.0, (0.0, 0.0), None
            for p in route:
                seg = math.hypot(p[0] - prev[0], p[1] - prev[1])
                if acc + seg >= want and seg > 0:
                    f = (want - acc) / seg
                    out = [prev[0] + f * (p[0] - prev[0]), prev[1] + f * (p[1] - prev[1])]
                    break
                acc, prev = acc + seg, (p[0], p[1])
            pts.append(out or list(route[-1]))
        body = {"waypoints": pts, "target_speed": speed, "reason": "following the route"}
        if stage == "end_to_end":
            body.update({"signs": [], "light": "none", "road_users": []})
        return json.dumps(body)

    return reply
