"""The one reading of a run's initial weather and light, which every backend starts its run with.

The scenario file says what OpenSCENARIO can say (time of day, cloud state, sun, fog, precipitation, road
friction); meta.json adds what OpenSCENARIO 1.0 has no field for: the road's wetness. Everything else in
meta.json's environment is a copy of what the file says, so the file wins and both backends agree.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from roadtest.sim.api import Environment

__all__ = ["environment_of", "META_ONLY"]

META_ONLY = ("wetness",)  # environment fields that only meta.json carries


def environment_of(xosc: str | Path | Any, meta: Mapping[str, Any] | None) -> Environment:
    """The initial Environment of a scenario: the first EnvironmentAction of its storyboard's Init (read as the
    storyboard's own EnvironmentActions are), then meta.json's `environment` for the fields in META_ONLY.

    `xosc` is the file's path, or its parsed and parameter-resolved <OpenSCENARIO> root (parser.load_scenario)."""
    from roadtest.sim.xosc.trailers import environment_from

    if isinstance(xosc, (str, Path)):
        from roadtest.sim.xosc.parser import load_scenario

        xosc = load_scenario(xosc).root
    env = Environment()
    el = xosc.find(".//Storyboard/Init//EnvironmentAction/Environment")
    if el is not None:
        env = environment_from(el, env)
    given = (meta or {}).get("environment") or {}
    kw = {key: float(given[key]) for key in META_ONLY
          if isinstance(given.get(key), (int, float)) and not isinstance(given.get(key), bool)}
    return replace(env, **kw) if kw else env
