"""Scenario -> OpenSCENARIO 1.0 element tree inside scenario_runner 0.9.16's subset (scenariogeneration.xosc).

scenario_runner constraints kept here (what its OpenSCENARIO 1.0 parser reads or refuses): revMinor 0; header description not
starting with "CARLA:"; ego entity "hero" with Property type=ego_vehicle; every Act has a
SimulationTime StopTrigger; lane changes as RelativeTargetLane with distance dynamics; trajectories as
Polylines with vertex times (its parser reads them) under TimeReference None, paced by a SpeedAction;
no RoutePosition, AcquirePosition, AssignRoute, LanePosition offsets;
every Environment has TimeOfDay, Sun, Fog, Precipitation and RoadCondition.
The ego's own Act is named EGO_DEFAULT_ACT: a runtime that lets an agent drive the ego skips it.
"""

from __future__ import annotations

import datetime as _dt
import math
import xml.etree.ElementTree as ET

from scenariogeneration import xosc

from roadtest.dsl.model import ACTOR_DIMENSIONS, PEDESTRIAN_KINDS, STATIC_KINDS, driver_side
from roadtest.dsl.roads_build import Layout
from roadtest.dsl.roads_scene import Spot, side_t
from roadtest.dsl.signal_plan import light_phases

__all__ = ["EGO", "EGO_DEFAULT_ACT", "BLUEPRINTS", "xosc_element", "write_xosc", "environment", "light_phases"]

EGO = "hero"
EGO_DEFAULT_ACT = "ego_default"
FIXED_DATE = _dt.datetime(2024, 1, 1, 0, 0, 0)
SCENARIO_DAY = (2024, 6, 21)  # date in TimeOfDay; only the clock time matters

# kind -> (CARLA blueprint, OpenSCENARIO category)
BLUEPRINTS: dict[str, tuple[str, str]] = {
    "vehicle": ("vehicle.lincoln.mkz_2017", "car"), "truck": ("vehicle.carlamotors.carlacola", "truck"),
    "bus": ("vehicle.mitsubishi.fusorosa", "bus"), "emergency": ("vehicle.ford.ambulance", "van"),
    "motorcycle": ("vehicle.kawasaki.ninja", "motorbike"), "bicycle": ("vehicle.diamondback.century", "bicycle"),
    "broken_down_vehicle": ("vehicle.lincoln.mkz_2017", "car"),
    "pedestrian": ("walker.pedestrian.0001", "pedestrian"), "police_officer": ("walker.pedestrian.0030", "pedestrian"),
    "cone": ("static.prop.constructioncone", "obstacle"), "barrier": ("static.prop.streetbarrier", "barrier"),
}


def _bbox(kind: str) -> xosc.BoundingBox:
    length, width, height = ACTOR_DIMENSIONS[kind]
    return xosc.BoundingBox(width, length, height, length * 0.1 if length > 3 else 0.0, 0.0, height / 2)


def _vehicle(name: str, category: str, kind: str) -> xosc.Vehicle:
    length = ACTOR_DIMENSIONS[kind][0]
    front = xosc.Axle(0.5, 0.7, 1.6, length * 0.6, 0.35)
    rear = xosc.Axle(0.0, 0.7, 1.6, 0.0, 0.35)
    return xosc.Vehicle(name, getattr(xosc.VehicleCategory, category), _bbox(kind), front, rear, 70.0, 10.0, 10.0)


def _entity(kind: str, model: str | None):
    bp, cat = BLUEPRINTS[kind]
    if kind in PEDESTRIAN_KINDS:
        return xosc.Pedestrian(model or bp, 80.0, xosc.PedestrianCategory.pedestrian, _bbox(kind), model=model or bp)
    if kind in ("cone", "barrier"):
        return xosc.MiscObject(model or bp, 10.0, getattr(xosc.MiscObjectCategory, cat), _bbox(kind))
    return _vehicle(model or bp, cat, kind)


def _position(spot: Spot, h: float | None = None) -> xosc._PositionType:
    if spot.lane is not None and h is None:
        return xosc.LanePosition(spot.s, 0.0, spot.lane, spot.road)
    return xosc.WorldPosition(spot.x, spot.y, 0.0, spot.h if h is None else h, 0.0, 0.0)


