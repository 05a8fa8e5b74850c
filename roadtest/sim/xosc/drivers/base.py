"""DriverModel: the interface a player-specific controller model implements for the ScenarioEngine."""

from __future__ import annotations

from typing import Any

__all__ = ["DriverModel", "properties"]


def properties(ctrl: Any) -> dict[str, str]:
    """A Controller element's Properties as name -> value (parameters already resolved)."""
    if ctrl is None:
        return {}
    return {p.get("name", ""): p.get("value", "") for p in ctrl.findall("Properties/Property")}


class DriverModel:
    """Drives one entity while its controller is active, in place of the default controller's motion.

    The engine builds one per activation (``__init__``) and, each tick after the storyboard's
    actions have set the entity's commanded speed and lateral targets, calls ``drive`` instead of
    the default lane-following ``advance``. A model that controls only one domain calls
    ``self.default(engine, t_next)`` for the rest of the motion.
    """

    kind = ""

    def __init__(self, engine: Any, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        self.name = name
        self.ctrl = ctrl
        self.props = properties(ctrl)
        self.lateral, self.longitudinal = lateral, longitudinal

    def drive(self, engine: Any, t_next: float) -> None:
        """Move the entity for one tick (engine.tick seconds) ending at t_next."""
        self.default(engine, t_next)

    def default(self, engine: Any, t_next: float) -> None:
        """The default controller's motion for this tick: lane following at the entity's speed."""
        from roadtest.sim.xosc.motion import advance

        n = self.name
        advance(engine.network, engine.entities[n], engine.motions[n], engine.tick, t_next, engine.lanes)

    def stop(self, engine: Any) -> None:
        """Called when the controller is deactivated or replaced."""
