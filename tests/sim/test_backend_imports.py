"""The backends sit side by side on the shared layer: no backend imports another, and the layer under them
(sim/*.py, sim/xosc, sim/road) imports none. Every import statement counts, those inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

from roadtest.sim.backends import BACKENDS

SIM = Path(__file__).resolve().parents[2] / "roadtest" / "sim"
PACKAGES = sorted({spec.split(":")[0].rsplit(".", 1)[-1] for spec in BACKENDS.values()})


def _imports(path: Path, package: str | None = None) -> list[tuple[int, str]]:
    """(line, module) of every import in a file, relative ones resolved against its package."""
    tree = ast.parse(path.read_text(), str(path))
    package = package or ".".join(path.relative_to(SIM.parents[1]).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names]  # from roadtest.sim import carla
    return out


def _backend_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["roadtest", "sim"] and parts[2] in PACKAGES else None


def test_the_registry_names_the_backend_packages():
    assert PACKAGES == ["carla", "embedded"]
    assert all((SIM / p / "__init__.py").is_file() for p in PACKAGES)


def test_no_backend_imports_another():
    bad = []
    for pkg in PACKAGES:
        for f in sorted((SIM / pkg).rglob("*.py")):
            bad += [f"{f.relative_to(SIM)}:{line} imports {m}" for line, m in _imports(f)
                    if _backend_of(m) not in (None, pkg)]
    assert bad == []


def test_the_shared_layer_imports_no_backend():
    files = [*SIM.glob("*.py"), *(SIM / "xosc").rglob("*.py"), *(SIM / "road").rglob("*.py")]
    assert len(files) > 20
    bad = [f"{f.relative_to(SIM)}:{line} imports {m}" for f in sorted(files) for line, m in _imports(f)
           if _backend_of(m) is not None]
    assert bad == []


def test_the_walk_sees_a_lazy_cross_import(tmp_path):
    """The check itself: an import inside a function, as the borrowed event detector was, is found."""
    f = tmp_path / "probe.py"
    f.write_text("def f():\n    from roadtest.sim.embedded.events import EventDetector\n    from ..embedded import x\n")
    found = [m for _, m in _imports(f, "roadtest.sim.carla") if _backend_of(m) == "embedded"]
    assert "roadtest.sim.embedded.events" in found and "roadtest.sim.embedded" in found