def environment(env) -> xosc.Environment:
    """The 1.0 Environment of a model.Environment (cloud state, sun, fog, precipitation, friction)."""
    hh, mm = (int(v) for v in env.time_of_day.split(":"))
    tod = xosc.TimeOfDay(False, SCENARIO_DAY[0], SCENARIO_DAY[1], SCENARIO_DAY[2], hh, mm, 0)
    if env.precipitation == "rain" and env.precipitation_intensity > 0:
        cloud = xosc.CloudState.rainy
    else:
        cloud = xosc.CloudState.free if env.cloudiness <= 0.2 else (
            xosc.CloudState.cloudy if env.cloudiness <= 0.6 else xosc.CloudState.overcast)
    # OpenSCENARIO's Sun azimuth: 0 = north, clockwise (pi/2 east): east at 06:00, south at noon, west at 18:00
    azimuth = (math.pi * (hh + mm / 60.0) / 12.0) % (2 * math.pi)
    sun = xosc.Sun(round(1.0 - env.cloudiness, 4), round(azimuth, 6), round(env.sun_elevation, 6))
    fog = xosc.Fog(int(round(env.fog_visual_range)))
    ptype = {"none": xosc.PrecipitationType.dry, "rain": xosc.PrecipitationType.rain,
             "snow": xosc.PrecipitationType.snow}[env.precipitation]
    prec = xosc.Precipitation(ptype, env.precipitation_intensity if env.precipitation != "none" else 0.0)
    weather = xosc.Weather(cloudstate=cloud, sun=sun, fog=fog, precipitation=prec)
    return xosc.Environment("environment", tod, weather, xosc.RoadCondition(env.friction))


def _time_trigger(name: str, t: float, point: str = "start") -> xosc.ValueTrigger:
    return xosc.ValueTrigger(name, 0, xosc.ConditionEdge.none,
                             xosc.SimulationTimeCondition(t, xosc.Rule.greaterThan), triggeringpoint=point)


def _start_trigger(name: str, actor_id: str, trig, layout: Layout):
    """Trigger of a model.Trigger (None: at t = 0)."""
    if trig is None or trig.time is not None:
        return _time_trigger(name, trig.time if trig is not None else 0.0)
    if trig.ego_distance is not None:
        cond = xosc.RelativeDistanceCondition(trig.ego_distance, xosc.Rule.lessThan,
                                              xosc.RelativeDistanceType.cartesianDistance, actor_id, freespace=False)
    elif trig.ttc is not None:
        cond = xosc.TimeToCollisionCondition(trig.ttc, xosc.Rule.lessThan, alongroute=False, freespace=False,
                                             entity=actor_id)
    else:
        p = trig.distance_to_position
        rid, s = layout.main_to_road(p.s)
        lane = layout.odr_lane(p.lane) if p.lane is not None else None
        piece = layout.pieces[rid]
        t = piece.lane_center_t(lane, s) if lane is not None else 0.0
        x, y, h = piece.ref.point(s, t)
        cond = xosc.DistanceCondition(p.distance, xosc.Rule.lessThan, xosc.WorldPosition(x, y, 0.0, h),
                                      alongroute=False, freespace=False)  # straight-line distance
    return xosc.EntityTrigger(name, 0, xosc.ConditionEdge.none, cond, EGO)


def _speed(v: float, rate: float | None = None) -> xosc.AbsoluteSpeedAction:
    if rate is None:
        dyn = xosc.TransitionDynamics(xosc.DynamicsShapes.step, xosc.DynamicsDimension.time, 0)
    else:
        dyn = xosc.TransitionDynamics(xosc.DynamicsShapes.linear, xosc.DynamicsDimension.rate, rate)
    return xosc.AbsoluteSpeedAction(max(v, 0.0), dyn)


def _lane_change(actor_id: str, lanes_left: int, duration: float, speed: float) -> xosc.RelativeLaneChangeAction:
    dist = max(speed, 3.0) * duration
    dyn = xosc.TransitionDynamics(xosc.DynamicsShapes.sinusoidal, xosc.DynamicsDimension.distance, round(dist, 3))
    return xosc.RelativeLaneChangeAction(lanes_left, actor_id, dyn)


def _lanes_left(layout: Layout, user_from: int, user_to: int) -> int:
    """Signed lane count (positive: to the left) from one forward user lane to another."""
    return (user_from - user_to) * (-layout.fwd_sign)


def _crossing(actor, spot: Spot, b, layout: Layout) -> tuple[xosc.FollowTrajectoryAction, float]:
    piece = layout.pieces[spot.road]
    goal_t = side_t(piece, spot.s, driver_side(b.to, "right" if layout.fwd_sign < 0 else "left"),
                    "forward" if layout.runs_with_s(spot.arm) else "backward")
    x0, y0 = spot.x, spot.y
    x1, y1, _ = piece.ref.point(spot.s, goal_t)
    dur = max(math.hypot(x1 - x0, y1 - y0) / b.speed, 0.1)
    h = math.atan2(y1 - y0, x1 - x0)
    poly = xosc.Polyline([0.0, round(dur, 3)], [xosc.WorldPosition(x0, y0, 0.0, h), xosc.WorldPosition(x1, y1, 0.0, h)])
    traj = xosc.Trajectory(f"{actor.id}_crossing", False)
    traj.add_shape(poly)
    # TimeReference None: the trajectory steers only and the walker covers it at its SpeedAction's speed, so
    # no two actions compete for the longitudinal domain (a SpeedAction started after a timed trajectory
    # overrides it and the walker strolls along the kerb). scenario_runner reads the vertex times but walks
    # at the target speed either way; the times stay, consistent with that speed.
    action = xosc.FollowTrajectoryAction(traj, xosc.FollowingMode.position)
    return action, h


