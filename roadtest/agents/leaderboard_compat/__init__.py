"""Run CARLA leaderboard agents unchanged: `import carla`, `from leaderboard.autoagents import autonomous_agent`
and `from agents.navigation.local_planner import RoadOption` resolve without CARLA installed.

install() puts an import finder on sys.meta_path that answers only for the top-level names `carla`,
`leaderboard`, `agents` and `srunner` (CarlaDataProvider and GameTime over the built-in world), and only when no regular package or module of that name is on sys.path, so a real
CARLA, a real leaderboard and CARLA's own `agents` always win. A bare folder of that name (a namespace
package, such as a project's or a test suite's `agents/` without __init__.py) is not taken for the real one. The stand-ins live in shims/ (value types and the agent base
class, not a CARLA client); `is_compat(module)` says whether a module is one of them.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from pathlib import Path

__all__ = ["install", "is_compat", "SHIMS", "SHIMMED"]

SHIMS = Path(__file__).resolve().parent / "shims"
SHIMMED = ("carla", "leaderboard", "agents", "srunner")


class _CompatFinder(importlib.abc.MetaPathFinder):
    """Finds the stand-in for a shimmed top-level name; consulted only after every other finder failed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in SHIMMED:
            return None
        real = importlib.machinery.PathFinder.find_spec(fullname, sys.path)
        if real is not None and real.origin is not None:  # an installed package or module: the real one
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, [str(SHIMS)])


def install() -> None:
    """Make the stand-ins importable where the real packages are absent; idempotent."""
    if not any(isinstance(f, _CompatFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _CompatFinder())


def is_compat(module) -> bool:
    """True for roadtest's stand-in modules (e.g. the `carla` an agent got), False for the real packages."""
    return str(getattr(module, "__file__", "") or "").startswith(str(SHIMS))
