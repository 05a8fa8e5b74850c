"""The `search:` block of a scenario: the parameters `roadtest search` explores, checked where they are written.

Each key is a dotted field path, as in `sweep:` (list items by index or id); a few short names stand for
longer paths (ALIASES). Values are in the field's YAML units and are put into the scene as written, so a
range end the scene itself would refuse (a negative distance, a speed beyond the schema) is an error at
the search key, found before any run.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

from roadtest.dsl.loader import Doc, path_exists, validate_doc
from roadtest.dsl.variants import apply_value, check_field_paths
from roadtest.errors import Problem, ScenarioError

__all__ = ["ALIASES", "Param", "check_search", "search_params", "concrete_doc", "time_to_minutes", "minutes_to_time",
           "numeric_value"]

ALIASES = {"environment.visibility": "environment.fog_visual_range"}


@dataclass(frozen=True)
class Param:
    """One searched parameter, resolved: its key as written, its data path, and what to sample."""

    key: str  # as written under search:
    path: tuple[Any, ...]
    kind: str  # "float" | "int" | "time" | "choice"
    low: float | None = None  # for a time: minutes after midnight
    high: float | None = None
    log: bool = False
    step: float | None = None
    choices: tuple[Any, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "path": list(self.path), "kind": self.kind, "low": self.low, "high": self.high,
                "log": self.log, "step": self.step, "choices": list(self.choices)}


def time_to_minutes(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def minutes_to_time(minutes: float) -> str:
    m = int(round(minutes)) % (24 * 60)
    return f"{m // 60:02d}:{m % 60:02d}"


def numeric_value(param: Param, value: Any) -> float | None:
    """A value as a number for plots and boundary fits (a time in hours); None for a non-numeric choice."""
    if param.kind == "time" or (isinstance(value, str) and ":" in value):
        try:
            return time_to_minutes(str(value)) / 60.0
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _resolve(key: str, base: Any) -> tuple[tuple[Any, ...] | None, str]:
    return path_exists(ALIASES.get(key, key), base)


def _endpoints(p: Param) -> list[Any]:
    if p.kind == "choice":
        return list(p.choices)
    if p.kind == "time":
        return [minutes_to_time(p.low), minutes_to_time(p.high)]
    if p.kind == "int":
        return [int(p.low), int(p.high)]
    return [p.low, p.high]


def _param(key: str, path: tuple[Any, ...], spec: Any) -> Param:
    if spec.choices is not None:
        return Param(key, path, "choice", choices=tuple(spec.choices))
    lo, hi = spec.range
    if isinstance(lo, str):
        return Param(key, path, "time", float(time_to_minutes(lo)), float(time_to_minutes(hi)), step=spec.step or 1.0)
    integral = spec.step is not None and all(float(x).is_integer() for x in (lo, hi, spec.step))
    if path == ("traffic", "seed") and spec.step is None and all(float(x).is_integer() for x in (lo, hi)):
        integral = True  # a seed is an integer: sample integers without asking for step: 1
    return Param(key, path, "int" if integral else "float", float(lo), float(hi), log=spec.log,
                 step=(spec.step or 1.0) if integral else spec.step)


def check_search(doc: Doc) -> list[Problem]:
    """Problems with the search block: unknown paths, fields that cannot be searched, range ends the scene refuses."""
    block = doc.data.get("search") if isinstance(doc.data, dict) else None
    if not isinstance(block, dict) or not block:
        return []
    problems: list[Problem] = []
    if doc.data.get("sweep"):
        problems.append(doc.problem(("search",), "search and sweep cannot be combined (expected one of them; "
                                                 "put a swept value under search: {choices: [...]})", key=True))
    base = {k: v for k, v in doc.data.items() if k not in ("sweep", "search")}
    return problems + check_field_paths(doc, "search", base, "search", _resolve)


def search_params(doc: Doc, scenario: Any) -> list[Param]:
    """The resolved parameters of a scenario whose search block passed check_search and the schema.

    Every range end (every choice) is put into the scene on its own and the scene checked; a problem
    the base scene does not have is reported at that search key."""
    base = {k: v for k, v in doc.data.items() if k not in ("sweep", "search")}
    params = [_param(key, _resolve(key, base)[0], spec) for key, spec in scenario.search.items()]
    problems: list[Problem] = []
    base_doc = Doc(data=base, file=doc.file, pos=dict(doc.pos), keypos=dict(doc.keypos))
    try:
        validate_doc(base_doc)
        known: set[tuple[str, str]] = set()
    except ScenarioError as e:
        known = {(p.field, p.message) for p in e.problems}
    for p in params:
        for value in _endpoints(p):
            trial = concrete_doc(doc, {p.key: value}, params=[p])
            try:
                validate_doc(trial)
            except ScenarioError as e:
                for q in e.problems:
                    if (q.field, q.message) in known:
                        continue
                    what = "choice" if p.kind == "choice" else "range end"
                    problems.append(doc.problem(("search", p.key), f"{what} {value!r} gives an invalid scene: "
                                                                   f"{q.field}: {q.message}"))
    if problems:
        raise ScenarioError(sorted(set(problems), key=lambda q: (q.line, q.col, q.message)))
    return params


def concrete_doc(doc: Doc, values: dict[str, Any], params: list[Param]) -> Doc:
    """The scene with each searched value put in place and the search block removed (positions kept)."""
    out = Doc(data=copy.deepcopy(doc.data), file=doc.file, pos=dict(doc.pos), keypos=dict(doc.keypos))
    out.data.pop("search", None)
    by_key = {p.key: p for p in params}
    for key, value in values.items():
        p = by_key[key]
        if p.kind == "float" and isinstance(value, float) and math.isfinite(value):
            value = float(value)
        apply_value(out, p.path, value, doc.pos.get(("search", key)))
    return out
