"""Property-based (hypothesis) generation of small valid OpenSCENARIO 1.2 files, one strategy per action family.

Test data builders, not part of roadtest. A Case is one scenario and the road it drives on (xosc_gen_roads);
FAMILIES maps a family's name to its strategy. Every case ends by a SimulationTimeCondition stop trigger, so
both players run it for the same time. Numbers are drawn on coarse grids, so that shrinking ends on readable
values and a kept file is short.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from xosc_gen_roads import junction_xodr, road_xodr

__all__ = ["Case", "FAMILIES", "scenario_xosc", "vehicle"]


@dataclass(frozen=True)
class Case:
    """One generated scenario: its family, the .xosc text and the .xodr it names (road.xodr beside it)."""

    family: str
    xosc: str
    xodr: str
    deliberate: str = ""  # a difference roadtest keeps from esmini on purpose, which this case exercises

    @property
    def name(self) -> str:
        return f"{self.family}_{hashlib.sha1((self.xosc + self.xodr).encode()).hexdigest()[:10]}"

    def write(self, folder: Path) -> Path:
        """Write scenario.xosc and road.xodr into `folder`; return the .xosc's path."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "road.xodr").write_text(self.xodr)
        (folder / "scenario.xosc").write_text(self.xosc)
        return folder / "scenario.xosc"


def grid(lo: float, hi: float, step: float) -> st.SearchStrategy[float]:
    """Floats lo..hi on a grid of `step` (shrinks towards lo)."""
    n = int(round((hi - lo) / step))
    return st.integers(0, n).map(lambda i: round(lo + i * step, 6))


def vehicle(name: str) -> str:
    """A 4.5 m car whose reference point is its rear axle (bounding-box centre 1.4 m ahead)."""
    return (f'    <ScenarioObject name="{name}">\n'
            '      <Vehicle name="car" vehicleCategory="car"><ParameterDeclarations/>\n'
            '        <BoundingBox><Center x="1.4" y="0" z="0.75"/><Dimensions width="2.0" length="4.5" height="1.5"/></BoundingBox>\n'
            '        <Performance maxSpeed="70" maxAcceleration="10" maxDeceleration="10"/>\n'
            '        <Axles><FrontAxle maxSteering="0.5" wheelDiameter="0.6" trackWidth="1.8" positionX="2.8" positionZ="0.3"/>'
            '<RearAxle maxSteering="0" wheelDiameter="0.6" trackWidth="1.8" positionX="0" positionZ="0.3"/></Axles>\n'
            "        <Properties/>\n      </Vehicle>\n    </ScenarioObject>\n")


def _time_trigger(t: float, rule: str = "greaterThan") -> str:
    return ('<StartTrigger><ConditionGroup><Condition name="at" delay="0" conditionEdge="none"><ByValueCondition>'
            f'<SimulationTimeCondition value="{t:g}" rule="{rule}"/></ByValueCondition></Condition></ConditionGroup>'
            "</StartTrigger>")


def lane_pos(road: int, lane: int, s: float, offset: float = 0.0) -> str:
    return f'<Position><LanePosition roadId="{road}" laneId="{lane}" s="{s:g}" offset="{offset:g}"/></Position>'


def speed_step(v: float) -> str:
    return ('<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape="step" value="0" '
            f'dynamicsDimension="time"/><SpeedActionTarget><AbsoluteTargetSpeed value="{v:g}"/></SpeedActionTarget>'
            "</SpeedAction></LongitudinalAction>")


