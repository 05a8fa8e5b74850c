"""The VLM agent's decision records (AgentOutput.record, kind "vlm_decision") read for display.

A record holds `perception` {signs: [{id, value, side, distance}], light, road_users}, `plan`
{waypoints, target_speed (m/s), reason} or None, `outcome`, `model`, and `stages` with each raw
answer. `answer_of` flattens one into what the clip panel, the Rerun log and the report show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["Answer", "answer_of", "decisions"]


@dataclass(frozen=True)
class Answer:
    """One decision as shown: signs seen, light, reason, target speed, outcome, the raw answers."""

    time: float
    signs: tuple[str, ...]
    light: str | None
    reason: str | None
    target_speed: float | None  # m/s
    outcome: str | None
    model: str | None
    raw: str | None

    def key(self) -> tuple:
        return (self.signs, self.light, self.reason, self.target_speed, self.outcome)


def _sign(s: Any) -> str:
    if not isinstance(s, Mapping):
        return str(s)
    text = str(s.get("id", "?"))
    if s.get("value") is not None:
        text += f" {s['value']:g}" if isinstance(s["value"], (int, float)) else f" {s['value']}"
    where = ", ".join(str(s[k]) for k in ("side", "distance") if s.get(k))
    return f"{text} ({where})" if where else text


def answer_of(rec: Mapping[str, Any] | None, t: float) -> Answer | None:
    """The shown form of a record, None when the output carries none."""
    if not rec:
        return None
    perception = rec.get("perception") or {}
    plan = rec.get("plan") or {}
    signs = perception.get("signs", rec.get("signs")) or []
    raws = [str(st.get("raw")) for st in rec.get("stages") or [] if isinstance(st, Mapping) and st.get("raw")]
    speed = plan.get("target_speed")
    return Answer(time=float(rec.get("t", t)), signs=tuple(_sign(s) for s in signs),
                  light=perception.get("light"), reason=plan.get("reason") or rec.get("reason"),
                  target_speed=float(speed) if isinstance(speed, (int, float)) else None,
                  outcome=rec.get("outcome"), model=rec.get("model"),
                  raw="\n---\n".join(raws) if raws else (str(rec["raw"]) if rec.get("raw") else None))


def decisions(run) -> list[Answer]:
    """Each change of answer in time order (outputs repeating the last decision, or its content, are skipped)."""
    out: list[Answer] = []
    for a, rec in zip(run.trace.agent, run.agent_records):
        ans = answer_of(rec, a.time)
        if ans is not None and not (out and (ans.time == out[-1].time or ans.key() == out[-1].key())):
            out.append(ans)
    return out
