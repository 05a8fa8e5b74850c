"""Each condition type evaluated on a constructed snapshot; rules, groups, relative distances."""

from __future__ import annotations

import math

import pytest
from lxml import etree

from roadtest.errors import UnsupportedError
from roadtest.sim.api import Event, LanePos
from roadtest.sim.xosc.conditions import build_trigger, compare, rel_distance
from roadtest.sim.xosc.entities import EntityState
from roadtest.sim.xosc.positions import Resolved, parse_position, resolve
from roadtest.sim.xosc.storyboard import Element


def ent(name, x, y=0.0, h=0.0, speed=0.0, accel=0.0, length=4.0, width=2.0, cx=0.0, lane=None):
    return EntityState(name=name, category="car", role="scenario", length=length, width=width, height=1.5,
                       bbox_cx=cx, x=x, y=y, h=h, speed=speed, accel=accel, lane=lane)


class Ctx:
    """The engine surface conditions read, over a hand-made snapshot."""

    file = "t.xosc"

    def __init__(self, **ents):
        self.snap = ents
        self.entity_names = list(ents)
        self.time, self.tick = 0.0, 0.05
        self.params, self.variables, self.signals = {"p": 3.0, "s": "on"}, {"v": 1}, {"tl1": "red"}
        self.events: list[Event] = []
        self.elements: dict[str, Element] = {}
        self.odo, self.still = {}, {}

    # builder side
    def where(self, el):
        return self.file, el.sourceline or 0

    def error(self, el, field, msg):
        raise AssertionError(msg)

    def position(self, el):
        return parse_position(el, self.file)

    # runtime side
    def element(self, ref, etype):
        return self.elements.get(ref)

    def road_delta(self, a, b):
        if a.lane is None or b.lane is None or a.lane.road != b.lane.road:
            return None
        return b.lane.s - a.lane.s, b.lane.t - a.lane.t

    def resolve_position(self, spec, e=None):
        return resolve(spec, None, self.snap)

    def distance_to_position(self, e, r, dtype, fs, cs):
        p = ent("", r.x, r.y, r.h, length=0, width=0)
        return rel_distance(self, e, p, dtype, fs, cs)  # signed: the condition itself must take the absolute value

    def standstill_time(self, n):
        return self.still.get(n, 0.0)

    def odometer(self, n):
        return self.odo.get(n, 0.0)

    def end_of_road_time(self, n):
        return 0.0

    def offroad_time(self, n):
        return 0.0

    def collides(self, n, target, otype):
        from roadtest.sim.xosc.conditions import boxes_overlap
        return any(o.name != n and (target is None or o.name == target) and boxes_overlap(self.snap[n], o)
                   for o in self.snap.values())

    def controller_phase(self, name):
        return "go" if name == "ctl" else None

    def time_of_day(self):
        from datetime import datetime
        return datetime(2026, 6, 21, 12, 0, 0)


def cond(inner: str, trig: str = "A", edge: str = "none", delay: float = 0.0) -> str:
    if inner.lstrip().startswith(("<SimulationTime", "<StoryboardElement", "<Parameter", "<Variable", "<TrafficSignal", "<TimeOfDay")):
        body = f"<ByValueCondition>{inner}</ByValueCondition>"
    else:
        body = (f'<ByEntityCondition><TriggeringEntities triggeringEntitiesRule="any"><EntityRef entityRef="{trig}"/>'
                f"</TriggeringEntities><EntityCondition>{inner}</EntityCondition></ByEntityCondition>")
    return f'<Condition name="c" delay="{delay}" conditionEdge="{edge}">{body}</Condition>'


def trig(*groups: list[str]):
    xml = "<StartTrigger>" + "".join("<ConditionGroup>" + "".join(g) + "</ConditionGroup>" for g in groups) + "</StartTrigger>"
    return etree.fromstring(xml)


def holds(ctx, inner, trig_entity="A"):
    return build_trigger(trig([cond(inner, trig_entity)]), ctx).evaluate(ctx)