def scenario_xosc(init: dict[str, tuple[str, float]], events: list[tuple[str, float, str]], stop: float) -> str:
    """A scenario on road.xodr: `init` entity -> (Position element, speed); `events` (actor, start time,
    PrivateAction content) each in its own event; a stop trigger at `stop` s."""
    ents = "".join(vehicle(n) for n in init)
    inits = "".join(f'      <Private entityRef="{n}"><PrivateAction><TeleportAction>{pos}</TeleportAction></PrivateAction>'
                    f"<PrivateAction>{speed_step(v)}</PrivateAction></Private>\n" for n, (pos, v) in init.items())
    groups = ""
    for i, (actor, t, action) in enumerate(events):
        groups += (f'      <ManeuverGroup maximumExecutionCount="1" name="G{i}"><Actors selectTriggeringEntities="false">'
                   f'<EntityRef entityRef="{actor}"/></Actors><Maneuver name="M{i}">'
                   f'<Event name="E{i}" priority="override"><Action name="A{i}"><PrivateAction>{action}</PrivateAction>'
                   f"</Action>{_time_trigger(t)}</Event></Maneuver></ManeuverGroup>\n")
    stop_trigger = ('<StopTrigger><ConditionGroup><Condition name="end" delay="0" conditionEdge="none"><ByValueCondition>'
                    f'<SimulationTimeCondition value="{stop:g}" rule="greaterThan"/></ByValueCondition></Condition>'
                    "</ConditionGroup></StopTrigger>")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<OpenSCENARIO>\n'
            '  <FileHeader revMajor="1" revMinor="2" date="2026-01-01T00:00:00" description="generated" author="roadtest"/>\n'
            "  <ParameterDeclarations/>\n  <CatalogLocations/>\n"
            '  <RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>\n'
            f"  <Entities>\n{ents}  </Entities>\n  <Storyboard>\n    <Init><Actions>\n{inits}    </Actions></Init>\n"
            f'    <Story name="S"><Act name="Act">\n{groups}      {_time_trigger(0)}</Act></Story>\n'
            f"    {stop_trigger}\n  </Storyboard>\n</OpenSCENARIO>\n")


@st.composite
def plain_road(draw) -> tuple[str, str]:
    """(shape, .xodr) of a non-junction road; curvature small enough that no road turns more than 3 rad."""
    shape = draw(st.sampled_from(("straight", "arc", "spiral", "width")))
    k = draw(grid(0.002, 0.01, 0.001)) * draw(st.sampled_from((1, -1)))
    w = draw(grid(2.5, 4.5, 0.25))
    return shape, road_xodr(shape, curvature=k, width=w)


_SHAPES = ("step", "linear", "cubic", "sinusoidal")


@st.composite
def speed_case(draw) -> Case:
    """SpeedAction (absolute or relative target, each shape and dimension) or SpeedProfileAction."""
    _, xodr = draw(plain_road())
    v0 = draw(grid(0, 20, 1))
    init = {"Ego": (lane_pos(1, draw(st.sampled_from((-1, -2))), draw(grid(5, 30, 5))), v0)}
    t1 = draw(grid(0, 2, 0.5))
    if draw(st.booleans()):
        shape = draw(st.sampled_from(_SHAPES))
        dim = draw(st.sampled_from(("time", "distance", "rate")))
        value = draw(grid(1, 5, 0.5)) if dim != "distance" else draw(grid(5, 40, 5))
        if draw(st.booleans()):
            target = f'<AbsoluteTargetSpeed value="{draw(grid(0, 20, 1)):g}"/>'
        else:
            init["Lead"] = (lane_pos(1, -1, 80), draw(grid(0, 15, 1)))
            kind = draw(st.sampled_from(("delta", "factor")))
            val = draw(grid(-5, 5, 1)) if kind == "delta" else draw(grid(0.5, 1.5, 0.25))
            target = (f'<RelativeTargetSpeed entityRef="Lead" value="{val:g}" speedTargetValueType="{kind}" '
                      f'continuous="{str(draw(st.booleans())).lower()}"/>')
        action = (f'<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape="{shape}" value="{value:g}" '
                  f'dynamicsDimension="{dim}"/><SpeedActionTarget>{target}</SpeedActionTarget></SpeedAction>'
                  "</LongitudinalAction>")
    else:
        n = draw(st.integers(1, 3))
        entries = "".join(f'<SpeedProfileEntry speed="{draw(grid(0, 20, 1)):g}" time="{draw(grid(0.5, 3, 0.5)):g}"/>'
                          for _ in range(n))
        mode = draw(st.sampled_from(("position", "follow")))
        dc = ""
        if draw(st.booleans()):
            dc = (f'<DynamicConstraints maxAcceleration="{draw(grid(1, 5, 1)):g}" '
                  f'maxDeceleration="{draw(grid(1, 8, 1)):g}" maxSpeed="30"/>')
        action = (f'<LongitudinalAction><SpeedProfileAction followingMode="{mode}">{dc}{entries}</SpeedProfileAction>'
                  "</LongitudinalAction>")
    return Case("speed", scenario_xosc(init, [("Ego", t1, action)], stop=draw(grid(4, 10, 1))), xodr)


