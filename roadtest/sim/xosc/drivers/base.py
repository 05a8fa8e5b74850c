"""DriverModel: the interface a player-specific controller model implements for the ScenarioEngine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from roadtest.sim.xosc.motion import advance

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["DriverModel", "properties", "road_speed_limit"]


def properties(ctrl: Any) -> dict[str, str]:
    """A Controller element's Properties as name -> value (parameters already resolved)."""
    if ctrl is None:
        return {}
    return {p.get("name", ""): p.get("value", "") for p in ctrl.findall("Properties/Property")}


def road_speed_limit(net: RoadNetworkAPI | None, x: float, y: float, h: float, wide: float, narrow: float) -> float | None:
    """The speed limit at (x, y) as esmini's drivers take it: the road's own, else `wide` where more than one
    driving lane goes that way, else `narrow`; None off every road."""
    m = net.locate(x, y, h) if net is not None else None
    if m is None:
        return None
    v = net.speed_limit(m.road, m.lane, m.s)
    if v is not None and v > 1e-6:
        return v
    side = [ln for ln in net.lane_ids(m.road, m.s) if ln * m.lane > 0 and net.lane_type(m.road, ln, m.s) == "driving"]
    return wide if len(side) > 1 else narrow


class DriverModel:
    """Drives one entity while its controller is active, in place of the default controller's motion.

    The engine builds one per activation (``__init__``) and, each tick after the storyboard's
    actions have set the entity's commanded speed and lateral targets, calls ``drive`` instead of
    the default lane-following ``advance``. A model that controls only one domain calls
    ``self.default(engine, t_next)`` for the rest of the motion.
    """

    kind = ""

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        self.name = name
        self.ctrl = ctrl
        self.props = properties(ctrl)
        self.lateral, self.longitudinal = lateral, longitudinal

    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        """Move the entity for one tick (engine.tick seconds) ending at t_next."""
        self.default(engine, t_next)

    def default(self, engine: ScenarioEngine, t_next: float) -> None:
        """The default controller's motion for this tick: lane following at the entity's speed."""
        n = self.name
        advance(engine.network, engine.entities[n], engine.motions[n], engine.tick, t_next, engine.lanes)

    def stop(self, engine: ScenarioEngine) -> None:
        """Called when the controller is deactivated or replaced."""
