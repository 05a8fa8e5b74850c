"""CARLA actors as roadtest ActorStates, through frames.py: the same WorldState fields as the built-in simulator.

Pure functions over what the client returns (transform, velocity, acceleration, angular velocity, bounding box,
type id, attributes), so they run on the real `carla` value types without a server. CARLA's angular velocity is
in degrees per second; its bounding-box extents are half sizes.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from roadtest.sim.api import ActorState, LanePos
from roadtest.sim.frames import location_from_carla, vector_from_carla, yaw_from_carla

__all__ = ["actor_kind", "actor_state", "light_state", "box_centre"]

_BASE_TYPES = {"car": "car", "truck": "truck", "van": "car", "bus": "bus", "motorcycle": "motorcycle",
               "bicycle": "bicycle"}
_LIGHT_STATES = {"Red": "red", "Yellow": "yellow", "Green": "green", "Off": "off", "Unknown": "off"}


def actor_kind(type_id: str, attributes: dict[str, str] | None = None) -> str:
    """roadtest's kind for a CARLA blueprint id: vehicle base_type (0.9.14+), walker -> pedestrian, else static."""
    attributes = attributes or {}
    if type_id.startswith("walker."):
        return "pedestrian"
    if type_id.startswith("vehicle."):
        if attributes.get("special_type") == "emergency" or any(k in type_id for k in ("ambulance", "firetruck",
                                                                                       "police")):
            return "emergency"
        return _BASE_TYPES.get(str(attributes.get("base_type", "car")).lower(), "car")
    return "static"


def light_state(state: Any) -> str:
    """"red" / "yellow" / "green" / "off" for a carla.TrafficLightState."""
    return _LIGHT_STATES.get(getattr(state, "name", str(state).split(".")[-1]), "off")


def actor_state(actor_id: str, role: str, kind: str, transform: Any, velocity: Any, acceleration: Any,
                angular_velocity: Any, extent: Any, locate: Callable[[float, float, float], LanePos | None] | None = None,
                siren: bool = False, centre: Any | None = None) -> ActorState:
    """One ActorState from CARLA readings (CARLA frame, SI but degrees for angles and deg/s for rates); `centre` is
    the bounding box's centre in the world (roadtest places an actor by its box centre), else the actor's origin."""
    loc, rot = centre if centre is not None else transform.location, transform.rotation
    x, y, z = location_from_carla(loc.x, loc.y, loc.z)
    h = yaw_from_carla(rot.yaw)
    vx, vy, _ = vector_from_carla(velocity.x, velocity.y, velocity.z)
    axw, ayw, _ = vector_from_carla(acceleration.x, acceleration.y, acceleration.z)
    c, s = math.cos(h), math.sin(h)
    return ActorState(id=actor_id, role=role, kind=kind, x=x, y=y, z=z, h=h, speed=vx * c + vy * s, vx=vx, vy=vy,
                      ax=axw * c + ayw * s, ay=-axw * s + ayw * c,
                      yaw_rate=-math.radians(angular_velocity.z),  # CARLA's z rate is clockwise seen from above
                      length=2.0 * extent.x, width=2.0 * extent.y, height=2.0 * extent.z,
                      lane=locate(x, y, h) if locate is not None else None, siren=siren)


def box_centre(carla: Any, transform: Any, box_location: Any) -> Any:
    """The world location (CARLA frame) of a bounding box's centre given in the actor's frame."""
    loc = carla.Location(box_location.x, box_location.y, box_location.z)
    out = transform.transform(loc)
    return loc if out is None else out  # before 0.9.14 transform() worked in place and returned None
