"""Agents by name ("expert", "lane-follower", "idle", "e2e-server", "vlm", "expert-ignore:RULE") or from a user's file
("path/to/file.py:ClassName").

A file's class that derives from roadtest's AutonomousAgent is built directly; any other class with run_step
and sensors (a CARLA leaderboard agent above all) runs through leaderboard_compat.adapter.LeaderboardAgent."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Mapping

from roadtest.agents.ablation import PREFIX, parse_ignored
from roadtest.agents.base import AutonomousAgent, load_config
from roadtest.errors import UserError

__all__ = ["AGENTS", "known_agents", "agent_class", "load_agent"]

AGENTS: dict[str, str] = {
    "expert": "roadtest.agents.expert:ExpertAgent",
    "lane-follower": "roadtest.agents.lane_follower:LaneFollowerAgent",
    "idle": "roadtest.agents.idle:IdleAgent",
    "e2e-server": "roadtest.agents.baselines.agent:E2EServerAgent",
    "vlm": "roadtest.agents.vlm.agent:VLMAgent",
}


def known_agents() -> list[str]:
    """Registered agent names."""
    return sorted(AGENTS)


def _from_file(spec: str) -> type:
    path_text, _, cls_name = spec.rpartition(":") if spec.count(":") and not spec.endswith(".py") else (spec, "", "")
    path = Path(path_text)
    if not path.is_file():
        raise UserError(f"{path}: agent file not found (expected path/to/file.py:ClassName or one of {known_agents()})")
    mod_name = f"roadtest_user_agent_{abs(hash(str(path.resolve())))}"
    stat = path.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    module = sys.modules.get(mod_name)
    if module is not None and getattr(module, "__roadtest_stamp__", None) == stamp:
        return _pick_class(path, module, mod_name, cls_name)  # imported once per process, as the leaderboard does
    module_spec = importlib.util.spec_from_file_location(mod_name, path)
    if module_spec is None or module_spec.loader is None:
        raise UserError(f"{path}: not a Python file")
    from roadtest.agents.leaderboard_compat import install

    install()  # a leaderboard agent's `import carla` / `from leaderboard...` resolve even without CARLA
    folder = str(path.resolve().parent)
    if folder not in sys.path:  # as the leaderboard: the agent imports its own modules (`model`, `plant`) beside it
        sys.path.insert(0, folder)
    module = importlib.util.module_from_spec(module_spec)
    module.__roadtest_stamp__ = stamp
    sys.modules[mod_name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - the user's module failed at import
        sys.modules.pop(mod_name, None)
        raise UserError(f"{path}: importing the agent failed: {type(e).__name__}: {e}") from e
    return _pick_class(path, module, mod_name, cls_name)


def _pick_class(path: Path, module: Any, mod_name: str, cls_name: str) -> type:
    """The agent class of an imported agent file: named, the leaderboard's get_entry_point(), or the only one."""
    candidates = sorted(n for n, obj in vars(module).items()
                        if inspect.isclass(obj) and obj.__module__ == mod_name and hasattr(obj, "run_step"))
    if not cls_name:
        entry = getattr(module, "get_entry_point", None)  # the leaderboard's convention
        if callable(entry):
            cls_name = str(entry())
        elif len(candidates) == 1:
            cls_name = candidates[0]
        else:
            raise UserError(f"{path}: name the agent class as {path}:ClassName; found {candidates or 'none with run_step'}")
    cls = getattr(module, cls_name, None)
    if not inspect.isclass(cls):
        raise UserError(f"{path}: no class {cls_name!r}; agent classes in the file: {candidates or 'none'}")
    if not (hasattr(cls, "run_step") and hasattr(cls, "sensors")):
        raise UserError(f"{path}:{cls_name}: not an agent (expected run_step and sensors methods)")
    return cls


def agent_class(name_or_path: str) -> type:
    """The class behind a registered name or a file spec."""
    if name_or_path.startswith(PREFIX):
        return agent_class("expert")
    if name_or_path in AGENTS:
        module_name, _, cls_name = AGENTS[name_or_path].partition(":")
        return getattr(importlib.import_module(module_name), cls_name)
    if ".py" in name_or_path or "/" in name_or_path:
        return _from_file(name_or_path)
    raise UserError(f"unknown agent {name_or_path!r}; expected one of {known_agents()} or path/to/file.py:ClassName")


def load_agent(name_or_path: str, config: str | Path | Mapping[str, Any] | None = None, sim: Any = None) -> AutonomousAgent:
    """A fresh agent, set up with `config` (mapping or .json/.yaml path); build one per run. A leaderboard agent
    on the built-in simulation `sim` gets a CARLA-shaped world over it (leaderboard_compat.world)."""
    cls = agent_class(name_or_path)
    if name_or_path.startswith(PREFIX):  # the ablated expert: the expert told to ignore those rules
        return cls({**load_config(config), "ignore": parse_ignored(name_or_path)})
    if issubclass(cls, AutonomousAgent):
        return cls(config)
    from roadtest.agents.leaderboard_compat.adapter import LeaderboardAgent

    return LeaderboardAgent(cls, config, sim=sim)
