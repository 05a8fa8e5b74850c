"""Load-time checks of attribute values and required children, so a malformed file is a located UserError."""

from __future__ import annotations

import math
from typing import Any

from roadtest.errors import Problem, ScenarioError

__all__ = ["validate", "RULES"]

RULES = ("greaterThan", "lessThan", "equalTo", "greaterOrEqual", "lessOrEqual", "notEqualTo")
_AXLE = ("maxSteering", "wheelDiameter", "trackWidth", "positionX", "positionZ")
# tag -> (numeric attributes, the required ones among them)
NUMERIC: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "SimulationTimeCondition": (("value",), ("value",)),
    "SpeedCondition": (("value",), ("value",)),
    "AccelerationCondition": (("value",), ("value",)),
    "RelativeSpeedCondition": (("value",), ("value",)),
    "StandStillCondition": (("duration",), ("duration",)),
    "TraveledDistanceCondition": (("value",), ("value",)),
    "EndOfRoadCondition": (("duration",), ("duration",)),
    "OffroadCondition": (("duration",), ("duration",)),
    "ReachPositionCondition": (("tolerance",), ("tolerance",)),
    "DistanceCondition": (("value",), ("value",)),
    "RelativeDistanceCondition": (("value",), ("value",)),
    "TimeHeadwayCondition": (("value",), ("value",)),
    "TimeToCollisionCondition": (("value",), ("value",)),
    "Condition": (("delay",), ()),
    "AngleCondition": (("angle", "angleTolerance"), ("angle", "angleTolerance")),
    "RelativeAngleCondition": (("angle", "angleTolerance"), ("angle", "angleTolerance")),
    "RelativeClearanceCondition": (("distanceForward", "distanceBackward"), ()),
    "SpeedActionDynamics": (("value",), ()),
    "TransitionDynamics": (("value",), ()),
    "LaneChangeActionDynamics": (("value",), ()),
    "AbsoluteTargetSpeed": (("value",), ("value",)),
    "RelativeTargetSpeed": (("value",), ("value",)),
    "AbsoluteTargetLane": (("value",), ("value",)),
    "RelativeTargetLane": (("value",), ("value",)),
    "LaneChangeAction": (("targetLaneOffset",), ()),
    "LaneOffsetActionDynamics": (("maxLateralAcc",), ()),
    "AbsoluteTargetLaneOffset": (("value",), ("value",)),
    "RelativeTargetLaneOffset": (("value",), ("value",)),
    "WorldPosition": (("x", "y", "z", "h", "p", "r"), ()),
    "LanePosition": (("s", "offset", "laneId"), ("s", "laneId")),
    "RoadPosition": (("s", "t"), ("s",)),
    "RelativeLanePosition": (("dLane", "ds", "dsLane", "offset"), ()),
    "RelativeRoadPosition": (("ds", "dt"), ()),
    "RelativeWorldPosition": (("dx", "dy", "dz"), ()),
    "RelativeObjectPosition": (("dx", "dy", "dz"), ()),
    "Orientation": (("h", "p", "r"), ()),
    "Dimensions": (("width", "length", "height"), ()),
    "Center": (("x", "y", "z"), ()),
    "FrontAxle": (_AXLE, ()),
    "RearAxle": (_AXLE, ()),
    "Vertex": (("time",), ()),
    "Clothoid": (("curvature", "curvatureDot", "curvaturePrime", "length", "startTime", "stopTime"), ("length",)),
    "ClothoidSplineSegment": (("curvatureStart", "curvatureEnd", "length", "hOffset", "timeStart"), ("length",)),
    "ControlPoint": (("time", "weight"), ()),
    "Knot": (("value",), ("value",)),
    "Nurbs": (("order",), ("order",)),
    "Timing": (("scale", "offset"), ()),
    "LongitudinalDistanceAction": (("distance", "timeGap"), ()),
    "LateralDistanceAction": (("distance",), ()),
    "Event": (("maximumExecutionCount",), ()),
    "ManeuverGroup": (("maximumExecutionCount",), ()),
    "Phase": (("duration",), ()),
    "TrafficSignalController": (("delay",), ()),
    "FollowTrajectoryAction": (("initialDistanceOffset",), ()),
    "TrafficSwarmAction": (("innerRadius", "semiMajorAxis", "semiMinorAxis", "numberOfVehicles", "velocity"), ()),
    "SpeedProfileEntry": (("speed", "time"), ("speed",)),
    "TrailerHitch": (("dx",), ()),
    "TrailerCoupler": (("dx",), ()),
    "FromLaneCoordinates": (("pathS", "laneId", "laneOffset"), ("pathS",)),
    "FromRoadCoordinates": (("pathS", "t"), ("pathS",)),
    "Fog": (("visualRange",), ()),
    "Precipitation": (("intensity", "precipitationIntensity"), ()),
    "Sun": (("intensity", "illuminance", "azimuth", "elevation"), ()),
    "RoadCondition": (("frictionScaleFactor",), ()),
    "TrafficSignalStateAction": ((), ()),
    "AddValue": (("value",), ("value",)),
    "MultiplyByValue": (("value",), ("value",)),
}
UNBOUNDED = {"Performance": ("maxSpeed", "maxAcceleration", "maxDeceleration"),
             "DynamicConstraints": ("maxAcceleration", "maxDeceleration", "maxSpeed", "maxAccelerationRate",
                                    "maxDecelerationRate")}  # may be written as inf