def _events(actor, spot: Spot, layout: Layout, n_fwd: int, ego_lane: int | None) -> list[xosc.Event]:
    """One Event per behaviour (pull_over adds a stop Event that starts when its lane change ends)."""
    events: list[xosc.Event] = []
    for i, b in enumerate(actor.behaviours):
        name = f"{actor.id}_{i}_{b.action}"
        ev = xosc.Event(name, xosc.Priority.parallel)
        extra: xosc.Event | None = None
        if b.action in ("keep_speed", "follow_lane"):
            ev.add_action(f"{name}_speed", _speed(b.speed if b.speed is not None else actor.speed))
        elif b.action == "change_speed":
            ev.add_action(f"{name}_speed", _speed(b.to, b.rate))
        elif b.action == "stop":
            ev.add_action(f"{name}_speed", _speed(0.0, b.rate))
        elif b.action == "change_lane":
            ev.add_action(f"{name}_lane", _lane_change(actor.id, b.lanes if b.direction == "left" else -b.lanes,
                                                       b.duration, actor.speed))
        elif b.action == "cut_in":
            user = spot.user_lane or 1
            target = ego_lane if b.target in ("ego", "hero") else user - 1
            ev.add_action(f"{name}_lane", _lane_change(actor.id, _lanes_left(layout, user, target) or 1,
                                                       b.duration, actor.speed))
        elif b.action == "cross_road":
            action, _ = _crossing(actor, spot, b, layout)
            ev.add_action(f"{name}_speed", _speed(b.speed))
            ev.add_action(f"{name}_walk", action)
        elif b.action == "pull_over":
            user = spot.user_lane or 1
            outer_side = "right" if layout.fwd_sign < 0 else "left"  # kerb side of forward traffic
            lanes_left = _lanes_left(layout, user, n_fwd if b.side == outer_side else 1)
            speed = actor.speed
            if lanes_left:
                ev.add_action(f"{name}_lane", _lane_change(actor.id, lanes_left, b.distance / max(speed, 3.0), speed))
                extra = xosc.Event(f"{name}_stop", xosc.Priority.parallel)
                extra.add_action(f"{name}_stop_speed", _speed(0.0, 2.0))
                extra.add_trigger(xosc.ValueTrigger(f"{name}_after", 0, xosc.ConditionEdge.none,
                                                    xosc.StoryboardElementStateCondition(
                                                        xosc.StoryboardElementType.event, name,
                                                        xosc.StoryboardElementState.endTransition)))
            else:
                ev.add_action(f"{name}_speed", _speed(0.0, 2.0))
        ev.add_trigger(_start_trigger(f"{name}_start", actor.id, b.trigger, layout))
        events.append(ev)
        if extra is not None:
            events.append(extra)
    return events


def _reacting(actor) -> xosc.Controller:
    """An ACCController (esmini's, which roadtest's engine drives) cruising at the actor's speed: it waits behind
    a slower ego instead of driving through it, (roadtest's crossingPath) brakes for one that crosses its path
    in a junction, (roadtest's obeySignals) stops at its red light and (roadtest's obeyLimits) keeps under the
    limit in force where it is; an emergency vehicle on call (siren on) is exempt from limits, as every
    catalogue country exempts it."""
    speed = next((b.speed for b in actor.behaviours if getattr(b, "speed", None) is not None and b.action != "cross_road"),
                 None)
    props = xosc.Properties()
    props.add_property("esminiController", "ACCController")
    props.add_property("setSpeed", f"{(speed if speed is not None else actor.speed):.4f}")
    props.add_property("timeGap", "1.0")
    props.add_property("mode", "override")
    props.add_property("crossingPath", "true")
    props.add_property("obeySignals", "true")
    props.add_property("obeyLimits", "false" if actor.kind == "emergency" and actor.siren_on else "true")
    return xosc.Controller(f"{actor.id}_reacts", props)


