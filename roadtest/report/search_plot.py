"""The search section of the report: robustness and compliance against each searched parameter, one colour per agent."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any, Sequence

__all__ = ["search_figure", "search_section"]

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _numeric(p: dict[str, Any], v: Any) -> float | None:
    from roadtest.dsl.search_space import Param, numeric_value

    return numeric_value(Param(p["key"], tuple(p["path"]), p["kind"]), v)


def search_figure(spec: dict[str, Any], records: Sequence[dict[str, Any]], bounds: dict[str, Any], path: Path) -> Path | None:
    """PNG with one column per numeric searched parameter: objective (top) and compliance with Wilson 95 %
    intervals (bottom) against it, each agent in its colour, its estimated 50 % boundary dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from roadtest.search.boundary import binned_compliance

    params = [p for p in spec.get("params") or [] if p["kind"] != "choice"]
    runs = [r for r in records if isinstance(r.get("search"), dict)]
    if not params or not runs:
        return None
    agents = list(dict.fromkeys(str(r["search"]["agent"]) for r in runs))
    fig, axes = plt.subplots(2, len(params), figsize=(5.2 * len(params), 6.4), squeeze=False, sharex="col")
    ylabel = "driving score" if spec.get("objective") == "driving_score" else \
        f"robustness of {spec['rule']}" if spec.get("rule") else "least robustness over the rules"
    for j, p in enumerate(params):
        scale = 60.0 if p["kind"] == "time" else 1.0
        lo, hi = p["low"] / scale, p["high"] / scale
        top, bottom = axes[0][j], axes[1][j]
        for c, agent in enumerate(agents):
            colour = _COLOURS[c % len(_COLOURS)]
            mine = [r for r in runs if r["search"]["agent"] == agent and r["search"].get("objective") is not None]
            xs = [_numeric(p, r["search"]["values"].get(p["key"])) for r in mine]
            ys = [r["search"]["objective"] for r in mine]
            kept = [not r["search"].get("broken") for r in mine]
            top.scatter([x for x, k in zip(xs, kept) if k], [y for y, k in zip(ys, kept) if k], s=18, color=colour,
                        alpha=0.75, label=f"{agent} kept")
            top.scatter([x for x, k in zip(xs, kept) if not k], [y for y, k in zip(ys, kept) if not k], s=34,
                        color=colour, marker="x", label=f"{agent} broken")
            bins = binned_compliance(xs, kept, lo, hi, bins=min(10, max(3, len(xs) // 4)))
            if bins:
                cx = [b[0] for b in bins]
                share = [100 * b[3] for b in bins]
                err = [[100 * (b[3] - b[4]) for b in bins], [100 * (b[5] - b[3]) for b in bins]]
                bottom.errorbar(cx, share, yerr=err, color=colour, marker="o", capsize=3, label=agent)
            for row in bounds.get(agent, []):
                if row.get("param") == p["key"] and row.get("x50") is not None and not (row.get("open_low")
                                                                                     and row.get("open_high")):
                    bottom.axvline(row["x50"], color=colour, linestyle="--", linewidth=1)
                    bottom.axvspan(row["low"], row["high"], color=colour, alpha=0.12)
        top.axhline(0.0, color="#444", linewidth=0.8)
        top.set_ylabel(ylabel)
        top.set_title(p["key"], fontsize=10)
        bottom.axhline(50.0, color="#444", linewidth=0.8, linestyle=":")
        bottom.set_ylim(-5, 105)
        bottom.set_ylabel("compliance, % of runs kept")
        bottom.set_xlabel(p["key"] + (" (hours)" if p["kind"] == "time" else ""))
        bottom.set_xlim(lo, hi)
        if j == 0:
            top.legend(fontsize=7, loc="best")
            bottom.legend(fontsize=7, loc="best")
    fig.suptitle(f"search of {spec.get('name')}: {len(runs)} runs, {spec.get('method')} seed {spec.get('seed')}\n"
                 "(dashed: 50 % boundary, shaded: its 95 % interval; bars: Wilson 95 %)", fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def search_section(results_dir: Path, records: Sequence[dict[str, Any]], files: Path, page: Path) -> str:
    """HTML for the search section ('' when the folder holds no search)."""
    spec_path = results_dir / "search.json"
    if not spec_path.is_file():
        return ""
    try:
        spec = json.loads(spec_path.read_text())
        bpath = results_dir / "boundary.json"
        bounds = json.loads(bpath.read_text()) if bpath.is_file() else {}
        cpath = results_dir / "counterexamples" / "index.json"
        index = json.loads(cpath.read_text()) if cpath.is_file() else []
    except ValueError:
        return ""
    fig = search_figure(spec, records, bounds, files / "search.png")
    import os

    parts = [f"<h2>search</h2><p>{escape(str(spec.get('scene')))}: method {escape(str(spec.get('method')))}, "
             f"seed {spec.get('seed')}, batch {spec.get('batch')}, agents {escape(', '.join(spec.get('agents') or []))}</p>"]
    if fig is not None:
        parts.append(f'<img src="{escape(os.path.relpath(fig, page.parent))}" alt="compliance against the searched '
                     f'parameters" style="max-width:100%">')
    for agent, rows in bounds.items():
        for r in rows:
            parts.append(f"<p><b>{escape(agent)}</b>: {escape(r.get('sentence', ''))}</p>")
    if index:
        rows = "".join(f"<tr><td>{escape(e['file'])}</td><td>{escape(e.get('role') or '')}</td><td>{escape(e['agent'])}</td>"
                       f"<td class=num>{e['objective']:.4g}</td><td>{escape(', '.join(e.get('violated') or []))}</td></tr>"
                       for e in index[:50])
        parts.append("<h3>counterexamples</h3><table><thead><tr><th>scenario</th><th>role</th><th>agent</th>"
                     f"<th>objective</th><th>violated</th></tr></thead><tbody>{rows}</tbody></table>")
    return "".join(parts)