@pytest.mark.parametrize("a, b, rule, want", [
    (2, 1, "greaterThan", True), (1, 1, "greaterThan", False), (1, 1, "greaterOrEqual", True),
    (1, 2, "lessThan", True), (2, 2, "lessOrEqual", True), (2, 2, "equalTo", True), (2, 3, "notEqualTo", True),
    ("on", "on", "equalTo", True), ("on", "off", "equalTo", False), ("true", "True", "equalTo", True),
])
def test_rules(a, b, rule, want):
    assert compare(a, b, rule) is want


def test_value_conditions():
    c = Ctx(A=ent("A", 0))
    c.time = 2.0
    assert holds(c, '<SimulationTimeCondition value="1.5" rule="greaterThan"/>')
    assert not holds(c, '<SimulationTimeCondition value="2.5" rule="greaterThan"/>')
    assert holds(c, '<ParameterCondition parameterRef="p" value="3" rule="equalTo"/>')
    assert holds(c, '<ParameterCondition parameterRef="s" value="on" rule="equalTo"/>')
    assert not holds(c, '<VariableCondition variableRef="v" value="1" rule="greaterThan"/>')
    assert holds(c, '<TrafficSignalCondition name="tl1" state="red"/>')
    assert not holds(c, '<TrafficSignalCondition name="tl1" state="green"/>')
    assert holds(c, '<TrafficSignalControllerCondition trafficSignalControllerRef="ctl" phase="go"/>')
    assert holds(c, '<TimeOfDayCondition dateTime="2026-06-21T11:00:00" rule="greaterThan"/>')


def test_storyboard_element_state_and_transition_window():
    c = Ctx(A=ent("A", 0))
    ev = Element("event", "E", None)
    c.elements["E"] = ev
    sbe = '<StoryboardElementStateCondition storyboardElementType="event" storyboardElementRef="E" state="{}"/>'
    assert holds(c, sbe.format("standbyState")) and not holds(c, sbe.format("runningState"))
    ev.start(1.0)
    c.time = 1.0
    assert holds(c, sbe.format("startTransition")) and holds(c, sbe.format("runningState"))
    c.time = 1.05
    assert holds(c, sbe.format("startTransition"))  # seen by the next tick's evaluation
    c.time = 1.1
    assert not holds(c, sbe.format("startTransition"))
    ev.end(1.1)
    assert holds(c, sbe.format("endTransition")) and holds(c, sbe.format("completeState"))


def test_kinematic_entity_conditions():
    c = Ctx(A=ent("A", 0, speed=10, accel=-2), B=ent("B", 30, speed=4))
    assert holds(c, '<SpeedCondition value="9" rule="greaterThan"/>')
    assert holds(c, '<AccelerationCondition value="-1" rule="lessThan"/>')
    assert holds(c, '<RelativeSpeedCondition entityRef="B" value="6" rule="equalTo"/>')
    c.still["B"], c.odo["A"] = 2.5, 99.0
    assert holds(c, '<StandStillCondition duration="2"/>', "B") and not holds(c, '<StandStillCondition duration="3"/>', "B")
    assert not holds(c, '<TraveledDistanceCondition value="100"/>')
    c.odo["A"] = 100.0
    assert holds(c, '<TraveledDistanceCondition value="100"/>')


def test_distance_headway_and_ttc():
    c = Ctx(A=ent("A", 0, speed=10), B=ent("B", 30, speed=4))
    # cartesian centre distance 30; freespace subtracts both half-lengths: 26
    assert holds(c, '<RelativeDistanceCondition entityRef="B" relativeDistanceType="cartesianDistance" value="29.9" freespace="false" rule="greaterThan"/>')
    assert holds(c, '<RelativeDistanceCondition entityRef="B" relativeDistanceType="cartesianDistance" value="26.01" freespace="true" rule="lessThan"/>')
    assert holds(c, '<RelativeDistanceCondition entityRef="B" relativeDistanceType="longitudinal" value="26" freespace="true" rule="equalTo"/>')
    # B sees A 30 m behind it: a condition compares the distance, never a negative one
    assert holds(c, '<RelativeDistanceCondition entityRef="A" relativeDistanceType="longitudinal" value="29" freespace="false" rule="greaterThan"/>', "B")
    # headway = 26 m free space / 10 m/s; ttc = 26 / (10 - 4)
    assert holds(c, '<TimeHeadwayCondition entityRef="B" value="2.59" freespace="true" alongRoute="false" rule="greaterThan"/>')
    assert holds(c, '<TimeHeadwayCondition entityRef="B" value="2.61" freespace="true" alongRoute="false" rule="lessThan"/>')
    ttc = '<TimeToCollisionCondition value="{}" freespace="true" alongRoute="false" rule="lessThan"><TimeToCollisionConditionTarget><EntityRef entityRef="B"/></TimeToCollisionConditionTarget></TimeToCollisionCondition>'
    assert holds(c, ttc.format(26 / 6 + 0.01)) and not holds(c, ttc.format(26 / 6 - 0.01))
    c.snap["B"].speed = 12  # opening: no collision ahead
    assert not holds(c, ttc.format(1000))



