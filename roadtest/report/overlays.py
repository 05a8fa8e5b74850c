"""The text panel beside the views: time, speed and limit, rules with their robustness, the event, the agent's answer.

Layout is fixed (PANEL_W wide, rows at known places) so a frame can be checked pixel by pixel:
rule k's row is `rule_row_rect(k)`; a rule violated at this tick is drawn as a red box there.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass

import numpy as np

from roadtest.report.rundata import RunData

__all__ = ["PANEL_W", "Trigger", "draw_panel", "rule_row_rect", "rule_state", "RULE_COLORS", "FONT", "ROW_H",
           "RULES_Y", "ascii_text", "MAX_RULE_ROWS"]

PANEL_W = 400
FONT = 0  # cv2.FONT_HERSHEY_SIMPLEX
ROW_H = 26
RULES_Y = 150  # top of the first rule row
MAX_RULE_ROWS = 8
_BG = (32, 32, 32)
_FG = (235, 235, 235)
_DIM = (160, 160, 160)
RULE_COLORS = {"ok": (60, 160, 60), "violated": (40, 40, 210), "idle": (90, 90, 90), "excused": (0, 150, 220)}


@dataclass(frozen=True)
class Trigger:
    """What a clip is about: 'violation' of a rule, a 'collision' with an actor, or a chosen 'time'."""

    kind: str
    time: float  # s
    what: str  # rule id, other actor id, or ""

    def label(self) -> str:
        if self.kind == "violation":
            return f"VIOLATION {self.what} at {self.time:.2f} s"
        if self.kind == "collision":
            return f"COLLISION with {self.what} at {self.time:.2f} s"
        return f"clip around t = {self.time:.2f} s"


def ascii_text(s: str) -> str:
    """Text the Hershey fonts can draw (they have ASCII only)."""
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(s))


def rule_row_rect(k: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of rule k's row inside the panel."""
    y0 = RULES_Y + k * ROW_H
    return 8, y0, PANEL_W - 8, y0 + ROW_H - 4


def rule_state(run: RunData, rule_index: int, i: int) -> tuple[str, float | None]:
    """('violated' | 'ok' | 'excused' | 'idle', robustness) of a rule at state i; idle: not in force then."""
    r = run.rules[rule_index]
    k = run.signal_index(i)
    if k is None or k >= len(r.robustness):
        return "idle", None
    rob = r.robustness[k]
    if not math.isfinite(rob):
        return "idle", None
    if rob < -1e-6:
        return ("excused" if r.verdict == "excused" else "violated"), rob
    force = run.in_force.get(r.id)
    if force is not None and k < len(force) and not force[k]:
        return "idle", rob
    return "ok", rob


def _put(img, text, xy, scale=0.5, color=_FG, thick=1):
    import cv2

    cv2.putText(img, ascii_text(text), xy, FONT, scale, color, thick, cv2.LINE_AA)


def _fmt_rob(v: float | None) -> str:
    if v is None:
        return "-"
    if abs(v) >= 500.0:
        return "n/a"  # nothing to measure: a margin against the signals' NONE value (1000)
    return f"{v:+.2f}"


