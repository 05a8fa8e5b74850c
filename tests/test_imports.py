"""The scoring floors: rules/ and metrics/ never import each other, nor the scoring room above them; what both
produce is on the floor under them (roadtest.findings), and none of them lies on an import cycle.

The graph is read from the source with ast, so it holds imports inside functions too (a lazy import is a
dependency all the same); importing a.b.c also runs the packages a and a.b, so those count as imported.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "roadtest"
LAYERED = ("roadtest.findings", "roadtest.rules", "roadtest.metrics", "roadtest.scoring")
# what a module of each may never reach, directly or through any chain of imports
FORBIDDEN = {
    "roadtest.findings": ("roadtest.rules", "roadtest.metrics", "roadtest.scoring"),
    "roadtest.rules": ("roadtest.metrics", "roadtest.scoring"),
    "roadtest.metrics": ("roadtest.rules", "roadtest.scoring"),
}
KNOWN_BACK_EDGES: dict[tuple[str, str], str] = {}  # (importer, imported) -> why it cannot be avoided; none today


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def import_graph() -> dict[str, set[str]]:
    """roadtest module -> the roadtest modules it imports (with their parent packages), from every import statement."""
    files = {_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files]
            else:
                continue
            for t in targets:
                parts = t.split(".")
                for i in range(1, len(parts) + 1):
                    q = ".".join(parts[:i])
                    if q in files and q != mod and (mod, q) not in KNOWN_BACK_EDGES:
                        graph[mod].add(q)
    for mod in files:
        graph.setdefault(mod, set())
    return dict(graph)


def _reach(graph: dict[str, set[str]], start: str) -> dict[str, str]:
    """Every module reachable from start -> the module that imports it on the first path found."""
    via: dict[str, str] = {}
    stack = [start]
    while stack:
        x = stack.pop()
        for y in sorted(graph[x]):
            if y not in via and y != start:
                via[y] = x
                stack.append(y)
    return via


def _path(via: dict[str, str], start: str, end: str) -> str:
    chain = [end]
    while chain[-1] != start:
        chain.append(via[chain[-1]])
    return " -> ".join(reversed(chain))


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_walker_sees_the_imports_it_must(graph):
    # guards against a walker that finds nothing and so passes everything
    assert {"roadtest.rules.evaluate", "roadtest.metrics.leaderboard", "roadtest.scoring.registry"} <= graph["roadtest.scoring.score"]
    assert "roadtest.findings" in graph["roadtest.rules.evaluate"] and "roadtest.findings" in graph["roadtest.metrics.leaderboard"]
    assert "roadtest.scoring.record" in graph["roadtest.runner.episode"]  # an import inside a function


def _breaches(graph: dict[str, set[str]], floor: str) -> list[str]:
    """Import chains from a module of `floor` to a package it may not reach."""
    bad = []
    for mod in sorted(m for m in graph if _in(m, floor)):
        via = _reach(graph, mod)
        bad += [_path(via, mod, t) for t in sorted(via) if any(_in(t, f) for f in FORBIDDEN[floor])]
    return bad


@pytest.mark.parametrize("floor", sorted(FORBIDDEN))
def test_a_floor_never_reaches_the_floors_beside_or_above_it(graph, floor):
    bad = _breaches(graph, floor)
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    """Import cycles through a module of the scoring floors, each written from that module back to itself."""
    cycles = []
    for mod in sorted(m for m in graph if any(_in(m, p) for p in LAYERED)):
        via = _reach(graph, mod)
        back = sorted(x for x in graph if mod in graph[x] and x in via)
        cycles += [_path(via, mod, x) + f" -> {mod}" for x in back]
    return cycles


def test_no_scoring_module_is_on_an_import_cycle(graph):
    cycles = _cycles(graph)
    assert not cycles, "\n".join(cycles)


def test_a_planted_back_edge_is_caught(graph):
    # a metric that runs the rules itself, as the score record once did from inside metrics/
    planted = {k: set(v) for k, v in graph.items()}
    planted["roadtest.metrics.planning"].add("roadtest.rules.evaluate")
    bad = _breaches(planted, "roadtest.metrics")
    assert "roadtest.metrics.planning -> roadtest.rules.evaluate" in bad
    assert all(b.startswith("roadtest.metrics.planning -> roadtest.rules.evaluate") for b in bad)
    planted["roadtest.rules.evaluate"].add("roadtest.metrics.planning")  # and the way back makes a cycle
    assert "roadtest.metrics.planning -> roadtest.rules.evaluate -> roadtest.metrics.planning" in _cycles(planted)