@st.composite
def lane_change_case(draw) -> Case:
    """LaneChangeAction (relative or absolute target lane, each shape, time or distance) or LaneOffsetAction."""
    _, xodr = draw(plain_road())
    lane = draw(st.sampled_from((-1, -2)))
    init = {"Ego": (lane_pos(1, lane, draw(grid(5, 30, 5))), draw(grid(3, 20, 1)))}
    shape = draw(st.sampled_from(_SHAPES))
    if draw(st.booleans()):
        other = -3 - lane  # the other driving lane on the right
        dim = draw(st.sampled_from(("time", "distance")))
        value = draw(grid(1, 5, 0.5)) if dim == "time" else draw(grid(10, 60, 5))
        if draw(st.booleans()):
            target = f'<RelativeTargetLane entityRef="Ego" value="{-1 if other < lane else 1}"/>'
        else:
            target = f'<AbsoluteTargetLane value="{other}"/>'
        off = f' targetLaneOffset="{draw(grid(-0.5, 0.5, 0.25)):g}"' if draw(st.booleans()) else ""
        action = (f'<LateralAction><LaneChangeAction{off}><LaneChangeActionDynamics dynamicsShape="{shape}" '
                  f'value="{value:g}" dynamicsDimension="{dim}"/><LaneChangeTarget>{target}</LaneChangeTarget>'
                  "</LaneChangeAction></LateralAction>")
    else:
        shape = draw(st.sampled_from(("step", "linear", "cubic", "sinusoidal")))
        acc = f' maxLateralAcc="{draw(grid(0.5, 3, 0.5)):g}"' if draw(st.booleans()) else ""
        action = (f'<LateralAction><LaneOffsetAction continuous="{str(draw(st.booleans())).lower()}">'
                  f'<LaneOffsetActionDynamics dynamicsShape="{shape}"{acc}/><LaneOffsetTarget>'
                  f'<AbsoluteTargetLaneOffset value="{draw(grid(-1.5, 1.5, 0.25)):g}"/></LaneOffsetTarget>'
                  "</LaneOffsetAction></LateralAction>")
    return Case("lane_change", scenario_xosc(init, [("Ego", draw(grid(0, 2, 0.5)), action)],
                                             stop=draw(grid(4, 10, 1))), xodr)