def draw_panel(run: RunData, i: int, trigger: Trigger | None = None, height: int = 640) -> np.ndarray:
    """The panel for state i as a BGR image PANEL_W wide."""
    import cv2

    img = np.full((height, PANEL_W, 3), _BG, np.uint8)
    st = run.states[i]
    end = run.states[-1].time
    _put(img, run.run_id[:44], (8, 20), 0.45, _DIM)
    _put(img, f"t = {st.time:6.2f} s  / {end:.1f} s", (8, 46), 0.6)
    ego = st.ego
    limit = run.speed_limit_at(i)
    if ego is not None:
        kmh = ego.speed * 3.6
        over = limit is not None and ego.speed > limit + 1e-6
        _put(img, f"speed {kmh:5.1f} km/h", (8, 74), 0.6, (80, 80, 255) if over else _FG, 2 if over else 1)
    _put(img, "limit " + (f"{limit * 3.6:.0f} km/h" if limit is not None else "none known"), (230, 74), 0.5)
    if trigger is not None:
        near = abs(st.time - trigger.time) <= 1.0 or (trigger.kind == "violation" and _violated_now(run, trigger.what, i))
        color = ((30, 30, 200) if near else (60, 60, 110)) if trigger.kind != "time" else (110, 80, 40)
        cv2.rectangle(img, (6, 88), (PANEL_W - 6, 114), color, -1)
        _put(img, trigger.label(), (12, 107), 0.5, (255, 255, 255))
    _put(img, "rules (robustness)", (8, RULES_Y - 10), 0.45, _DIM)
    rules = run.rules or []
    if not rules:
        _put(img, run.rules_error[:48] if run.rules_error else "no rules in meta.json", (12, RULES_Y + 16), 0.45, _DIM)
    for k, r in enumerate(rules[:MAX_RULE_ROWS]):
        state, rob = rule_state(run, k, i)
        x0, y0, x1, y1 = rule_row_rect(k)
        cv2.rectangle(img, (x0, y0), (x1, y1), RULE_COLORS[state], -1)
        if state == "violated":
            cv2.rectangle(img, (x0, y0), (x1, y1), (0, 0, 255), 2)
        _put(img, r.id[:30], (x0 + 6, y1 - 7), 0.5, (255, 255, 255))
        _put(img, "not in force" if state == "idle" else _fmt_rob(rob), (x1 - (110 if state == "idle" else 70), y1 - 7),
             0.45 if state == "idle" else 0.5, (255, 255, 255))
    y = RULES_Y + min(len(rules), MAX_RULE_ROWS) * ROW_H + 22
    k = run.agent_at(st.time)
    if k is not None:
        out = run.trace.agent[k]
        c = out.control
        _put(img, f"throttle {c.throttle:.2f}  brake {c.brake:.2f}  steer {c.steer:+.2f}", (8, y), 0.45)
        y += 24
        from roadtest.report.vlm_answers import answer_of

        ans = answer_of(run.agent_records[k] if k < len(run.agent_records) else None, out.time)
        lines: list[tuple[str, tuple]] = []
        if ans is not None:
            lines.append((f"VLM {ans.model or ''} at {ans.time:.2f} s: {ans.outcome or ''}", _DIM))
            lines.append(("signs: " + (", ".join(ans.signs) or "none"), _FG))
            if ans.light:
                lines.append((f"light: {ans.light}", _FG))
            if ans.target_speed is not None:
                lines.append((f"target: {ans.target_speed * 3.6:.0f} km/h", _FG))
            if ans.reason:
                lines.append((f"reason: {ans.reason}", _FG))
        if out.text:
            lines.append((f"agent: {out.text}", _DIM))
        if out.planned:
            far = out.planned[-1]
            lines.append((f"plan: {len(out.planned)} pts to ({far[0]:.1f}, {far[1]:+.1f}) m", (220, 120, 230)))
        for text, color in lines:
            for part in textwrap.wrap(ascii_text(text), 46)[:4]:
                if y > height - 60:
                    break
                _put(img, part, (8, y), 0.45, color)
                y += 18
    _put(img, _weather(st.environment), (8, height - 40), 0.45, _DIM)
    _legend(img, height)
    return img


def _weather(env) -> str:
    """One line on the weather and light in force."""
    parts = []
    if env.fog_visual_range < 1000.0:
        parts.append(f"fog, visibility {env.fog_visual_range:.0f} m")
    if env.precipitation not in ("dry", "none") and env.precipitation_intensity > 0:
        parts.append(f"{env.precipitation} {env.precipitation_intensity:.1f}")
    parts.append(light_name(env))
    return "weather: " + ", ".join(parts)


TWILIGHT = math.radians(6.0)  # civil twilight ends with the sun 6 degrees below the horizon


def light_name(env) -> str:
    """The light as a driver names it: night with the sun more than 6 degrees below the horizon (civil twilight
    over), dawn or dusk within 6 degrees of it (morning or evening by the local time), day above."""
    el = float(env.sun_elevation)
    if el <= -TWILIGHT:
        return "night"
    if el < TWILIGHT:
        try:
            hour = int(str(env.time_of_day).split("T")[-1][:2])
        except ValueError:
            hour = 12
        return "dawn" if hour < 12 else "dusk"
    return "day"


def _violated_now(run: RunData, rule_id: str, i: int) -> bool:
    for k, r in enumerate(run.rules or []):
        if r.id == rule_id:
            return rule_state(run, k, i)[0] == "violated"
    return False


def _legend(img: np.ndarray, height: int) -> None:
    import cv2

    from roadtest.report.bev import PLAN_COLOR, REFERENCE_COLOR, ROLE_COLORS, ROUTE_COLOR

    items = [("ego", ROLE_COLORS["ego"]), ("scenario", ROLE_COLORS["scenario"]), ("traffic", ROLE_COLORS["background"]),
             ("route", ROUTE_COLOR), ("plan", PLAN_COLOR), ("expert", REFERENCE_COLOR)]
    x, y = 8, height - 16
    for name, color in items:
        cv2.rectangle(img, (x, y - 10), (x + 12, y), color, -1)
        _put(img, name, (x + 16, y), 0.4, _DIM)
        x += 16 + cv2.getTextSize(name, FONT, 0.4, 1)[0][0] + 10