def _act(name: str, actor_id: str, events: list[xosc.Event], timeout: float) -> xosc.Act:
    man = xosc.Maneuver(f"{name}_maneuver")
    for ev in events:
        man.add_event(ev)
    group = xosc.ManeuverGroup(f"{name}_group")
    group.add_actor(actor_id)
    group.add_maneuver(man)
    act = xosc.Act(name, _time_trigger(f"{name}_start", 0.0), _time_trigger(f"{name}_stop", timeout, "stop"))
    act.add_maneuver_group(group)
    return act


def build_scenario(variant, layout: Layout, spots: dict[str, Spot], lights: list[dict]) -> xosc.Scenario:
    """The scenariogeneration Scenario (OpenSCENARIO 1.0) of a variant."""
    sc = variant.scenario
    timeout = sc.expect.timeout
    entities = xosc.Entities()
    ego = _vehicle(sc.ego.model, "car", "ego")
    ego.add_property("type", "ego_vehicle")
    entities.add_scenario_object(EGO, ego)
    for a in sc.actors:
        ent = _entity(a.kind, a.model)
        if a.kind == "emergency":
            ent.add_property("siren", "true" if a.siren_on else "false")
        entities.add_scenario_object(a.id, ent, controller=_reacting(a) if a.reacts else None)
    init = xosc.Init()
    init.add_global_action(xosc.EnvironmentAction(environment(sc.environment)))
    init.add_init_action(EGO, xosc.TeleportAction(_position(spots[EGO])))
    init.add_init_action(EGO, _speed(sc.ego.speed))
    story = xosc.Story("roadtest_story")
    ego_speed = sc.ego.speed if sc.ego.speed > 0 else (sc.road.speed_limit or 30 / 3.6)
    ego_ev = xosc.Event("ego_keep_lane", xosc.Priority.parallel)
    ego_ev.add_action("ego_keep_speed", _speed(ego_speed))
    ego_ev.add_trigger(_time_trigger("ego_keep_lane_start", 0.0))
    story.add_act(_act(EGO_DEFAULT_ACT, EGO, [ego_ev], timeout))
    for a in sc.actors:
        spot = spots[a.id]
        h = None
        cross = next((b for b in a.behaviours if b.action == "cross_road"), None)
        if cross is not None:
            _, h = _crossing(a, spot, cross, layout)
        init.add_init_action(a.id, xosc.TeleportAction(_position(spot, h)))
        if a.kind not in STATIC_KINDS - {"broken_down_vehicle"}:
            init.add_init_action(a.id, _speed(a.speed))
        if a.reacts:
            init.add_init_action(a.id, xosc.ActivateControllerAction(lateral=False, longitudinal=True))
        events = _events(a, spot, layout, sc.road.lanes.forward, sc.ego.lane)
        if events:
            story.add_act(_act(f"{a.id}_act", a.id, events, timeout))
    stop = _time_trigger("timeout", timeout, "stop")
    board = xosc.StoryBoard(init, stop)
    board.add_story(story)
    road_net = xosc.RoadNetwork(roadfile="road.xodr", scenegraph="")
    for light in lights:
        ctrl = xosc.TrafficSignalController(f"controller_{light['id']}")
        for k, (state, dur) in enumerate(light["phases_rotated"]):
            ph = xosc.Phase(f"{light['id']}_phase{k}_{state}", dur)
            ph.add_signal_state(light["signal_id"], state)
            ctrl.add_phase(ph)
        road_net.add_traffic_signal_controller(ctrl)
    for a in sc.actors:
        if a.signal:  # an officer's stop/go: a controller whose signal is the officer, so the trace keys it by its id
            ctrl = xosc.TrafficSignalController(f"controller_{a.id}")
            for k, p in enumerate(a.signal):
                ph = xosc.Phase(f"{a.id}_phase{k}_{p.state}", p.duration)
                ph.add_signal_state(a.id, p.state)
                ctrl.add_phase(ph)
            road_net.add_traffic_signal_controller(ctrl)
    return xosc.Scenario(f"roadtest {sc.name}: {variant.id}", "roadtest", xosc.ParameterDeclarations(), entities,
                         board, road_net, xosc.Catalog(), osc_minor_version=0, creation_date=FIXED_DATE)


def xosc_element(variant, layout: Layout, spots: dict[str, Spot], lights: list[dict]) -> ET.Element:
    """The <OpenSCENARIO> element (1.0)."""
    return build_scenario(variant, layout, spots, lights).get_element()


def write_xosc(variant, layout: Layout, spots: dict[str, Spot], lights: list[dict], path) -> None:
    """Write scenario.xosc (pretty-printed UTF-8)."""
    el = xosc_element(variant, layout, spots, lights)
    ET.indent(el)
    ET.ElementTree(el).write(path, encoding="utf-8", xml_declaration=True)
