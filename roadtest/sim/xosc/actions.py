"""OpenSCENARIO actions: checked at load, started by events, stepped each tick until done."""

from __future__ import annotations

from typing import Any

from roadtest.errors import MapError, UnsupportedError
from roadtest.sim.xosc.actions_lateral import LateralActions
from roadtest.sim.xosc.actions_longitudinal import LongitudinalActions
from roadtest.sim.xosc.motion import place
from roadtest.sim.xosc.parser import attr_float as _f
from roadtest.sim.xosc.positions import locate, parse_position, resolve

__all__ = ["RuntimeAction", "make_action", "PRIVATE", "GLOBAL"]

PRIVATE = ("TeleportAction", "SpeedAction", "LaneChangeAction", "LaneOffsetAction", "LongitudinalDistanceAction",
           "LateralDistanceAction", "AssignRouteAction", "FollowTrajectoryAction", "AcquirePositionAction",
           "SynchronizeAction", "AssignControllerAction", "ActivateControllerAction", "VisibilityAction",
           "SpeedProfileAction", "LightStateAction", "ConnectTrailerAction", "DisconnectTrailerAction",
           "OverrideControllerValueAction", "AnimationAction", "RandomRouteAction")
GLOBAL = ("EnvironmentAction", "AddEntityAction", "DeleteEntityAction", "ParameterSetAction", "ParameterModifyAction",
          "VariableSetAction", "VariableModifyAction", "TrafficSignalStateAction", "TrafficSignalControllerAction",
          "TrafficSwarmAction", "TrafficStopAction")
_WRAPPERS = {"PrivateAction", "GlobalAction", "LongitudinalAction", "LateralAction", "RoutingAction", "ControllerAction",
             "EntityAction", "ParameterAction", "VariableAction", "InfrastructureAction", "TrafficSignalAction",
             "AppearanceAction", "TrailerAction", "TrafficAction"}


def _leaf(el: Any) -> tuple[Any, str]:
    """The concrete action element under the wrappers, and its name (ParameterAction/SetAction -> ParameterSetAction)."""
    parent_tag = ""
    while el.tag in _WRAPPERS and len(el):
        parent_tag = el.tag
        el = el[0]
    name = el.tag
    if parent_tag in ("ParameterAction", "VariableAction") and name in ("SetAction", "ModifyAction"):
        name = parent_tag.replace("Action", "") + name
    if parent_tag == "EntityAction" and name in ("AddEntityAction", "DeleteEntityAction"):
        pass
    return el, name


