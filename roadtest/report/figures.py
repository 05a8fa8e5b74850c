"""Report figures drawn with matplotlib (Agg) into SVG files: speed against the limit, each rule's robustness.

matplotlib because the page must open from disk with no network: it writes self-contained static
SVG that any browser shows, with no JavaScript runtime to inline (a plotly page carries ~3 MB of
script per page or fetches it from a CDN).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np

from roadtest.report.rundata import RunData

__all__ = ["speed_figure", "rules_figure", "summary_figure", "rule_shades", "SPEED_SIGNALS", "ROBUST_CLIP",
           "SHADE_ALPHA"]

SPEED_SIGNALS = frozenset({"ego_speed", "speed_limit", "zone_speed_limit", "stop_zone_min_speed"})
ROBUST_CLIP = 50.0  # robustness plotted within +-this (margins against the signals' NONE value reach 1000)
_VIOLATED = "#e03030"
_EXCUSED = "#f0a020"
# a colour per violated rule of a run, far apart once shaded (CIE76 distance over 25 at the shading's alpha on
# white), and a hatch from the second on, so two rules broken on one plot read as two; excused rules orange
_RULE_COLOURS = (_VIOLATED, "#138d75", "#7b3fbf", "#8c564b")
_HATCHES = ("", "//", "\\\\", "xx")
SHADE_ALPHA = 0.35


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                         "svg.hashsalt": "roadtest"})  # same figure, same bytes
    return plt


def _save(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def _speed_rules(run: RunData) -> list:
    """Rules whose formula reads a speed signal: their violations are shaded on the speed plot."""
    from roadtest.rules.in_meta import rules_in_force
    from roadtest.rules.monitor import identifiers

    rif = rules_in_force(run.meta) if run.rules else {}
    return [r for r in run.rules or [] if r.id in rif and identifiers(rif[r.id].monitor.formula) & SPEED_SIGNALS]


def rule_shades(run: RunData) -> dict[str, tuple[str, str]]:
    """Rule id -> (colour, hatch) of its violated or excused stretches, the same on the speed plot and in its row."""
    shades, broken, excused = {}, 0, 0
    for r in run.rules or []:
        if r.verdict == "violated":
            shades[r.id] = (_RULE_COLOURS[broken % len(_RULE_COLOURS)], _HATCHES[broken % len(_HATCHES)])
            broken += 1
        elif r.verdict == "excused":
            shades[r.id] = (_EXCUSED, _HATCHES[excused % len(_HATCHES)])
            excused += 1
    return shades


def _shade(ax, episodes: Sequence, shade: tuple[str, str], label: str | None = None) -> None:
    from matplotlib.colors import to_rgba

    color, hatch = shade
    for k, ep in enumerate(episodes):
        ax.axvspan(ep.start, ep.start + ep.duration, facecolor=to_rgba(color, SHADE_ALPHA),
                   edgecolor=to_rgba(color, 0.9) if hatch else "none", hatch=hatch or None, lw=0,
                   label=label if k == 0 else None)


def speed_figure(run: RunData, path: Path) -> Path:
    """Ego speed and the limit in force (km/h) over time; speed-rule violations shaded."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 2.4))
    t = [st.time for st in run.states if st.ego is not None]
    v = [st.ego.speed * 3.6 for st in run.states if st.ego is not None]
    ax.plot(t, v, color="#1f5fbf", lw=1.4, label="ego speed")
    if run.signals is not None:
        lim = np.array(run.limit_series(), dtype=float)
        lim = np.where(lim >= 999.0, np.nan, lim * 3.6)
        if np.isfinite(lim).any():
            ax.step(run.signals.time, lim, where="post", color="#303030", lw=1.2, ls="--", label="limit in force")
    shades = rule_shades(run)
    for r in _speed_rules(run):
        if r.id in shades:
            _shade(ax, r.episodes, shades[r.id], f"{r.id} {r.verdict}")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("km/h")
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower right", fontsize=7, framealpha=0.8)
    return _save(fig, path)


def rules_figure(run: RunData, path: Path) -> Path | None:
    """One row per rule: its robustness over time, zero line, violated stretches shaded; None without rules."""
    rules = run.rules or []
    if not rules:
        return None
    plt = _plt()
    fig, axes = plt.subplots(len(rules), 1, figsize=(7.5, 0.2 + 1.35 * len(rules)), sharex=True, squeeze=False)
    shades = rule_shades(run)
    for ax, r in zip(axes[:, 0], rules):
        rob = np.array([x if math.isfinite(x) else np.nan for x in r.robustness], dtype=float)
        shown = np.clip(rob, -ROBUST_CLIP, ROBUST_CLIP)
        ax.plot(r.times, shown, color="#208040" if r.verdict == "satisfied" else "#202020", lw=1.2)
        ax.axhline(0.0, color="#808080", lw=0.8)
        force = run.in_force.get(r.id)
        if force is not None and not all(force):
            ax.fill_between(r.times, 0, 1, where=[not f for f in force], color="#b0b0b0", alpha=0.3, lw=0,
                            transform=ax.get_xaxis_transform(), step="post", label="not in force")
        if r.id in shades:
            _shade(ax, r.episodes, shades[r.id])
        title = f"{r.id}: {r.verdict}" + (f" (by {r.excused_by})" if r.excused_by else "") \
            + (" (grey: not in force)" if force is not None and not all(force) else "")
        if np.nanmax(np.abs(rob)) > ROBUST_CLIP if np.isfinite(rob).any() else False:
            title += f"  [clipped to ±{ROBUST_CLIP:g}]"
        ax.set_title(title, fontsize=8, loc="left", color=_VIOLATED if r.verdict == "violated" else "#202020")
        ax.set_ylabel("robustness", fontsize=7)
    axes[-1, 0].set_xlabel("time [s]")
    fig.tight_layout()
    return _save(fig, path)


def summary_figure(records: Sequence[dict], path: Path) -> Path | None:
    """Statuses and, per rule, how many runs satisfied / violated / excused it."""
    if not records:
        return None
    plt = _plt()
    statuses: dict[str, int] = {}
    rules: dict[str, dict[str, int]] = {}
    for r in records:
        statuses[r.get("status", "?")] = statuses.get(r.get("status", "?"), 0) + 1
        for rr in r.get("rules") or []:
            d = rules.setdefault(str(rr.get("id")), {})
            d[str(rr.get("verdict"))] = d.get(str(rr.get("verdict")), 0) + 1
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.5, 0.6 + 0.32 * max(len(rules), len(statuses), 3)),
                                 gridspec_kw={"width_ratios": [1, 2]})
    names = sorted(statuses)
    a1.barh(names, [statuses[n] for n in names],
            color=["#208040" if n == "completed" else "#e03030" if n == "failed" else "#808080" for n in names])
    a1.set_title("runs by status", fontsize=9, loc="left")
    a1.invert_yaxis()
    ids = sorted(rules)
    left = np.zeros(len(ids))
    for verdict, color in (("satisfied", "#208040"), ("excused", _EXCUSED), ("violated", _VIOLATED),
                           ("not_applicable", "#a0a0a0")):
        n = np.array([rules[i].get(verdict, 0) for i in ids], dtype=float)
        if n.any():
            a2.barh(ids, n, left=left, color=color, label=verdict)
            left += n
    a2.set_title("runs per rule verdict", fontsize=9, loc="left")
    a2.invert_yaxis()
    if ids:
        a2.legend(fontsize=7, loc="lower right")
    for a in (a1, a2):
        a.xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    return _save(fig, path)
