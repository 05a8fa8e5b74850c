"""Sweep expansion: one scenario file with `sweep:` becomes concrete variants, each with an id and seed."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import re
from pathlib import Path
from typing import Any

from roadtest.dsl.loader import Doc, Variant, path_exists, validate_doc, validate_reporting
from roadtest.errors import Problem, ScenarioError

__all__ = ["MAX_VARIANTS", "check_sweep", "check_field_paths", "apply_value", "expand_doc", "slug"]

MAX_VARIANTS = 1000

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(value: Any) -> str:
    """Filesystem-safe text for a sweep value (bools and None in YAML spelling)."""
    if isinstance(value, bool) or value is None:
        text = json.dumps(value)
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    else:
        text = str(value)
    out = _UNSAFE.sub("_", text).strip("_.") or "_"
    if len(out) > 40:
        out = out[:32] + "-" + hashlib.sha1(text.encode()).hexdigest()[:7]
    return out


def check_sweep(doc: Doc) -> list[Problem]:
    """Problems with the sweep block's field paths."""
    sweep = doc.data.get("sweep") if isinstance(doc.data, dict) else None
    if not isinstance(sweep, dict):
        return []
    return check_field_paths(doc, "sweep", {k: v for k, v in doc.data.items() if k != "sweep"}, "sweep")


def check_field_paths(doc: Doc, block: str, base: Any, verb: str, resolve=path_exists) -> list[Problem]:
    """Problems with the dotted field paths a block (sweep: or search:) names: not text, not in BASE (as RESOLVE
    finds them), or a field no variant may change."""
    problems = []
    for key in doc.data[block]:
        if not isinstance(key, str):
            problems.append(doc.problem((block, key), f"expected a dotted field path, got {key!r}", key=True))
            continue
        path, why = resolve(key, base)
        if path is None:
            problems.append(doc.problem((block, key), f"{verb} over a path that does not exist: {why}", key=True))
        elif path[0] in ("sweep", "search", "name"):
            problems.append(doc.problem((block, key), f"cannot {verb} {path[0]!r}", key=True))
    return problems


def apply_value(doc: Doc, path: tuple[Any, ...], value: Any, where: tuple[int, int] | None) -> None:
    """Set a value at a data path (creating mappings on the way); its position becomes `where`."""
    cur = doc.data
    for i, part in enumerate(path[:-1]):
        nxt = cur[part] if (isinstance(cur, list) or part in cur) else None
        if isinstance(nxt, str) and path[0] == "rules" and i == 1:
            nxt = cur[part] = {"id": nxt}  # rule-id shorthand, expanded so its params can be set
            doc.pos[path[:2] + ("id",)] = doc.pos.get(path[:2], where or (0, 0))
        if not isinstance(nxt, (dict, list)):
            nxt = {}
            cur[part] = nxt
            if where:
                doc.pos[path[: i + 1]] = where
        cur = nxt
    cur[path[-1]] = copy.deepcopy(value)
    for p in [p for p in doc.pos if p[: len(path)] == path]:
        del doc.pos[p]
    if where:
        doc.pos[path] = where


def _copy(doc: Doc) -> Doc:
    return Doc(data=copy.deepcopy(doc.data), file=doc.file, pos=dict(doc.pos), keypos=dict(doc.keypos))


def expand_doc(doc: Doc, overrides: dict[str, Any] | None = None, seeds: list[int] | None = None,
               override_doc: Doc | None = None) -> list[Variant]:
    """Every concrete variant of a parsed scenario: overrides applied, then each sweep combination.

    Seeds: the i-th sweep combination gets base + i, where base is each of `seeds` (a suite's) or
    else the scenario's traffic.seed; with suite seeds the id ends in -s<seed>. Problems caused by
    an override are reported at its key in `override_doc` (the suite file).
    """
    try:
        return _expand(doc, overrides or {}, seeds)
    except ScenarioError as e:
        if not overrides or override_doc is None:
            raise
        moved = []
        for p in e.problems:
            key = next((k for k in overrides if p.field == k or p.field.startswith(k + ".")), None)
            if key is None:
                key = next((k for k in overrides if p.field == ".".join(map(str, path_exists(k, doc.data)[0] or ()))), None)
            moved.append(override_doc.problem(("overrides", key), f"override on {Path(doc.file).name}: {p.message}")
                         if key is not None else p)
        raise ScenarioError(moved) from None


def _expand(doc: Doc, overrides: dict[str, Any], seeds: list[int] | None) -> list[Variant]:
    from roadtest.dsl.search_space import check_search, search_params

    problems = check_sweep(doc) + check_search(doc)
    doc = _copy(doc)
    for key, value in overrides.items():
        path, why = path_exists(key, {k: v for k, v in doc.data.items() if k != "sweep"})
        if path is None:
            raise ScenarioError(doc.problem((), f"override {key!r}: {why}"))
        apply_value(doc, path, value, None)
    base = validate_reporting(doc, problems)
    if base.search:
        search_params(doc, base)  # a range end the scene refuses is an error at its search key
    sweep = base.sweep
    keys = list(sweep)
    paths = {k: path_exists(k, doc.data)[0] for k in keys}
    count = math.prod(len(sweep[k]) for k in keys) * len(seeds or [0])
    if count > MAX_VARIANTS:
        raise ScenarioError(doc.problem(("sweep",), f"{count} variants; expected at most {MAX_VARIANTS} per scenario", key=True))
    combos = list(itertools.product(*(range(len(sweep[k])) for k in keys)))
    bases = seeds if seeds else [base.traffic.seed]
    variants: list[Variant] = []
    seen: set[str] = set()
    for base_seed in bases:
        for i, combo in enumerate(combos):
            vdoc = _copy(doc)
            vdoc.data.pop("sweep", None)
            values = {k: sweep[k][j] for k, j in zip(keys, combo)}
            for k, j in zip(keys, combo):
                apply_value(vdoc, paths[k], sweep[k][j], doc.pos.get(("sweep", k, j)))
            seed = base_seed + i
            if "traffic.seed" in values:
                seed = int(values["traffic.seed"])
            elif isinstance(vdoc.data.get("traffic", {}), dict):
                apply_value(vdoc, ("traffic", "seed"), seed, doc.pos.get(("traffic", "seed")))
            try:
                scn = validate_doc(vdoc)
            except ScenarioError as e:
                problems.extend(p for p in e.problems if p not in problems)
                continue
            vid = base.name + "".join(f"--{slug(k)}-{slug(v)}" for k, v in values.items())
            if seeds:
                vid += f"-s{base_seed}"
            n, unique = 1, vid
            while unique in seen:
                n += 1
                unique = f"{vid}-{n}"
            seen.add(unique)
            variants.append(Variant(scenario=scn, id=unique, seed=seed, sweep=values, source=Path(doc.file)))
    if problems:
        raise ScenarioError(problems)
    return variants
