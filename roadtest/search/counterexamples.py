"""Counterexamples as scenarios: every broken trial written as a concrete scene that `roadtest run` reproduces.

Order: the most violating (least objective) first, then the boundary case (the broken trial closest to kept,
i.e. the largest objective among the broken), then the rest by objective.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import yaml

from roadtest.dsl.search_space import Param, concrete_doc
from roadtest.search.engine import Trial

__all__ = ["COUNTEREXAMPLES", "rank", "write_counterexamples"]

COUNTEREXAMPLES = "counterexamples"


def rank(trials: Sequence[Trial]) -> list[tuple[Trial, str]]:
    """(trial, role) for the broken trials: 'most violating', 'boundary', then '' by objective."""
    broken = sorted((t for t in trials if t.broken), key=lambda t: (t.objective if t.objective is not None else 0.0,
                                                                     t.agent, t.number))
    if not broken:
        return []
    out = [(broken[0], "most violating")]
    if len(broken) > 1:
        out.append((broken[-1], "boundary"))
        out += [(t, "") for t in broken[1:-1]]
    return out


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str):
    style = '"' if ":" in value else None  # "06:10" must stay a time, not a base-60 integer
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def write_counterexamples(out: Path, doc: Any, params: Sequence[Param], trials: Sequence[Trial], scene: Path,
                          objective: str, rule: str | None, clips: bool = False) -> list[dict[str, Any]]:
    """Write OUT/counterexamples/NN-<variant>.yaml for each broken trial and index.json; return the index."""
    folder = Path(out) / COUNTEREXAMPLES
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for i, (t, role) in enumerate(rank(trials), start=1):
        cdoc = concrete_doc(doc, t.values, list(params))
        cdoc.data["name"] = t.variant
        target = rule or ", ".join(t.violated) or objective
        head = (f"# Counterexample found by `roadtest search {scene}` (agent {t.agent}, trial {t.number}"
                f"{', ' + role if role else ''}):\n"
                f"# {target} broken, objective {t.objective:.4g}; searched values: "
                + ", ".join(f"{k}={v}" for k, v in t.values.items())
                + f"\n# Reproduce: roadtest run {folder.name}/{i:02d}-{t.variant}.yaml --agent {t.agent}\n")
        path = folder / f"{i:02d}-{t.variant}.yaml"
        path.write_text(head + yaml.dump(cdoc.data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=None, width=110))
        entry = {"file": path.name, "role": role, "agent": t.agent, "trial": t.number, "run_id": t.run_id,
                 "objective": t.objective, "violated": t.violated, "values": t.values}
        if clips:
            entry["clip"] = _clip(Path(out) / "runs" / t.run_id, folder / f"{i:02d}-{t.variant}.mp4")
        index.append(entry)
    (folder / "index.json").write_text(json.dumps(index, indent=1))
    return index


def _clip(run_dir: Path, mp4: Path) -> str | None:
    """The clip around the run's first violation (bird's-eye view); None when the run has none to cut at."""
    from roadtest.report.video import replay_command

    if not (run_dir / "trace.json.gz").is_file():
        return None
    replay_command(run_dir, mp4, "violation", "bev", None, 80.0)
    found = sorted(mp4.parent.glob(mp4.stem + "*" + mp4.suffix), key=lambda f: (".violation-" not in f.name, f.name))
    return found[0].name if found else None  # the rule violation's clip before a collision's of the same moment