@st.composite
def lateral_distance_case(draw) -> Case:
    """LateralDistanceAction to a car in the next lane: continuous or not, freespace or not, with and without
    DynamicConstraints, each coordinate system and displacement."""
    _, xodr = draw(plain_road())
    v = draw(grid(3, 15, 1))
    s0 = draw(grid(10, 40, 5))
    init = {"Ref": (lane_pos(1, -1, s0 + draw(grid(-5, 5, 1))), v), "Ego": (lane_pos(1, -2, s0), v)}
    attrs = (f'entityRef="Ref" continuous="{str(draw(st.booleans())).lower()}" '
             f'freespace="{str(draw(st.booleans())).lower()}"')
    if draw(st.booleans()):
        attrs += f' distance="{draw(grid(2, 6, 0.5)):g}"'
    # the forms both players read alike come more often than those the docs give as differing on purpose
    cs = draw(st.sampled_from(("", "entity", "road", "", "entity", "road", "lane")))
    if cs:
        attrs += f' coordinateSystem="{cs}"'
    disp = draw(st.sampled_from(("leftToReferencedEntity", "rightToReferencedEntity", "leftToReferencedEntity",
                                 "rightToReferencedEntity", "", "any")))  # esmini quits on "any" (not counted)
    if disp:
        attrs += f' displacement="{disp}"'
    dc, speed_only = "", False
    if draw(st.booleans()):
        dc = f'<DynamicConstraints maxSpeed="{draw(grid(0.5, 3, 0.5)):g}"'
        speed_only = not draw(st.booleans())
        if not speed_only:
            dc += f' maxAcceleration="{draw(grid(0.5, 5, 0.5)):g}"'
        dc += "/>"
    deliberate = ""
    if cs == "lane":
        deliberate = "coordinateSystem lane: esmini does not support it (the action leaves the car to its lane)"
    elif disp in ("", "any"):
        deliberate = "displacement any: roadtest keeps the side the car is on (esmini: always left)"
    elif cs in ("", "entity") and speed_only:
        deliberate = "entity frame with maxSpeed alone: roadtest limits the sideways speed (esmini jumps)"
    action = f"<LateralAction><LateralDistanceAction {attrs}>{dc}</LateralDistanceAction></LateralAction>"
    return Case("lateral_distance", scenario_xosc(init, [("Ego", draw(grid(0, 2, 0.5)), action)],
                                                  stop=draw(grid(4, 10, 1))), xodr, deliberate)


def _world(x: float, y: float, h: float | None = None) -> str:
    return f'<WorldPosition x="{x:.3f}" y="{y:.3f}"' + (f' h="{h:.4f}"' if h is not None else "") + "/>"


