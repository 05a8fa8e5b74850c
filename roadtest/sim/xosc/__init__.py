"""OpenSCENARIO 1.0-1.3 runtime: parse, resolve parameters and catalogs, play the storyboard tick by tick."""

from roadtest.sim.xosc.engine import EntityState, ScenarioEngine
from roadtest.sim.xosc.parser import expand_distribution, load_scenario

__all__ = ["EntityState", "ScenarioEngine", "expand_distribution", "load_scenario"]