class RuntimeAction(LongitudinalActions, LateralActions):
    """One action on one actor (or a global action); `domains` say which motion it owns."""

    domains: frozenset[str] = frozenset()

    def __init__(self, el: Any, name: str, actor: str | None, eb: Any):
        self.el, self.name, self.actor, self.eb = el, name, actor, eb
        self.done = False
        self.started_at = 0.0
        self.stepped_at: float | None = None

    def start(self, c: Any) -> None:
        self.started_at = c.time
        try:
            getattr(self, "_start_" + self.name)(c)
        except MapError as e:
            if not getattr(c, "_started", True):
                raise  # an Init action: the file is refused at load
            # mid-run a target the map lacks (a lane that does not exist there) skips the action, said in the warnings
            self.done = True
            f, line = c.where(self.el)
            msg = f"{f}:{line}: {self.name} on {self.actor or 'the world'} at {c.time:.2f} s skipped: {e}"
            if msg not in c.warnings:
                c.warnings.append(msg)

    def step(self, c: Any, dt: float) -> None:
        fn = getattr(self, "_step_" + self.name, None)
        if fn is not None and not self.done:
            self.stepped_at = c.time
            fn(c, dt)

    def post(self, c: Any) -> None:
        """After motion: lateral and trajectory actions end on the tick their motion completes."""
        if self.done or not self.actor:
            return
        m = c.motions.get(self.actor)
        if self.name in ("LaneChangeAction", "LaneOffsetAction"):
            prof = getattr(self, "profile", None)
            if prof is not None and (prof.done or m.lat is not prof):
                self.done = True
        elif self.name == "FollowTrajectoryAction" and m.path is not getattr(self, "path", None):
            self.done = True

    def stop(self, c: Any) -> None:
        """Overridden by a newer action or stopped with its event."""
        self.done = True
        m = c.motions.get(self.actor) if self.actor else None
        if m is not None:
            if "lat" in self.domains and m.lat is getattr(self, "profile", None):
                m.lat = None
            if "path" in self.domains and m.path is getattr(self, "path", None):
                m.path = None

    # ------------------------------------------------------------------ instant actions
    def _start_TeleportAction(self, c: Any) -> None:
        m = c.motions[self.actor]
        place(c.entities[self.actor], m, resolve(self.pos, c.net, c.entities), c.net)
        if c.time > 1e-9:  # (at time 0 esmini teleports in its zero-length first frame: the first tick moves it)
            m.teleported_at = c.time  # esmini moves nothing on the tick it teleports it
        self.done = True

    def _start_VisibilityAction(self, c: Any) -> None:
        c.entities[self.actor].visible = self.el.get("graphics", "true").lower() == "true"
        self.done = True

    def _start_LightStateAction(self, c: Any) -> None:
        lt = self.el.find("LightType")
        kind = lt[0].get("vehicleLightType") or lt[0].get("userDefinedLightType") if lt is not None and len(lt) else "light"
        st = self.el.find("LightState")
        c.entities[self.actor].properties[f"light.{kind}"] = st.get("mode", "") if st is not None else ""
        self.done = True

    def _start_AnimationAction(self, c: Any) -> None:
        """Recorded in the entity's properties (roadtest draws no animated components or gestures)."""
        kind = "animation"
        for x in self.el.iter("VehicleComponent", "UserDefinedComponent", "PedestrianAnimation", "PedestrianGesture",
                              "UserDefinedAnimation", "File"):
            kind = (x.get("vehicleComponentType") or x.get("userDefinedComponentType") or x.get("motion")
                    or x.get("gesture") or x.get("userDefinedAnimationType") or x.get("filepath") or kind)
        st = self.el.find("AnimationState")
        c.entities[self.actor].properties[f"animation.{kind}"] = st.get("state", "") if st is not None else "on"
        self.done = True

    def _start_ConnectTrailerAction(self, c: Any) -> None:
        c.connect_trailer(self.actor, self.el.get("trailerRef"))
        self.done = True

    def _start_DisconnectTrailerAction(self, c: Any) -> None:
        c.connect_trailer(self.actor, None)
        self.done = True

    def _start_AssignControllerAction(self, c: Any) -> None:
        c.assign_controller(self.actor, self.el.find("Controller"),
                            self.el.get("activateLateral"), self.el.get("activateLongitudinal"))
        self.done = True

    def _start_OverrideControllerValueAction(self, c: Any) -> None:
        from roadtest.sim.xosc.overrides import parse_overrides

        e = c.entities[self.actor]
        ov = parse_overrides(self.el, c.overrides.get(self.actor, {}), max_decel=e.max_decel)
        c.overrides[self.actor] = ov
        for k in [k for k in e.properties if k.startswith("override.")]:
            del e.properties[k]
        e.properties.update({f"override.{k}": str(v) for k, v in ov.items()})
        self.done = True

    def _start_ActivateControllerAction(self, c: Any) -> None:
        c.activate_controller(self.actor, self.el.get("lateral"), self.el.get("longitudinal"))
        self.done = True

    def _start_AssignRouteAction(self, c: Any) -> None:
        c.motions[self.actor].route = c.route_waypoints(self.el.find("Route"), self.actor)
        c.motions[self.actor].random = None
        self.done = True

    def _start_AcquirePositionAction(self, c: Any) -> None:
        r = resolve(self.pos, c.net, c.entities)
        c.motions[self.actor].route = [(r.lane.road, r.lane.lane)] if r.lane is not None else []
        c.motions[self.actor].random = None
        self.done = True

    def _start_RandomRouteAction(self, c: Any) -> None:
        """A random route: at each fork one of the lanes that continue, uniformly, seeded by the run's seed, the
        actor and the start time (the standard fixes no distribution; esmini also picks at random per junction)."""
        import random

        m = c.motions[self.actor]
        m.route = []
        m.random = random.Random(f"{c.seed}:{self.actor}:{c.time:.6f}")
        self.done = True

    def _start_EnvironmentAction(self, c: Any) -> None:
        c.set_environment(self.el.find("Environment"))
        self.done = True

    def _start_AddEntityAction(self, c: Any) -> None:
        e = c.entities[self.el.getparent().get("entityRef")]
        e.active = True
        place(e, c.motions[e.name], resolve(self.pos, c.net, c.entities), c.net)
        self.done = True

    def _start_DeleteEntityAction(self, c: Any) -> None:
        c.entities[self.el.getparent().get("entityRef")].active = False
        self.done = True

    def _start_ParameterSetAction(self, c: Any) -> None:
        c.set_param(self.el.getparent().get("parameterRef"), self.el.get("value"), "params")
        self.done = True

    def _start_VariableSetAction(self, c: Any) -> None:
        c.set_param(self.el.getparent().get("variableRef"), self.el.get("value"), "variables")
        self.done = True

    def _modify(self, c: Any, ref: str, store: str) -> None:
        rule = self.el.find("Rule")
        op = rule[0] if rule is not None and len(rule) else None
        try:
            cur = float(getattr(c, store).get(ref, 0.0))
        except (TypeError, ValueError):
            raise c.error(self.el, f"{self.name}.parameterRef", f"{ref!r} is not a number, cannot modify it") from None
        v = _f(op, "value")
        c.set_param(ref, cur + v if op is not None and op.tag == "AddValue" else cur * v, store)
        self.done = True

    def _start_ParameterModifyAction(self, c: Any) -> None:
        self._modify(c, self.el.getparent().get("parameterRef"), "params")

    def _start_VariableModifyAction(self, c: Any) -> None:
        self._modify(c, self.el.getparent().get("variableRef"), "variables")

    def _start_TrafficSwarmAction(self, c: Any) -> None:
        c.start_swarm(self.el)
        self.done = True

    def _start_TrafficStopAction(self, c: Any) -> None:
        c.stop_traffic(self.el.getparent().get("trafficName"))
        self.done = True

    def _start_TrafficSignalStateAction(self, c: Any) -> None:
        c.signals[self.el.get("name")] = self.el.get("state")
        self.done = True

    def _start_TrafficSignalControllerAction(self, c: Any) -> None:
        c.set_controller_phase(self.el.get("trafficSignalControllerRef"), self.el.get("phase"))
        self.done = True

    # ------------------------------------------------------------------ trajectories
    def _start_FollowTrajectoryAction(self, c: Any) -> None:
        e, m = c.entities[self.actor], c.motions[self.actor]
        traj = self.el.find("Trajectory")
        if traj is None:
            tr = self.el.find("TrajectoryRef")
            traj = tr.find("Trajectory") if tr is not None else None
        self.path = c.build_path(traj, self.el.find("TimeReference/Timing"), self.actor)
        mode = self.el.find("TrajectoryFollowingMode")
        shape = traj.find("Shape")
        if (self.path.times is not None and mode is not None and mode.get("followingMode") == "follow"
                and shape is not None and len(shape) and shape[0].tag == "Polyline"):
            self.path.follow_speeds(e.speed)
        off = _f(self.el, "initialDistanceOffset")
        self.path.s = off
        m.path = self.path
        m.path_done = self._path_done
        # the entity starts where the trajectory does (esmini puts it there on start; Init may give no other position)
        e.x, e.y, e.z, e.h = self.path.pose(off)
        e.lane = locate(c.net, e.x, e.y, e.z, e.h).lane

    def _path_done(self) -> None:
        self.done = True

    def _step_FollowTrajectoryAction(self, c: Any, dt: float) -> None:
        if c.motions[self.actor].path is not self.path:
            self.done = True


