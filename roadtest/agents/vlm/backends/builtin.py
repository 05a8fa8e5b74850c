"""The offline builtin backend: NOT A VLM. A rule-based baseline that perceives from the same camera pixels
(sign classifier + lamp colours, roadtest/agents/vlm/builtin/) and plans by the rule catalogue. It answers the
same prompts in the same JSON, so it runs through the agent's whole path and shows what perception errors cost.

The planning stage reads the facts the prompt states (speed, route ahead) from the message's `context`,
instead of parsing the prompt's text; it reads nothing the prompt does not hold.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any, Mapping, Sequence

from roadtest.agents.vlm.backends import Answer
from roadtest.agents.vlm.builtin.classifier import load_classifier
from roadtest.agents.vlm.builtin.detect import LampReading, find_lamp, find_signs, is_foggy
from roadtest.agents.vlm.builtin.planner import RulePlanner
from roadtest.agents.vlm.prompts import speed_unit_factor

__all__ = ["BuiltinBackend"]


def _dist_class(d: float) -> str:
    return "near" if d < 15.0 else "mid" if d <= 30.0 else "far"


class BuiltinBackend:
    """Not a VLM (`is_vlm` False; results say "not_a_vlm": true and the summary prints it)."""

    name = "builtin"
    model = "builtin-rules (not a VLM)"
    is_vlm = False

    def __init__(self, config: Mapping[str, Any]):
        self.classifier = load_classifier(config["builtin"]["checkpoint"])
        cam = config["cameras"][0]
        self.fov = float(cam.get("fov", 60.0))
        self.cam_z = float(cam.get("z", 1.6))
        self.cam_x = float(cam.get("x", 1.5))  # m ahead of the car's centre: distances below are from the centre
        self.planner: RulePlanner | None = None
        self.signs: list[Any] = []
        self.lamp = LampReading("none", None, 0)

    def complete(self, messages: Sequence[Mapping[str, Any]], images: Sequence[Any], schema: Mapping[str, Any] | None,
                 timeout: float) -> Answer:
        t0 = time.perf_counter()
        ctx = dict(messages[-1].get("context") or {})
        stage = ctx.get("stage")
        unit = speed_unit_factor(((ctx.get("country") or {}).get("speed_unit")) or "km/h")
        if self.planner is None:
            self.planner = RulePlanner(speed_unit_ms=unit, country=str((ctx.get("country") or {}).get("country") or ""))
        out: dict[str, Any] = {}
        if stage in ("perception", "end_to_end"):
            img = images[0] if images else None
            self.signs = [replace(d, distance=d.distance + self.cam_x) for d in find_signs(img, self.classifier, self.fov)] \
                if img is not None else []
            lamp = find_lamp(img, self.fov, self.cam_z) if img is not None else LampReading("none", None, 0)
            self.lamp = lamp if lamp.distance is None else replace(lamp, distance=lamp.distance + self.cam_x)
            out.update({"signs": [{"id": d.sign_id, "value": d.value, "side": d.side, "distance": _dist_class(d.distance)}
                                  for d in self.signs],
                        "light": self.lamp.state, "road_users": []})
            self.planner.update(float(ctx.get("t", 0.0)), float(ctx.get("speed", 0.0)), self.signs, self.lamp,
                                foggy=img is not None and is_foggy(img))
        if stage in ("planning", "end_to_end"):
            out.update(self.planner.plan(float(ctx.get("speed", 0.0)), ctx.get("route_ahead") or []))
        return Answer(text=json.dumps(out), latency_s=time.perf_counter() - t0, model=self.model)

    def close(self) -> None:
        pass