ENUMS = {
    "rule": RULES,
    "conditionEdge": ("rising", "falling", "risingOrFalling", "none"),
    "priority": ("overwrite", "override", "skip", "parallel"),
    "dynamicsShape": ("linear", "cubic", "sinusoidal", "step"),
    "dynamicsDimension": ("rate", "time", "distance"),
    "triggeringEntitiesRule": ("any", "all"),
}
RULED = ("SimulationTimeCondition", "SpeedCondition", "AccelerationCondition", "RelativeSpeedCondition",
         "DistanceCondition", "RelativeDistanceCondition", "TimeHeadwayCondition",
         "TimeToCollisionCondition", "ParameterCondition", "VariableCondition", "TimeOfDayCondition")
REQUIRED = {  # tag -> attributes that must be present and non-empty (references, names)
    "LanePosition": ("roadId",), "RoadPosition": ("roadId",),
    "RelativeLanePosition": ("entityRef",), "RelativeRoadPosition": ("entityRef",),
    "RelativeWorldPosition": ("entityRef",), "RelativeObjectPosition": ("entityRef",),
    "EntityRef": ("entityRef",), "TimeHeadwayCondition": ("entityRef",), "RelativeDistanceCondition": ("entityRef",),
    "RelativeSpeedCondition": ("entityRef",), "RelativeTargetSpeed": ("entityRef",),
    "RelativeTargetLane": ("entityRef",), "RelativeTargetLaneOffset": ("entityRef",),
    "LongitudinalDistanceAction": ("entityRef",), "LateralDistanceAction": ("entityRef",),
    "SynchronizeAction": ("masterEntityRef",), "CentralObject": ("entityRef",),
    "StoryboardElementStateCondition": ("storyboardElementRef", "storyboardElementType", "state"),
    "ParameterCondition": ("parameterRef",), "TrafficSignalCondition": ("name", "state"),
    "TrafficSignalStateAction": ("name", "state"), "ConnectTrailerAction": ("trailerRef",),
    "RelativeAngleCondition": ("entityRef",),
}
CHILDREN = {
    "SpeedAction": (("SpeedActionDynamics", "TransitionDynamics"), ("SpeedActionTarget",)),
    "LaneChangeAction": (("LaneChangeActionDynamics",), ("LaneChangeTarget",)),
    "LaneOffsetAction": (("LaneOffsetActionDynamics",), ("LaneOffsetTarget",)),
    "TeleportAction": (("Position",),),
    "ReachPositionCondition": (("Position",),),
    "DistanceCondition": (("Position",),),
    "SpeedActionTarget": (("AbsoluteTargetSpeed", "RelativeTargetSpeed"),),
    "LaneChangeTarget": (("AbsoluteTargetLane", "RelativeTargetLane"),),
    "LaneOffsetTarget": (("AbsoluteTargetLaneOffset", "RelativeTargetLaneOffset"),),
    "TimeToCollisionCondition": (("TimeToCollisionConditionTarget",),),
    "TimeToCollisionConditionTarget": (("EntityRef", "Position"),),
    "ByEntityCondition": (("TriggeringEntities",), ("EntityCondition",)),
    "CollisionCondition": (("EntityRef", "ByType"),),
    "SynchronizeAction": (("TargetPositionMaster",), ("TargetPosition",)),
}


def _where(el: Any, file: str) -> tuple[str, int]:
    from roadtest.sim.xosc.parser import where

    return where(el, file)


def validate(root: Any, file: str) -> None:
    """Raise a ScenarioError listing every malformed number, unknown enumeration value or missing element."""
    problems: list[Problem] = []

    def bad(el: Any, field: str, msg: str) -> None:
        f, line = _where(el, file)
        problems.append(Problem(f, line, 0, field, msg))

    for el in root.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        spec = NUMERIC.get(tag)
        if spec is not None:
            numeric, required = spec
            for a in required:
                if el.get(a) in (None, ""):
                    bad(el, f"{tag}.{a}", "missing; expected a number")
            for a in numeric:
                v = el.get(a)
                if v in (None, ""):
                    continue
                try:
                    x = float(v)
                except ValueError:
                    bad(el, f"{tag}.{a}", f"expected a number, got {v!r}")
                    continue
                if not math.isfinite(x):
                    bad(el, f"{tag}.{a}", f"expected a finite number, got {v!r}")
        for a in UNBOUNDED.get(tag, ()):
            v = el.get(a)
            if v not in (None, ""):
                try:
                    if math.isnan(float(v)):
                        raise ValueError(v)
                except ValueError:
                    bad(el, f"{tag}.{a}", f"expected a number, got {v!r}")
        for a, allowed in ENUMS.items():
            v = el.get(a)
            if v is not None and v not in allowed:
                bad(el, f"{tag}.{a}", f"{v!r} is not one of {', '.join(allowed)}")
        if tag in RULED and el.get("rule") is None:
            bad(el, f"{tag}.rule", f"missing; expected one of {', '.join(RULES)}")
        for a in REQUIRED.get(tag, ()):
            if not el.get(a):
                bad(el, f"{tag}.{a}", "missing")
        for alternatives in CHILDREN.get(tag, ()):
            if not any(el.find(c) is not None for c in alternatives):
                bad(el, f"{tag}.{alternatives[0]}", f"missing <{'> or <'.join(alternatives)}>")
    if problems:
        raise ScenarioError(problems[:20])
