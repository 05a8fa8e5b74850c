"""Suites and targets: a scenario file, a suite file (top-level `scenarios:`) or a folder of scenarios."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from pydantic import BaseModel, ConfigDict, Field

from roadtest.dsl.loader import Doc, Variant, parse_file, path_exists, validate_doc
from roadtest.dsl.variants import expand_doc
from roadtest.errors import Problem, ScenarioError

__all__ = ["Suite", "is_suite", "expand_target", "iter_target"]


class Suite(BaseModel):
    """A list of scenario files or globs (relative to the suite file), seeds and overrides."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(..., pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    description: str = ""
    scenarios: list[str] = Field(..., min_length=1, description="Scenario files or globs, relative to this file.")
    seeds: list[int] | int | None = Field(None, description="Seeds for every variant, or how many (0, 1, ...).")
    overrides: dict[str, Any] = Field(default_factory=dict, description="dotted.path: value applied to every scenario (YAML units).")


def is_suite(doc: Doc) -> bool:
    """A suite has a top-level `scenarios:` key; a scenario never does."""
    return isinstance(doc.data, dict) and "scenarios" in doc.data


def _suite_members(doc: Doc, suite: Suite) -> Iterator[tuple[Path, Problem | None]]:
    base = Path(doc.file).parent
    for i, pattern in enumerate(suite.scenarios):
        p = Path(pattern)
        if any(ch in pattern for ch in "*?["):
            root, rel = (Path(p.anchor), str(p.relative_to(p.anchor))) if p.is_absolute() else (base, pattern)
            matches = sorted(m for m in root.glob(rel) if m.is_file()) if rel else []
            if not matches:
                yield base / p, doc.problem(("scenarios", i), f"glob {pattern!r} matches no file")
            for m in matches:
                yield m, None
        else:
            full = p if p.is_absolute() else base / p
            yield full, None if full.is_file() else doc.problem(("scenarios", i), f"no such file: {full}")


def _expand_suite(doc: Doc) -> Iterator[tuple[str, list[Variant] | ScenarioError]]:
    try:
        suite = validate_doc(doc, Suite, check=False)
    except ScenarioError as e:
        yield doc.file, e
        return
    seeds = list(range(suite.seeds)) if isinstance(suite.seeds, int) else suite.seeds
    for path, missing in _suite_members(doc, suite):
        if missing is not None:
            yield str(path), ScenarioError(missing)
            continue
        try:
            sdoc = parse_file(path)
            bad = [doc.problem(("overrides", k), f"override {k!r} on {path.name}: {why}", key=True)
                   for k in suite.overrides for _, why in [path_exists(k, sdoc.data)] if why]
            if bad:
                raise ScenarioError(bad)
            yield str(path), expand_doc(sdoc, suite.overrides, seeds, doc)
        except ScenarioError as e:
            yield str(path), e


def iter_target(target: str | Path) -> Iterator[tuple[str, list[Variant] | ScenarioError]]:
    """(source file, its variants or its problems) for each scenario a target names, in order.

    A folder yields every scenario file (*.yaml, *.yml) in it and in its subfolders, in path order;
    suite files found there are skipped (a folder names scenarios, and a suite would run its members
    a second time), as are hidden folders.
    """
    t = Path(target)
    if t.is_dir():
        files = sorted(p for p in t.rglob("*") if p.suffix.lower() in (".yaml", ".yml") and p.is_file()
                       and not any(part.startswith(".") for part in p.relative_to(t).parts))
        found = False
        for f in files:
            try:
                doc = parse_file(f)
            except ScenarioError as e:
                found = True
                yield str(f), e
                continue
            if is_suite(doc):
                continue
            found = True
            try:
                yield str(f), expand_doc(doc)
            except ScenarioError as e:
                yield str(f), e
        if not found:
            yield str(t), ScenarioError(Problem(str(t), 0, 0, "", "no *.yaml scenario files in this folder or below it"))
        return
    if not t.exists():
        yield str(t), ScenarioError(Problem(str(t), 0, 0, "", "no such file or folder"))
        return
    try:
        doc = parse_file(t)
    except ScenarioError as e:
        yield str(t), e
        return
    if is_suite(doc):
        yield from _expand_suite(doc)
        return
    try:
        yield str(t), expand_doc(doc)
    except ScenarioError as e:
        yield str(t), e


def expand_target(target: str | Path) -> list[Variant]:
    """Every concrete variant of a scenario file, suite file or folder; all problems raised at once."""
    variants: list[Variant] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for source, result in iter_target(target):
        if isinstance(result, ScenarioError):
            problems.extend(result.problems)
            continue
        for v in result:
            if v.id in seen and seen[v.id] == source:
                continue
            if v.id in seen:
                problems.append(Problem(source, 0, 0, "name", f"variant id {v.id!r} also comes from {seen[v.id]} (expected unique scenario names)"))
                continue
            seen[v.id] = source
            variants.append(v)
    if problems:
        raise ScenarioError(problems)
    return variants
