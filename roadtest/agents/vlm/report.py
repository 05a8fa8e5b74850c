"""The VLM agent's lines under `roadtest run`'s table: recognition, lights, parsing, instruction following, latency."""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["vlm_lines"]


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def _s(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f} s"


def vlm_lines(fig: Mapping[str, Any]) -> list[str]:
    """Plain lines for the console (suite_figures' dict)."""
    tag = " -- NOT A VLM: the builtin rule-based baseline" if fig.get("not_a_vlm") else ""
    if fig.get("privileged_hints"):
        tag += " -- PRIVILEGED HINTS: ground truth in the prompt"
    by = fig.get("sign_accuracy_30m_by") or {}
    weather = ", ".join(f"{k} {_pct(v['accuracy'])} ({v['instances']})" for k, v in (by.get("weather") or {}).items())
    lat = fig.get("latency_s") or {}
    lat_text = "  ".join(f"{k} p50 {_s(v['p50'])} p95 {_s(v['p95'])}" for k, v in lat.items())
    return [
        f"vlm agent ({', '.join(fig.get('backends') or [])}){tag}: {fig.get('decisions', 0)} decisions in {fig.get('runs', 0)} run(s)",
        f"  signs within 30 m recognised {_pct(fig.get('sign_accuracy_30m'))} of {fig.get('sign_instances_30m', 0)}"
        + (f"; by weather: {weather}" if weather else ""),
        f"  light state {_pct(fig.get('light_accuracy'))} of {fig.get('light_decisions', 0)}  parse failures "
        f"{_pct(fig.get('parse_failure_rate'))}  repaired {_pct(fig.get('repair_rate'))}  failed calls {fig.get('failed_calls', 0)}  "
        f"instruction following {_pct(fig.get('instruction_following'))}",
        f"  latency {lat_text}",
    ]