def _check_private(el: Any, name: str, eb: Any) -> Any:
    """Load-time checks; returns a parsed position for positional actions."""
    if name in ("TeleportAction", "AcquirePositionAction"):
        return parse_position(el.find("Position"), eb.file)
    if name == "AddEntityAction":
        return parse_position(el.find("Position"), eb.file)
    if name == "FollowTrajectoryAction":
        traj = el.find("Trajectory")
        if traj is None and el.find("TrajectoryRef") is not None:
            traj = el.find("TrajectoryRef/Trajectory")
        if traj is None:
            raise UnsupportedError("FollowTrajectoryAction", *eb.where(el), "no Trajectory")
        shape = traj.find("Shape")
        if shape is None or not len(shape) or shape[0].tag not in ("Polyline", "Clothoid", "ClothoidSpline", "Nurbs"):
            raise UnsupportedError(shape[0].tag if shape is not None and len(shape) else "Shape", *eb.where(traj))
    if name == "SpeedAction":
        t = el.find("SpeedActionTarget")
        if t is None or (t.find("AbsoluteTargetSpeed") is None and t.find("RelativeTargetSpeed") is None):
            raise eb.error(el, "SpeedAction.SpeedActionTarget", "expected AbsoluteTargetSpeed or RelativeTargetSpeed")
    return None


