"""Controller bookkeeping of the ScenarioEngine: which controller drives each entity, its driver model, refusals."""

from __future__ import annotations

from typing import Any

from roadtest.errors import UnsupportedError
from roadtest.sim.xosc.drivers import ESMINI_KINDS, model_for, refusal

__all__ = ["ControllerMixin", "EXTERNAL_KINDS", "controller_kind", "is_default"]


class ControllerMixin:
    """Assign/activate controllers and start the driver model of each (needs controllers, drivers,
    lateral_keepers, entities, warnings and the storyboard on the engine)."""

    def _check_controllers(self) -> None:
        """A controller kind roadtest refuses (see drivers.REFUSED) fails the load, naming it and why."""
        ctrls = [c["xml"] for c in self.controllers.values()] + list(self.sc.storyboard.iter("Controller"))
        for ctrl in ctrls:
            why = refusal(controller_kind(ctrl))
            if why:
                raise UnsupportedError(controller_kind(ctrl), *self.where(ctrl), why)

    def controlled_externally(self, name: str) -> bool:
        """True when an active controller hands this entity to an external driver (an agent, a human).

        Player-specific automated drivers (esmini's ACC, ghost follower...) are not external: their
        driver model (drivers.MODELS) or, for a kind roadtest lacks, the default controller drives them."""
        c = self.controllers.get(name)
        if not c or not (c["lat"] or c["long"]) or is_default(c["xml"]):
            return False
        kind = controller_kind(c["xml"])
        return kind in EXTERNAL_KINDS or (self.entities[name].role == "ego" and kind == "")

    def controller_of(self, name: str) -> str | None:
        """The active controller's kind (esminiController/controllerType property or name), None when default."""
        c = self.controllers.get(name)
        if not c or not (c["lat"] or c["long"]) or is_default(c["xml"]):
            return None
        return controller_kind(c["xml"]) or (c["xml"].get("name", "") if c["xml"] is not None else "")

    def assign_controller(self, n: str, ctrl: Any, lat: str | None, lon: str | None) -> None:
        c = self.controllers.setdefault(n, {"xml": ctrl, "lat": False, "long": False})
        self._claim_lateral(n, lat)
        c["xml"] = ctrl
        c["default"] = is_default(ctrl)
        if lat is not None:
            c["lat"] = lat.lower() == "true"
        if lon is not None:
            c["long"] = lon.lower() == "true"
        self._refresh_driver(n)

    def activate_controller(self, n: str, lat: str | None, lon: str | None) -> None:
        c = self.controllers.get(n)
        if c is None:
            return  # activating the default controller
        self._claim_lateral(n, "true" if lat is None else lat)  # no lateral attribute: it is activated too
        c["default"] = is_default(c["xml"])
        c["lat"] = True if lat is None else lat.lower() == "true"
        c["long"] = True if lon is None else lon.lower() == "true"
        self._refresh_driver(n)

    def _claim_lateral(self, n: str, lat: str | None) -> None:
        """A controller activated on the lateral domain ends the displaced one kept there."""
        keeper = self.lateral_keepers.get(n)
        if keeper is not None and lat is not None and lat.lower() == "true":
            keeper.stop(self)
            del self.lateral_keepers[n]

    def _refresh_driver(self, n: str) -> None:
        """Start, keep or stop the driver model of n's controller after an assignment or (de)activation."""
        c = self.controllers.get(n)
        active = bool(c and (c["lat"] or c["long"]) and not is_default(c["xml"]))
        kind = controller_kind(c["xml"]) if c else ""
        old = self.drivers.get(n)
        if old is not None and (not active or old.ctrl is not c["xml"] or
                                (old.lateral, old.longitudinal) != (c["lat"], c["long"])):
            if old.ctrl is not c["xml"] and old.lateral and getattr(old, "keeps_lateral_when_displaced", False):
                self.lateral_keepers[n] = old  # a newly assigned controller leaves it active on the lateral domain
            else:
                old.stop(self)
            del self.drivers[n]
            old = None
        if not active or old is not None:
            return
        cls = model_for(kind)  # an external kind's model (InteractiveController) drives it when no agent does
        if cls is None and self.controlled_externally(n):
            return
        if cls is not None:
            self.drivers[n] = cls(self, n, c["xml"], c["lat"], c["long"])
        elif kind:
            msg = f"controller {kind!r} of {n!r} is not modelled by roadtest: the default controller drives it"
            if msg not in self.warnings:
                self.warnings.append(msg)


EXTERNAL_KINDS = ("ExternalController", "InteractiveController", "HIDController", "external_control", "agent")


def controller_kind(ctrl: Any) -> str:
    """The controller's declared kind: esmini's esminiController, CARLA's module, or a controllerType property."""
    if ctrl is None:
        return ""
    for p in ctrl.findall("Properties/Property"):
        if p.get("name") in ("esminiController", "controllerType", "module", "type"):
            return p.get("value", "")
    name = ctrl.get("name", "")
    return name if name in ESMINI_KINDS else ""


def is_default(ctrl: Any) -> bool:
    """True for no controller or one that names the default controller."""
    if ctrl is None:
        return True
    for p in ctrl.findall("Properties/Property"):
        if p.get("name") in ("esminiController", "controllerType") and p.get("value") in ("DefaultController",):
            return True
    return False