@st.composite
def trajectory_case(draw) -> Case:
    """FollowTrajectoryAction on a straight road: polyline, clothoid or NURBS, with and without a time
    reference (absolute or relative, scale and offset), position or follow mode."""
    xodr = road_xodr("straight")
    s0, v = draw(grid(10, 30, 5)), draw(grid(3, 15, 1))
    init = {"Ego": (lane_pos(1, -1, s0), v)}
    y0 = -1.75
    timed = draw(st.booleans())
    kind = draw(st.sampled_from(("polyline", "clothoid", "nurbs")))
    if kind == "polyline":
        n = draw(st.integers(2, 5))
        pts, x, y, t = [], s0, y0, 0.0
        for _ in range(n):
            pts.append((x, y, t))
            x += draw(grid(5, 30, 5))
            y = min(3.0, max(-7.5, y + draw(grid(-3, 3, 0.5))))  # on the road's four lanes
            t += draw(grid(0.5, 4, 0.5))
        shape = "<Polyline>" + "".join(
            f'<Vertex{f" time={chr(34)}{t:g}{chr(34)}" if timed else ""}><Position>{_world(x, y)}</Position></Vertex>'
            for x, y, t in pts) + "</Polyline>"
    elif kind == "clothoid":
        length = draw(grid(10, 60, 10))
        # curvature and its rate through the lateral offsets they give at the end (k L^2/2, k' L^3/6): on the road
        k = round(2 * draw(grid(-3, 3, 0.5)) / length ** 2, 6)
        dk = round(6 * draw(grid(-2, 2, 0.5)) / length ** 3, 8)
        times = f' startTime="0" stopTime="{draw(grid(2, 10, 1)):g}"' if timed else ""
        shape = (f'<Clothoid curvature="{k:g}" curvaturePrime="{dk:g}" length="{length:g}"{times}>'
                 f"<Position>{_world(s0, y0, 0.0)}</Position></Clothoid>")
    else:
        order = draw(st.integers(2, 4))
        n = draw(st.integers(order, 5))
        cps, x, y, t = "", s0, y0, 0.0
        for _ in range(n):
            cps += (f'<ControlPoint{f" time={chr(34)}{t:g}{chr(34)}" if timed else ""}><Position>{_world(x, y)}'
                    "</Position></ControlPoint>")
            x += draw(grid(5, 25, 5))
            y = min(3.0, max(-7.5, y + draw(grid(-3, 3, 0.5))))
            t += draw(grid(1, 4, 0.5))
        m = n + order
        knots = [0.0] * order + [float(i) for i in range(1, m - 2 * order + 1)] + [float(m - 2 * order + 1)] * order
        shape = (f'<Nurbs order="{order}">{cps}' + "".join(f'<Knot value="{k:g}"/>' for k in knots) + "</Nurbs>")
    tref, deliberate = "<TimeReference><None/></TimeReference>", ""
    if timed:
        dom = draw(st.sampled_from(("absolute", "relative")))
        scale, offset = 1.0, 0.0
        if draw(st.integers(0, 2)) == 2:  # a third of the timed cases transform the times
            scale, offset = draw(st.sampled_from((1.0, 0.5, 1.5, 2.0))), draw(st.sampled_from((0.0, 0.5, 1.0, 2.0)))
        tref = (f'<TimeReference><Timing domainAbsoluteRelative="{dom}" scale="{scale:g}" '
                f'offset="{offset:g}"/></TimeReference>')
        if (scale, offset) != (1.0, 0.0):
            deliberate = "Timing scale/offset: vertex time t is reached at t*scale+offset (esmini: (t-offset)/scale)"
    mode = draw(st.sampled_from(("position", "follow")))
    action = (f'<RoutingAction><FollowTrajectoryAction><TrajectoryRef><Trajectory name="T" closed="false"><Shape>'
              f"{shape}</Shape></Trajectory></TrajectoryRef>{tref}"
              f'<TrajectoryFollowingMode followingMode="{mode}"/></FollowTrajectoryAction></RoutingAction>')
    return Case("trajectory", scenario_xosc(init, [("Ego", draw(grid(0, 1, 0.5)), action)],
                                            stop=draw(grid(4, 10, 1))), xodr, deliberate)


@st.composite
def route_case(draw) -> Case:
    """AssignRouteAction through the junction to one of its three exits, each route strategy, two or three
    waypoints; the car then drives on under its default controller."""
    radius = draw(grid(15, 40, 5))
    xodr = junction_xodr(radius)
    s0, v = draw(grid(20, 70, 10)), draw(grid(5, 15, 1))
    init = {"Ego": (lane_pos(1, -1, s0), v)}
    exit_road = draw(st.sampled_from((2, 3, 4)))
    strat = lambda: draw(st.sampled_from(("shortest", "fastest", "leastIntersections")))  # noqa: E731
    wps = [lane_pos(1, -1, s0 + 5)]
    if draw(st.booleans()):
        wps.append(lane_pos(exit_road + 8, -1, draw(grid(1, 10, 1))))  # on the connecting road (10, 11, 12)
    wps.append(lane_pos(exit_road, -1, draw(grid(5, 60, 5))))
    points = "".join(f'<Waypoint routeStrategy="{strat()}">{p}</Waypoint>' for p in wps)
    action = (f'<RoutingAction><AssignRouteAction><Route name="R" closed="false">{points}</Route>'
              "</AssignRouteAction></RoutingAction>")
    stop = min(draw(grid(4, 12, 1)), math.floor((100 - s0 + 20 + 90) / v))  # off road 4's end by then
    return Case("route", scenario_xosc(init, [("Ego", draw(grid(0, 1, 0.5)), action)], stop=max(stop, 2)), xodr)


FAMILIES = {"speed": speed_case(), "lane_change": lane_change_case(), "lateral_distance": lateral_distance_case(),
            "trajectory": trajectory_case(), "route": route_case()}