def make_action(action_xml: Any, actors: list[str], eb: Any) -> list[RuntimeAction]:
    """Runtime actions for an <Action> (or an Init <PrivateAction>/<GlobalAction>), checked at load."""
    inner = action_xml
    if inner.tag == "Action":
        kids = [k for k in inner if isinstance(k.tag, str)]
        if not kids:
            return []  # an empty placeholder action (scenario_runner writes them): it completes at once
        inner = kids[0]
    if inner.tag in ("UserDefinedAction", "CustomCommandAction"):
        raise UnsupportedError(inner.tag, *eb.where(inner))
    leaf, name = _leaf(inner)
    parent = leaf.getparent()
    if parent is not None and parent.tag == "ControllerAction" and leaf is not inner:
        kids = [k for k in parent if isinstance(k.tag, str)]
        if len(kids) > 1:  # OpenSCENARIO 1.0 writes AssignControllerAction and OverrideControllerValueAction together
            return [ra for k in kids for ra in make_action(k, actors, eb)]
    if inner.tag == "PrivateAction" or name in PRIVATE:
        if name not in PRIVATE:
            raise UnsupportedError(name, *eb.where(leaf))
        pos = _check_private(leaf, name, eb)
        out = []
        for a in actors:
            ra = RuntimeAction(leaf, name, a, eb)
            ra.pos = pos
            ra.domains = _domains(name, leaf)
            out.append(ra)
        return out
    if name not in GLOBAL:
        raise UnsupportedError(name, *eb.where(leaf))
    ra = RuntimeAction(leaf, name, None, eb)
    ra.pos = _check_private(leaf, name, eb)
    if name in ("AddEntityAction", "DeleteEntityAction"):
        ref = leaf.getparent().get("entityRef")
        if ref not in eb.entity_names:
            raise eb.error(leaf.getparent(), "EntityAction.entityRef", f"unknown entity {ref!r}")
    return [ra]


def _domains(name: str, el: Any) -> frozenset[str]:
    if name in ("SpeedAction", "LongitudinalDistanceAction", "SynchronizeAction", "SpeedProfileAction"):
        return frozenset({"long"})
    if name in ("LaneChangeAction", "LaneOffsetAction", "LateralDistanceAction"):
        return frozenset({"lat"})
    if name == "FollowTrajectoryAction":
        timed = el.find("TimeReference/Timing") is not None
        return frozenset({"lat", "path", "long"} if timed else {"lat", "path"})
    return frozenset()

