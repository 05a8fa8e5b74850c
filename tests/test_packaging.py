"""roadtest as a package: declared dependencies are the imported ones, data files ship inside roadtest/,
and the tests collect with a plain `pytest` as well as `python -m pytest`."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def _dist(requirement: str) -> str:
    """Normalised distribution name of a requirement string (PEP 503)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0)
    return re.sub(r"[-_.]+", "-", name).lower()


def _imports(folder: Path) -> dict[str, dict[str, bool]]:
    """Top-level module -> {file: imported at module level?} for every absolute third-party import under folder."""
    # the repo's own scripts/ are local too: tests import them by name (scripts/trace_guard.py)
    everywhere = ({p.stem for p in folder.rglob("*.py")} | {p.name for p in folder.rglob("*") if p.is_dir()}
                  | {p.stem for p in (REPO / "scripts").glob("*.py")})
    # a declared package is third-party even where a roadtest folder shares its name (roadtest/sim/carla/), except
    # inside a folder of stand-ins that provides that very top-level name (leaderboard_compat/shims/carla/)
    local = {n for n in everywhere if _dist(n) not in DECLARED}
    found: dict[str, dict[str, bool]] = {}
    for f in sorted(folder.rglob("*.py")):
        tree = ast.parse(f.read_text(), str(f))
        module_level = set()
        for node in tree.body:  # module body, including imports under a top-level if/try
            module_level.update(map(id, ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                root = name.split(".")[0]
                if root in sys.stdlib_module_names or root == "roadtest" or root in local:
                    continue
                if any((parent / root).is_dir() or (parent / f"{root}.py").is_file()
                       for parent in f.parents if parent.name == "shims"):
                    continue
                at_top = found.setdefault(root, {}).get(str(f), False) or id(node) in module_level
                found[root][str(f.relative_to(REPO))] = at_top
    return found


def _module_dists(module: str) -> set[str]:
    """Distributions that provide an importable top-level module (the installed ones, else its own name)."""
    return {_dist(d) for d in packages_distributions().get(module, [])} or {_dist(module)}


CORE = {_dist(r) for r in PYPROJECT["project"]["dependencies"]}
EXTRAS = {k: {_dist(r) for r in v} for k, v in PYPROJECT["project"].get("optional-dependencies", {}).items()}
OPTIONAL = set().union(*(v for k, v in EXTRAS.items() if k != "dev"))
# scripts that run in another project's environment: their imports (the model's torch, Bench2DriveZoo's own
# mmcv) are that environment's, never roadtest's dependencies; they import only the standard library at the top
FOREIGN_ENV = {"roadtest/agents/baselines/e2e_server.py"}
DECLARED = CORE | set().union(*EXTRAS.values())


def test_every_import_of_roadtest_is_declared_and_module_level_ones_are_core():
    missing, heavy_at_top = [], []
    for module, files in _imports(REPO / "roadtest").items():
        files = {f: top for f, top in files.items() if f not in FOREIGN_ENV}
        if not files:
            continue
        dists = _module_dists(module)
        if not dists & (CORE | OPTIONAL):
            missing.append(f"{module} ({', '.join(sorted(files))})")
        elif not dists & CORE and any(files.values()):
            heavy_at_top.append(f"{module} ({', '.join(f for f, top in files.items() if top)})")
    assert not missing, f"imported by roadtest but not declared in pyproject.toml: {missing}"
    assert not heavy_at_top, f"optional dependencies must be imported where used, not at module level: {heavy_at_top}"


def test_every_declared_dependency_is_imported():
    used_by_package = set().union(*(_module_dists(m) for m in _imports(REPO / "roadtest")))
    used_by_tests = set().union(*(_module_dists(m) for m in _imports(REPO / "tests")))
    assert CORE - used_by_package == set(), "declared core dependencies that roadtest never imports"
    assert OPTIONAL - used_by_package == set(), "declared extras that roadtest never imports"
    assert EXTRAS.get("dev", set()) - used_by_tests - used_by_package == set(), "dev dependencies no test imports"


def test_every_import_of_the_tests_is_declared():
    from roadtest.agents.leaderboard_compat import SHIMMED  # tests write agents against these stand-ins

    undeclared = {m: sorted(f) for m, f in _imports(REPO / "tests").items()
                  if m not in SHIMMED and not _module_dists(m) & (CORE | OPTIONAL | EXTRAS.get("dev", set()))}
    assert not undeclared, f"imported by tests but not declared: {undeclared}"


def test_package_data_covers_every_data_file_in_the_package():
    """Files under roadtest/ that are not Python are read at run time; each must match a package-data glob."""
    import glob

    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["roadtest"]
    pkg = REPO / "roadtest"
    data = {p.relative_to(pkg).as_posix() for p in pkg.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}
    assert data, "the package holds its data files (rule and sign catalogues)"
    shipped = {m for g in globs for m in glob.glob(g, root_dir=pkg, recursive=True)}  # as setuptools expands them
    uncovered = sorted(data - shipped)
    assert not uncovered, f"data files a wheel would leave out: {uncovered}"


@pytest.mark.slow
def test_plain_pytest_collects_every_test(tmp_path):
    """Only roadtest on the path, as after an install: the repository root (and so a `tests` package) is not."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "roadtest").symlink_to(REPO / "roadtest")
    pytest_exe = Path(sys.executable).with_name("pytest")
    r = subprocess.run([str(pytest_exe), "--collect-only", "-q", "-p", "no:cacheprovider", "tests"], cwd=REPO,
                       capture_output=True, text=True, timeout=300, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert re.search(r"^\d+ tests collected", r.stdout, re.M), r.stdout[-500:]


def _collected(*args: str) -> set[str]:
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                       cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 5), r.stdout[-3000:] + r.stderr[-2000:]  # 5: nothing selected
    return {ln for ln in r.stdout.splitlines() if "::" in ln}


def test_every_test_reading_the_conformance_corpus_carries_the_marker():
    files = ["tests/dsl/test_validate.py", "tests/sim/road/test_conformance.py", "tests/sim/embedded/test_embedded_events.py"]
    marked, unmarked = _collected("-m", "conformance", *files), _collected("-m", "not conformance", *files)
    assert "tests/dsl/test_validate.py::test_conformance_corpus" in marked
    assert any(n.startswith("tests/sim/road/test_conformance.py::") for n in marked)
    assert not any("conformance" in n.split("::")[-1] or n.startswith("tests/sim/road/test_conformance.py")
                   for n in unmarked), unmarked
    assert any(n.startswith("tests/dsl/test_validate.py::") for n in unmarked)  # the rest of the file still runs


def test_importorskip_only_for_optional_packages():
    """A required dependency or roadtest's own module that fails to import is a failure, never a skip."""
    wrong = []
    for f in sorted((REPO / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "importorskip" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                module = node.args[0].value.split(".")[0]
                if module == "roadtest" or _module_dists(module) & (CORE | EXTRAS.get("dev", set())):
                    wrong.append(f"{f.relative_to(REPO)}:{node.lineno}: {node.args[0].value}")
    assert not wrong, wrong


def test_the_package_holds_no_corpus_harness():
    """The backend check ships with roadtest; the esmini corpus harness (INDEX.tsv, esmini's CSVs) is a test tool."""
    import roadtest.sim.conformance as conformance

    assert set(conformance.__all__) == {"ConformanceFailure", "check_backend", "scripted_control", "trace_digest"}
    readers = [str(f.relative_to(REPO)) for f in (REPO / "roadtest").rglob("*.py")
               if "INDEX.tsv" in f.read_text() or '"esmini_reference"' in f.read_text()]
    assert not readers, readers