def test_time_to_collision_towards_a_position_honours_freespace():
    # esmini's TrigByTimeToCollision passes the condition's freespace for a position target too
    c = Ctx(A=ent("A", 0, speed=10))  # front bumper 2 m ahead of the reference point
    ttc = ('<TimeToCollisionCondition value="2.9" freespace="{}" alongRoute="false" rule="lessThan">'
           '<TimeToCollisionConditionTarget><Position><WorldPosition x="30" y="0"/></Position>'
           '</TimeToCollisionConditionTarget></TimeToCollisionCondition>')
    assert holds(c, ttc.format("true"))  # 28 m from the bumper at 10 m/s: 2.8 s
    assert not holds(c, ttc.format("false"))  # 30 m from the reference point: 3.0 s


@pytest.mark.parametrize("bx, want", [(6.0, 0.25), (-1.0, 0.15), (-6.0, None)])
def test_time_headway_along_route_measures_the_euclidean_free_space_gap(bx, want):
    """alongRoute (deprecated) means the road system; the distance type stays euclidean (1.1+ default, as esmini)."""
    a = ent("A", 0, 0, speed=10, lane=LanePos("1", -1, 100.0, -1.75))
    b = ent("B", bx, 3.5, lane=LanePos("1", -2, 100.0 + bx, 1.75))  # one lane to the left: 1.5 m free sideways
    c = Ctx(A=a, B=b)
    thw = '<TimeHeadwayCondition entityRef="B" value="{}" freespace="true" alongRoute="true" rule="{}"/>'
    if want is None:  # wholly behind: headway undefined, no rule holds
        assert not holds(c, thw.format(100, "lessThan")) and not holds(c, thw.format(0, "greaterThan"))
        return
    # 6 m ahead: sqrt(2^2 + 1.5^2) = 2.5 m free; alongside (boxes overlap lengthwise): the 1.5 m sideways gap
    assert holds(c, thw.format(want - 0.01, "greaterThan")) and holds(c, thw.format(want + 0.01, "lessThan"))

def test_distance_conditions_compare_absolute_values():
    # OpenSCENARIO 1.x, 6.4 Distances: distances are in R+0; esmini's conditions compare fabs(distance) too
    c = Ctx(A=ent("A", 0, 0), B=ent("B", 30, -4))  # B is 30 m ahead of A and 4 m to its right
    rel = '<RelativeDistanceCondition entityRef="{}" relativeDistanceType="{}" value="{}" freespace="false" rule="{}"/>'
    assert not holds(c, rel.format("A", "longitudinal", 5, "lessThan"), "B")  # A is 30 m behind B, not within 5 m
    assert holds(c, rel.format("A", "longitudinal", 29.9, "greaterThan"), "B")
    assert not holds(c, rel.format("B", "lateral", 0.6, "lessThan"))  # 4 m to the right is not closer than 0.6 m
    assert holds(c, rel.format("B", "lateral", 3.9, "greaterThan"))
    assert holds(c, rel.format("B", "lateral", 4, "equalTo"))
    dist = '<DistanceCondition value="{}" freespace="false" rule="{}" relativeDistanceType="longitudinal"><Position><WorldPosition x="-20" y="0"/></Position></DistanceCondition>'
    assert not holds(c, dist.format(1, "lessThan"))  # the position is 20 m behind A
    assert holds(c, dist.format(20, "equalTo"))


