"""Player-specific driver models that an OpenSCENARIO Controller names (esmini's ACC, ghost follower...).

A Controller's kind (its esminiController/controllerType property) selects a model here. A kind in
MODELS is driven by that model while the controller is active; a kind in REFUSED is refused at load
("unsupported: <kind> at file:line", with the reason); any other non-default kind runs under the
default controller and the run says so in ``trace.info["warnings"]``.
"""

from __future__ import annotations

import importlib
from roadtest.sim.xosc.drivers.base import DriverModel, properties

__all__ = ["DriverModel", "ESMINI_KINDS", "MODELS", "REFUSED", "model_for", "refusal", "properties"]

# esmini's controller types; esmini takes a Controller's name as its type when it has no esminiController property
ESMINI_KINDS = frozenset({
    "ACCController", "ALKSController", "ALKS_R157SM_Controller", "ECE_ALKS_RefDriverController",
    "ExternalController", "FollowGhostController", "FollowReferenceController", "FollowRouteController",
    "HIDController", "InteractiveController", "LoomingController", "NaturalDriver", "OffroadFollower",
    "ControllerRel2Abs", "SloppyDriverController", "SumoController", "UDPDriverController",
})

# kind -> "module:Class" (imported when a scenario activates that kind)
MODELS: dict[str, str] = {
    "SloppyDriverController": "roadtest.sim.xosc.drivers.sloppy:SloppyDriver",
    "ALKS_R157SM_Controller": "roadtest.sim.xosc.drivers.alks_r157:ALKSR157",
    "ALKSController": "roadtest.sim.xosc.drivers.alks_r157:ALKS",
    "ACCController": "roadtest.sim.xosc.drivers.acc:ACC",
    "NaturalDriver": "roadtest.sim.xosc.drivers.natural:NaturalDriver",
    "FollowGhostController": "roadtest.sim.xosc.drivers.follow_ghost:FollowGhost",
    "FollowReferenceController": "roadtest.sim.xosc.drivers.follow_reference:FollowReference",
    "OffroadFollower": "roadtest.sim.xosc.drivers.offroad_follower:OffroadFollower",
    "InteractiveController": "roadtest.sim.xosc.drivers.interactive:InteractiveHeadless",
}

# kind -> why roadtest refuses it (the reason is part of the load error)
REFUSED: dict[str, str] = {}


def model_for(kind: str) -> type[DriverModel] | None:
    """The DriverModel class for a controller kind, None when roadtest has none."""
    ref = MODELS.get(kind)
    if ref is None:
        return None
    mod, _, cls = ref.partition(":")
    return getattr(importlib.import_module(mod), cls)


def refusal(kind: str) -> str | None:
    """Why a controller kind is refused at load, None when it is not."""
    return REFUSED.get(kind)