def test_lateral_and_road_coordinates():
    a = ent("A", 0, 0, lane=LanePos("1", -1, 100.0, -1.5))
    b = ent("B", 20, 3.5, lane=LanePos("1", 1, 120.0, 2.0))
    c = Ctx(A=a, B=b)
    assert rel_distance(c, a, b, "lateral", False, "entity") == pytest.approx(3.5)
    assert rel_distance(c, a, b, "lateral", True, "entity") == pytest.approx(1.5)
    assert rel_distance(c, a, b, "longitudinal", False, "road") == pytest.approx(20.0)
    assert rel_distance(c, a, b, "lateral", False, "road") == pytest.approx(3.5)
    rotated = ent("R", 0, 0, h=math.pi / 2)
    assert rel_distance(c, rotated, b, "longitudinal", False, "entity") == pytest.approx(3.5)


def test_reach_position_distance_and_collision():
    c = Ctx(A=ent("A", 10, 1), B=ent("B", 13, 1))
    reach = '<ReachPositionCondition tolerance="{}"><Position><WorldPosition x="10" y="3"/></Position></ReachPositionCondition>'
    assert holds(c, reach.format(2.5)) and not holds(c, reach.format(1.5))
    dist = '<DistanceCondition value="5.1" freespace="false" rule="lessThan"><Position><WorldPosition x="14" y="4"/></Position></DistanceCondition>'
    assert holds(c, dist)
    col = '<CollisionCondition><EntityRef entityRef="B"/></CollisionCondition>'
    assert holds(c, col)  # boxes 4 m long, centres 3 m apart
    c.snap["B"].x = 14.5
    assert not holds(c, col)


def test_groups_and_all_rule_and_edges():
    c = Ctx(A=ent("A", 0, speed=5), B=ent("B", 0, speed=15))
    fast = '<SpeedCondition value="10" rule="greaterThan"/>'
    both = ('<Condition name="x" delay="0" conditionEdge="none"><ByEntityCondition><TriggeringEntities triggeringEntitiesRule="{}">'
            '<EntityRef entityRef="A"/><EntityRef entityRef="B"/></TriggeringEntities><EntityCondition>' + fast +
            '</EntityCondition></ByEntityCondition></Condition>')
    assert build_trigger(trig([both.format("any")]), c).evaluate(c)
    assert not build_trigger(trig([both.format("all")]), c).evaluate(c)
    t_true = cond('<SimulationTimeCondition value="-1" rule="greaterThan"/>')
    t_false = cond('<SimulationTimeCondition value="1" rule="greaterThan"/>')
    assert not build_trigger(trig([t_true, t_false]), c).evaluate(c)  # AND within a group
    assert build_trigger(trig([t_false], [t_true]), c).evaluate(c)  # OR across groups
    rising = build_trigger(trig([cond('<SimulationTimeCondition value="0.1" rule="greaterThan"/>', edge="rising")]), c)
    seen = []
    for k in range(6):
        c.time = k * 0.05
        seen.append(rising.evaluate(c))
    assert seen == [False, False, False, True, False, False]


def test_unsupported_condition_is_refused():
    c = Ctx(A=ent("A", 0))
    with pytest.raises(UnsupportedError, match="UserDefinedValueCondition"):
        build_trigger(trig([cond('<UserDefinedValueCondition name="x" value="1" rule="equalTo"/>')]), c)


def test_position_kinds_without_a_road():
    c = Ctx(A=ent("A", 10, 5, h=math.pi / 2))
    pos = etree.fromstring('<Position><RelativeObjectPosition entityRef="A" dx="2" dy="1"/></Position>')
    r = resolve(parse_position(pos, "t"), None, c.snap)
    assert (r.x, r.y) == (pytest.approx(9.0), pytest.approx(7.0))
    pos = etree.fromstring('<Position><RelativeWorldPosition entityRef="A" dx="2" dy="1"/></Position>')
    r = resolve(parse_position(pos, "t"), None, c.snap)
    assert (r.x, r.y) == (12.0, 6.0)
    with pytest.raises(UnsupportedError, match="GeoPosition"):
        parse_position(etree.fromstring('<Position><GeoPosition latitude="1" longitude="2"/></Position>'), "t")
    assert isinstance(r, Resolved)
