"""Pydantic models of a scenario file; values are converted to SI units as they are read.

Units: speeds are written in km/h and angles in degrees in YAML; the model holds m/s and radians
(every field description says which). Lengths are metres, times seconds, everywhere.

Lane and s conventions (for authors and for the emitters):
- `lane: 1` is the first lane in the forward direction counting from the road's centre line,
  `lane: 2` the next one outwards, up to `road.lanes.forward`. `lane: -1` is the first lane of
  the opposite (oncoming) direction, down to `-road.lanes.backward`. Lane 0 does not exist.
  With right-hand traffic (most countries) forward lanes are OpenDRIVE lanes -1, -2, ... (right of
  the reference line); with left-hand traffic (JP, GB, ...) they are +1, +2, ... `driving_side()`
  tells which.
- `s` is metres along the main road's reference line from its start, whatever the lane's direction.
  For junction kinds (intersection, t_junction, roundabout) the main road is the ego's approach arm:
  it runs from s = 0 to s = road.length, where it meets the junction. For highway_merge it is the
  main carriageway; the on-ramp joins it at `road.ramp.merge_s`.
- A pedestrian or police officer may stand on the roadside with `place: {side: kerb, s: ...}`
  instead of a lane.
- Junction arms (`arm: left | right | opposite` on actor places, signs and crosswalks; absent: the
  ego's approach) are named as the ego sees them on its approach. Each arm is described as if it were
  the approach of a driver coming from it: `s` runs from the arm's outer end toward the junction (the
  arm is road.length long), lane 1 is the first lane driving toward the junction, `kerb` is that
  driver's kerb. Lanes toward the junction on an arm number road.lanes.backward, lanes away from it
  road.lanes.forward (the arm's lanes are the approach's, seen from the other end).
- Sides (signs, traffic lights, roadside places) are the driver's: `kerb` is the roadside next to
  the driver's own lane (right in right-hand traffic, left in JP, GB, ...), `far` the one across the
  oncoming lanes; `left` and `right` are the driver's left and right. The driver is the one the
  sign faces (`direction`), for places and lights the forward driver. `driver_side()` resolves them.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from roadtest.kinds import WALKERS, scenario_kinds
from roadtest.units import KMH

__all__ = [
    "KMH", "WEATHER_PRESETS", "TIME_PRESETS", "ACTOR_DIMENSIONS", "STATIC_KINDS", "PEDESTRIAN_KINDS",
    "LEFT_HAND_COUNTRIES", "MARKINGS", "YELLOW_CENTRE_COUNTRIES", "JUNCTION_KINDS", "centre_colour", "driving_side", "driver_side", "sun_elevation", "lane_order", "resolve_placements",
    "ARMS", "Arm", "resolve_arms",
    "Environment", "Lanes", "Markings", "Section", "Crosswalk", "StopLine", "LightPhase",
    "TrafficLight", "SignalPlan", "OfficerPhase", "Sign", "Ramp", "Road", "Route", "RouteStop", "Ego", "Place",
    "Trigger", "PositionTrigger",
    "KeepSpeed", "ChangeSpeed", "ChangeLane", "CutIn", "Stop", "CrossRoad", "FollowLane", "PullOver",
    "Behaviour", "Actor", "Traffic", "RuleRef", "Expect", "SearchParam", "Scenario", "ActorKind", "Marking", "WeatherPreset",
]


def _kmh(v: float) -> float:
    return v * KMH


def _deg(v: float) -> float:
    return math.radians(v)


SpeedKmh = Annotated[float, Field(ge=0), AfterValidator(_kmh)]
OptSpeedKmh = Union[Annotated[float, Field(gt=0), AfterValidator(_kmh)], None]
Metres = Annotated[float, Field(ge=0)]
Positive = Annotated[float, Field(gt=0)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


# ---------------------------------------------------------------- environment

WEATHER_PRESETS: dict[str, dict[str, Any]] = {
    # cloudiness 0..1, precipitation type, intensity 0..1, fog visual range m, wetness 0..1, friction
    "clear": dict(cloudiness=0.1, precipitation="none", precipitation_intensity=0.0, fog_visual_range=100000.0, wetness=0.0, friction=1.0),
    "cloudy": dict(cloudiness=0.8, precipitation="none", precipitation_intensity=0.0, fog_visual_range=100000.0, wetness=0.0, friction=1.0),
    "wet": dict(cloudiness=0.5, precipitation="none", precipitation_intensity=0.0, fog_visual_range=100000.0, wetness=0.7, friction=0.8),
    "rain_light": dict(cloudiness=0.8, precipitation="rain", precipitation_intensity=0.3, fog_visual_range=5000.0, wetness=0.6, friction=0.75),
    "rain_heavy": dict(cloudiness=1.0, precipitation="rain", precipitation_intensity=0.9, fog_visual_range=1000.0, wetness=1.0, friction=0.6),
    "fog_light": dict(cloudiness=0.6, precipitation="none", precipitation_intensity=0.0, fog_visual_range=200.0, wetness=0.2, friction=0.9),
    "fog_dense": dict(cloudiness=0.9, precipitation="none", precipitation_intensity=0.0, fog_visual_range=50.0, wetness=0.3, friction=0.85),
    "snow": dict(cloudiness=1.0, precipitation="snow", precipitation_intensity=0.6, fog_visual_range=2000.0, wetness=0.5, friction=0.4),
}
WeatherPreset = Literal["clear", "cloudy", "wet", "rain_light", "rain_heavy", "fog_light", "fog_dense", "snow"]
TIME_PRESETS = {"dawn": "06:10", "day": "12:00", "dusk": "18:20", "night": "23:00"}


def sun_elevation(hhmm: str) -> float:
    """Sun elevation in radians for a local time: a sine arc, 0 at 06:00 and 18:00, 60 deg at noon."""
    h, m = (int(x) for x in hhmm.split(":"))
    hours = h + m / 60.0
    return math.radians(60.0) * math.sin(math.pi * (hours - 6.0) / 12.0) if 0 <= hours < 24 else 0.0


class Environment(_Model):
    """Weather and time of day; a preset fills every weather value not given explicitly."""

    weather: WeatherPreset = Field("clear", description="Weather preset; explicit values below override it.")
    cloudiness: float = Field(0.1, ge=0, le=1, description="Cloud cover, 0..1.")
    precipitation: Literal["none", "rain", "snow"] = Field("none", description="Precipitation type.")
    precipitation_intensity: float = Field(0.0, ge=0, le=1, description="Precipitation intensity, 0..1.")
    fog_visual_range: float = Field(100000.0, gt=0, description="Visual range in fog, m.")
    wetness: float = Field(0.0, ge=0, le=1, description="Road wetness, 0..1.")
    friction: float = Field(1.0, gt=0, le=1.5, description="Road friction coefficient.")
    time: str = Field("day", description="Local time 'HH:MM' or one of dawn, day, dusk, night.")

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        if isinstance(data, dict):
            name = data.get("weather", "clear")
            preset = WEATHER_PRESETS.get(name, {}) if isinstance(name, str) else {}
            data = {**preset, **data}
        return data

    @field_validator("time")
    @classmethod
    def _check_time(cls, v: str) -> str:
        if v in TIME_PRESETS:
            return v
        parts = v.split(":")
        if len(parts) == 2 and all(p.isdigit() and len(p) == 2 for p in parts) and int(parts[0]) < 24 and int(parts[1]) < 60:
            return v
        raise ValueError(f"expected 'HH:MM' (00:00..23:59) or one of {', '.join(TIME_PRESETS)}, got {v!r}")

    @property
    def time_of_day(self) -> str:
        """The time as 'HH:MM' (a preset resolved)."""
        return TIME_PRESETS.get(self.time, self.time)

    @property
    def sun_elevation(self) -> float:
        """Sun elevation in radians (negative at night)."""
        return sun_elevation(self.time_of_day)


# ---------------------------------------------------------------- road

_STYLES = ["solid", "broken", "solid_solid", "solid_broken", "broken_solid"]
MARKINGS = [f"{s}_{c}" for s in _STYLES for c in ("white", "yellow")] + _STYLES + ["none"]
# a style without a colour takes the country's: the centre line's (below), white between lanes and at edges
Marking = Literal[
    "solid_white", "solid_yellow", "broken_white", "broken_yellow", "solid_solid_white", "solid_solid_yellow",
    "solid_broken_white", "solid_broken_yellow", "broken_solid_white", "broken_solid_yellow",
    "solid", "broken", "solid_solid", "solid_broken", "broken_solid", "none",
]
JUNCTION_KINDS = ("intersection", "t_junction", "roundabout")  # road kinds with junction arms
YELLOW_CENTRE_COUNTRIES = frozenset({"CN", "US", "CA", "KR", "BR", "MX"})


def centre_colour(country: str) -> str:
    """Colour of the line between the two directions where a scenario names only its style."""
    return "yellow" if country.upper() in YELLOW_CENTRE_COUNTRIES else "white"


class Lanes(_Model):
    forward: int = Field(1, ge=1, le=6, description="Lanes in the ego's direction.")
    backward: int = Field(1, ge=0, le=6, description="Lanes in the opposite direction (0: one-way road).")
    width: float = Field(3.5, ge=2.0, le=6.0, description="Lane width, m.")


class Markings(_Model):
    """Lane boundary markings: style_colour, or a style alone for the country's colour; 'solid_broken' means solid
    on the left as seen along s."""

    center: Marking | None = Field(None, description="Between the two directions; default broken; a style without a "
                                                     "colour (solid, broken, ...) takes the country's (yellow in CN/US, white elsewhere).")
    lanes: Marking = Field("broken_white", description="Between lanes of the same direction.")
    edge: Marking = Field("solid_white", description="Outer road edges.")


Arm = Literal["left", "right", "opposite"]
ARMS = ("left", "right", "opposite")
_ARM_DOC = ("Junction arm as the ego sees it on its approach (left, right, opposite); absent: the ego's approach. "
            "On an arm, s runs from its outer end toward the junction and lane 1 drives toward the junction.")


class Section(_Model):
    kind: Literal["tunnel", "bridge", "school_zone", "work_zone", "no_stopping"]
    s_start: Metres = Field(..., description="Start along the main road, m.")
    s_end: Metres = Field(..., description="End along the main road, m.")
    speed_limit: OptSpeedKmh = Field(None, description="Speed limit inside the section: km/h in YAML, m/s in the model.")

    @model_validator(mode="after")
    def _order(self) -> "Section":
        if self.s_end <= self.s_start:
            raise ValueError(f"s_end ({self.s_end}) must be greater than s_start ({self.s_start})")
        return self


class Crosswalk(_Model):
    s: Metres = Field(..., description="Centre of the crosswalk along the main road (or along its arm), m.")
    arm: Arm | None = Field(None, description=_ARM_DOC)
    width: Positive = Field(4.0, description="Width of the crosswalk along s, m.")

    @property
    def s_start(self) -> float:
        return self.s - self.width / 2

    @property
    def s_end(self) -> float:
        return self.s + self.width / 2


class StopLine(_Model):
    s: Metres = Field(..., description="Position along the main road, m.")
    lanes: list[int] | None = Field(None, description="User lane numbers it spans; default every forward lane.")


class LightPhase(_Model):
    state: Literal["red", "yellow", "green", "red_yellow", "off"]
    duration: Positive = Field(..., description="Phase duration, s.")


class TrafficLight(_Model):
    id: str = Field(..., pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")
    s: Metres = Field(..., description="Stop position, m (a stop line is implied): along the main road, or along "
                                       "its arm toward the junction when `arm` is given.")
    side: Literal["kerb", "far", "right", "left"] = Field("kerb", description="Where the head stands, as the driver "
                                                                            "it faces sees it.")
    phases: list[LightPhase] = Field(..., min_length=1, description="Cycle, repeated from t = 0.")
    offset: float = Field(0.0, ge=0, description="Time into the cycle at t = 0, s.")
    arm: Arm | None = Field(None, description=_ARM_DOC + " The head faces that arm's traffic toward the junction.")
    turn: Literal["left", "straight", "right", "all"] = Field(
        "all", description="Movements it releases: all (a full head; its far-side turn is permitted and yields to "
                           "oncoming traffic), or one protected arrow (the driver's left, straight or right).")


class SignalPlan(_Model):
    """A consistent plan for every approach of a signalised junction (dsl/signal_plan.py generates the heads).

    two_phase: the ego's axis (its approach and the opposite arm) is green, yellow, all red; then the cross
    axis (left and right arms) is green, yellow, all red. `offset` is the time into that cycle at t = 0.
    """

    kind: Literal["two_phase"] = Field("two_phase", description="Plan kind.")
    green: Positive = Field(20.0, description="Green of the ego's axis, s.")
    cross_green: Positive | None = Field(None, description="Green of the cross axis, s (default: green).")
    yellow: Positive = Field(3.0, description="Yellow after each green, s.")
    all_red: Metres = Field(2.0, description="All heads red after each yellow, s.")
    offset: Metres = Field(0.0, description="Time into the cycle at t = 0, s (0: the ego's green begins).")


class Sign(_Model):
    id: str = Field(..., description="Sign id from roadtest/sign_assets/signs.yaml (e.g. speed_limit, stop).")
    s: Metres = Field(..., description="Position along the main road (or along its arm), m.")
    arm: Arm | None = Field(None, description=_ARM_DOC + " `direction: forward` faces traffic driving toward the junction.")
    side: Literal["kerb", "far", "right", "left", "both", "overhead"] = Field(
        "kerb", description="As the driver it faces sees it: kerb (their own roadside), far (across the oncoming "
                            "lanes), their left or right, both, or overhead.")
    value: float | None = Field(None, description="Value shown on the sign in the sign's own unit (km/h for speed signs).")
    direction: Literal["forward", "backward"] = Field("forward", description="Traffic the sign faces.")
    z: float | None = Field(None, ge=0.3, le=8.0, description="Height of the face's lower edge above the road, m "
                                                                "(OpenDRIVE zOffset; default 2.0 at the roadside, 5.5 "
                                                                "overhead on a gantry; e.g. 3.0 on an urban pole).")
    size: float | None = Field(None, gt=0.2, le=3.0, description="Size of the face's longer side, m (OpenDRIVE width "
                                                                 "and height; default 0.8).")


class Ramp(_Model):
    merge_s: Metres = Field(..., description="Where the on-ramp's acceleration lane starts on the main road, m.")
    length: Positive = Field(120.0, description="Acceleration lane length, m.")


class Road(_Model):
    kind: Literal["straight", "curve", "intersection", "t_junction", "highway_merge", "roundabout"]
    length: Positive = Field(300.0, le=5000, description="Main road length, m (for junction kinds: the ego's approach arm; other arms are as long).")
    lanes: Lanes = Field(default_factory=Lanes)
    speed_limit: OptSpeedKmh = Field(None, description="Speed limit: km/h in YAML, m/s in the model; none: no posted limit.")
    markings: Markings = Field(default_factory=Markings)
    sections: list[Section] = Field(default_factory=list)
    crosswalks: list[Crosswalk] = Field(default_factory=list)
    stop_lines: list[StopLine] = Field(default_factory=list)
    traffic_lights: list[TrafficLight] = Field(default_factory=list)
    signal_plan: SignalPlan | None = Field(None, description="Heads for every approach without one of its own "
                                                             "(junction kinds), phased so no greens conflict.")
    signs: list[Sign] = Field(default_factory=list)
    radius: Positive = Field(100.0, description="Curve radius, or roundabout ring radius, m.")
    angle: float = Field(90.0, gt=0, le=270, validate_default=True, description="Curve turning angle: degrees in YAML, radians in the model.")
    direction: Literal["left", "right", "kerb", "far"] = Field(
        "left", description="Curve turning direction: left, right, or as the ego's side: kerb (toward its own roadside), "
                            "far (toward the oncoming lanes: left in right-hand traffic, right in JP).")
    curve_start: Metres = Field(0.0, description="Straight lead-in before the curve begins, m.")
    ramp: Ramp | None = Field(None, description="On-ramp (highway_merge only).")

    @field_validator("angle")
    @classmethod
    def _angle_rad(cls, v: float) -> float:
        return _deg(v)


# ---------------------------------------------------------------- ego and actors

class RouteStop(_Model):
    s: Metres = Field(..., description="Where the task asks the ego to stop (a drop-off), along the main road, m.")
    duration: Positive = Field(..., description="How long it is asked to stand there, s.")


class Route(_Model):
    distance: Positive | None = Field(None, description="Goal: this far along the route from the start, m.")
    exit: Literal["left", "straight", "right"] | None = Field(None, description="Exit taken at the junction.")
    stop: RouteStop | None = Field(None, description="A stop the task asks for on the way (a drop-off); stopping is "
                                                    "still forbidden inside a no_stopping section.")
    u_turn: Metres | None = Field(None, description="Turn back at this main-road s (straight and curve roads): a half "
                                                    "circle across the road into the outermost oncoming lane; `distance` "
                                                    "counts the whole route.")

    @model_validator(mode="after")
    def _one(self) -> "Route":
        if self.distance is None and self.exit is None:
            raise ValueError("expected a goal: distance (m) or exit (left|straight|right)")
        if self.u_turn is not None and self.distance is None:
            raise ValueError("a route with u_turn needs distance (m, the whole route) for its goal")
        return self


class Ego(_Model):
    lane: int = Field(1, description="User lane number (1: first forward lane from the centre; on highway_merge, "
                                     "forward + 1 is the acceleration lane, whose route merges into lane forward).")
    s: Metres = Field(10.0, description="Start along the main road, m.")
    speed: SpeedKmh = Field(0.0, description="Initial speed: km/h in YAML, m/s in the model.")
    route: Route = Field(..., description="Goal of the ego.")
    model: str = Field("vehicle.tesla.model3", description="Vehicle model (CARLA blueprint id).")


ActorKind = Literal["vehicle", "truck", "bus", "emergency", "motorcycle", "bicycle", "pedestrian",
                    "police_officer", "cone", "barrier", "broken_down_vehicle"]
# length, width, height in m per kind (used for overlap checks and bounding boxes)
ACTOR_DIMENSIONS: dict[str, tuple[float, float, float]] = {
    "ego": (4.8, 2.0, 1.5), "vehicle": (4.7, 1.9, 1.5), "truck": (8.5, 2.5, 3.5), "bus": (12.0, 2.55, 3.2),
    "emergency": (5.5, 2.1, 2.4), "motorcycle": (2.2, 0.8, 1.5), "bicycle": (1.8, 0.6, 1.7),
    "pedestrian": (0.5, 0.6, 1.75), "police_officer": (0.5, 0.6, 1.8), "cone": (0.4, 0.4, 0.7),
    "barrier": (1.0, 2.0, 1.0), "broken_down_vehicle": (4.7, 1.9, 1.5),
}
STATIC_KINDS = frozenset({"cone", "barrier", "broken_down_vehicle"})
PEDESTRIAN_KINDS = scenario_kinds(WALKERS)


class Place(_Model):
    """Absolute {lane, s} or {side, s}, or relative {ahead_of|behind|left_of|right_of: id, distance}."""

    lane: int | None = Field(None, description="User lane number (absolute placement).")
    side: Literal["kerb", "far", "right", "left"] | None = Field(
        None, description="Roadside instead of a lane (pedestrians, police), as the forward driver sees it.")
    s: Metres | None = Field(None, description="Along the main road, m (absolute placement), or along its arm.")
    arm: Arm | None = Field(None, description=_ARM_DOC + " A relative placement takes its reference's arm.")
    ahead_of: str | None = None
    behind: str | None = None
    left_of: str | None = None
    right_of: str | None = None
    distance: float = Field(0.0, ge=0, description="Longitudinal gap from the reference's position, m (relative placement).")

    @model_validator(mode="after")
    def _shape(self) -> "Place":
        rel = [k for k in ("ahead_of", "behind", "left_of", "right_of") if getattr(self, k) is not None]
        if len(rel) > 1:
            raise ValueError(f"expected one of ahead_of, behind, left_of, right_of, got {', '.join(rel)}")
        if rel:
            if self.lane is not None or self.s is not None or self.side is not None or self.arm is not None:
                raise ValueError("a relative placement takes no lane, side, s or arm (it keeps its reference's arm)")
        else:
            if self.s is None or (self.lane is None) == (self.side is None):
                raise ValueError("expected {lane, s}, {side, s} or {ahead_of|behind|left_of|right_of: id, distance}")
        return self

    @property
    def reference(self) -> tuple[str, str] | None:
        """(relation, actor id) for a relative placement, else None."""
        for k in ("ahead_of", "behind", "left_of", "right_of"):
            if getattr(self, k) is not None:
                return k, getattr(self, k)
        return None


class PositionTrigger(_Model):
    s: Metres = Field(..., description="Position along the main road, m.")
    lane: int | None = Field(None, description="User lane number; default the ego's lane.")
    distance: Positive = Field(5.0, description="Fires when the ego is within this distance, m.")


class Trigger(_Model):
    """Start condition of a behaviour; exactly one key. No trigger: start at t = 0."""

    time: Metres | None = Field(None, description="Simulation time, s.")
    ego_distance: Positive | None = Field(None, description="The ego is within this distance of the actor, m.")
    distance_to_position: PositionTrigger | None = Field(None, description="The ego is near a position.")
    ttc: Positive | None = Field(None, description="Time-to-collision between the ego and the actor below this, s.")

    @model_validator(mode="after")
    def _one(self) -> "Trigger":
        given = [k for k in ("time", "ego_distance", "distance_to_position", "ttc") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"expected exactly one of time, ego_distance, distance_to_position, ttc, got {len(given)}")
        return self


class _Behaviour(_Model):
    trigger: Trigger | None = Field(None, description="When it starts; default at t = 0.")


class KeepSpeed(_Behaviour):
    action: Literal["keep_speed"]
    speed: OptSpeedKmh = Field(None, description="Target speed (default: current): km/h in YAML, m/s in the model.")


class ChangeSpeed(_Behaviour):
    action: Literal["change_speed"]
    to: SpeedKmh = Field(..., description="Target speed: km/h in YAML, m/s in the model.")
    rate: Positive = Field(2.0, le=12, description="Acceleration or deceleration magnitude, m/s^2.")


class ChangeLane(_Behaviour):
    action: Literal["change_lane"]
    direction: Literal["left", "right"]
    lanes: int = Field(1, ge=1, le=5, description="Lanes to move over.")
    duration: Positive = Field(3.0, description="Lateral manoeuvre duration, s.")


class CutIn(_Behaviour):
    action: Literal["cut_in"]
    target: str = Field("ego", description="Whose lane to cut into.")
    gap: Metres = Field(10.0, description="Longitudinal gap ahead of the target when cutting in, m.")
    duration: Positive = Field(2.0, description="Lateral manoeuvre duration, s.")


class Stop(_Behaviour):
    action: Literal["stop"]
    rate: Positive = Field(4.0, le=12, description="Deceleration, m/s^2.")


class CrossRoad(_Behaviour):
    action: Literal["cross_road"]
    speed: Annotated[float, Field(gt=0), AfterValidator(_kmh)] = Field(5.0, validate_default=True, description="Walking/riding speed: km/h in YAML, m/s in the model.")
    to: Literal["left", "right", "kerb", "far"] = Field("left", description="Side of the road it walks to, as the "
                                                                      "forward driver sees it (kerb, far, left, right).")


class FollowLane(_Behaviour):
    action: Literal["follow_lane"]
    speed: OptSpeedKmh = Field(None, description="Speed (default: current): km/h in YAML, m/s in the model.")


class PullOver(_Behaviour):
    action: Literal["pull_over"]
    side: Literal["right", "left"] = "right"
    distance: Positive = Field(30.0, description="Distance travelled while pulling over, m.")


Behaviour = Annotated[Union[KeepSpeed, ChangeSpeed, ChangeLane, CutIn, Stop, CrossRoad, FollowLane, PullOver],
                      Field(discriminator="action")]


class OfficerPhase(_Model):
    state: Literal["stop", "go"] = Field(..., description="What the officer signals to the ego's approach.")
    duration: Positive = Field(..., description="Phase duration, s.")


class Actor(_Model):
    id: str = Field(..., pattern=r"^[A-Za-z][A-Za-z0-9_-]*$", description="Unique actor id (not 'ego' or 'hero').")
    kind: ActorKind
    place: Place
    speed: SpeedKmh = Field(0.0, description="Initial speed: km/h in YAML, m/s in the model.")
    siren: bool | None = Field(None, description="Siren and lights on (emergency vehicles; default on).")
    model: str | None = Field(None, description="Model/blueprint override; default chosen by kind.")
    reacts: bool = Field(False, description="Brakes for whatever is ahead in its lane or crosses its path ahead, the ego "
                                            "included, instead of driving through it, and stops at its red light (an "
                                            "OpenSCENARIO ACCController at its speed, 1 s time gap).")
    behaviours: list[Behaviour] = Field(default_factory=list)
    signal: list[OfficerPhase] = Field(default_factory=list, description="A police officer's signal to the ego's "
                                       "approach: stop or go phases, cycled from t = 0 like a light's.")

    @model_validator(mode="after")
    def _officer_signal(self) -> "Actor":
        if self.signal and self.kind != "police_officer":
            raise ValueError(f"only a police_officer gives a signal (kind is {self.kind})")
        return self

    @property
    def siren_on(self) -> bool:
        return self.kind == "emergency" and self.siren is not False


# ---------------------------------------------------------------- the rest

class Traffic(_Model):
    density: float = Field(0.0, ge=0, le=60, description="Background vehicles per km per lane.")
    pedestrians: int = Field(0, ge=0, le=200, description="Background pedestrians.")
    crossing_share: float = Field(0.3, ge=0, le=1, description="Share of background pedestrians that cross at crosswalks.")
    seed: int = Field(0, ge=0, description="Seed of the background traffic (and of the variant).")
    violators: float = Field(0.0, ge=0, le=1, description="Share of background vehicles that break the speed limit "
                                                         "(desiring 1.1 to 1.3 times the limit in force), drawn with the "
                                                         "seed; 0: every background driver obeys the law.")


class RuleRef(_Model):
    id: str = Field(..., description="Rule id from roadtest/rules/catalogue/.")
    params: dict[str, Any] = Field(default_factory=dict, description="Rule parameters (SI units).")


class Expect(_Model):
    reach_goal: bool = True
    timeout: Positive = Field(60.0, le=3600, description="Simulated time limit, s.")
    rules_hold: bool = True
    stop_on_collision: bool = Field(False, description="End the run at the ego's first collision (Bench2Drive's "
                                                       "practice); otherwise the crashed vehicles stay at rest and the "
                                                       "run goes on to its timeout.")


_HHMM_TEXT = re.compile(r"^\d{2}:\d{2}$")


class SearchParam(_Model):
    """One searched parameter: a range (uniform, or log-uniform, optionally on a step) or a list of choices.

    Values are written in the field's YAML units (km/h for speeds, degrees for angles, "HH:MM" for a time);
    they are put into the scene as written, so the scene's own checks and conversions apply to them."""

    range: list[Union[float, str]] | None = Field(None, min_length=2, max_length=2,
                                                  description="[low, high] in the field's YAML units, or two 'HH:MM' times.")
    log: bool = Field(False, description="Sample the range log-uniformly (low > 0).")
    step: Positive | None = Field(None, description="Sample the range on this step (integers when low, high and step are).")
    choices: list[Any] | None = Field(None, min_length=1, description="Values to choose among.")

    @model_validator(mode="after")
    def _shape(self) -> "SearchParam":
        if (self.range is None) == (self.choices is None):
            raise ValueError("expected exactly one of range or choices")
        if self.choices is not None:
            if self.log or self.step is not None:
                raise ValueError("log and step go with a range, not with choices")
            return self
        lo, hi = self.range
        if isinstance(lo, str) or isinstance(hi, str):
            if not all(isinstance(v, str) and _HHMM_TEXT.match(v) and int(v[:2]) < 24 and int(v[3:]) < 60
                       for v in (lo, hi)):
                raise ValueError(f"range: expected two numbers or two 'HH:MM' times, got [{lo!r}, {hi!r}]")
            if self.log:
                raise ValueError("log: a time range is sampled uniformly")
        if not lo < hi:
            raise ValueError(f"range: expected low < high, got [{lo!r}, {hi!r}]")
        if self.log and not (isinstance(lo, (int, float)) and lo > 0):
            raise ValueError(f"log: expected low > 0, got {lo!r}")
        if self.log and self.step is not None:
            raise ValueError("log and step cannot be combined")
        return self


class Scenario(_Model):
    """A rule scenario as written in YAML (sweep not yet applied when it has one)."""

    name: str = Field(..., pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", description="Identifier: letters, digits, . _ -")
    description: str = ""
    country: str = Field("CN", description="ISO 3166 alpha-2 code: sign style, driving side, rule variants "
                                           "(one of the countries the sign catalogue covers).",
                         json_schema_extra=lambda schema: schema.update(enum=list(_countries())))
    level: Literal["L1", "L2", "L3", "L4", "L5"] = Field("L1", description="Difficulty level.")
    tags: list[str] = Field(default_factory=list)
    environment: Environment = Field(default_factory=Environment)
    road: Road
    ego: Ego
    actors: list[Actor] = Field(default_factory=list)
    traffic: Traffic = Field(default_factory=Traffic)
    rules: list[RuleRef] = Field(default_factory=list, description="Rule ids, or {id, params}.")
    expect: Expect = Field(default_factory=Expect)
    sweep: dict[str, list[Any]] = Field(default_factory=dict, description="dotted.path: [values]; each combination is a variant.")
    search: dict[str, SearchParam] = Field(default_factory=dict, description="dotted.path: {range | choices}: the "
                                           "space `roadtest search` explores; `roadtest run` runs the scene as written.")

    @field_validator("country", mode="before")
    @classmethod
    def _known_country(cls, v: Any) -> Any:
        have = _countries()
        if isinstance(v, str) and v in have:
            return v
        from roadtest.signs.catalogue import suggest_country

        if (close := suggest_country(v)) is not None:
            raise ValueError(f"unknown country {v!r} (did you mean {close!r}? countries are ISO 3166 alpha-2 codes)")
        raise ValueError(f"unknown country {v!r} (expected one of {', '.join(have)})")

    @field_validator("rules", mode="before")
    @classmethod
    def _rule_strings(cls, v: Any) -> Any:
        if isinstance(v, list):
            return [{"id": r} if isinstance(r, str) else r for r in v]
        return v

    @field_validator("sweep")
    @classmethod
    def _sweep_nonempty(cls, v: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for k, vals in v.items():
            if not vals:
                raise ValueError(f"sweep {k!r}: expected a non-empty list of values")
        return v

    @property
    def driving_side(self) -> str:
        return driving_side(self.country)


LEFT_HAND_COUNTRIES = frozenset({"JP", "GB", "IE", "AU", "NZ", "IN", "HK", "MO", "SG", "MY", "TH", "ID", "ZA", "KE", "PK", "BD", "LK", "CY", "MT"})


def _countries() -> tuple[str, ...]:
    from roadtest.signs.catalogue import countries

    return countries()


def driving_side(country: str) -> str:
    """'left' for left-hand-traffic countries, else 'right'."""
    return "left" if country.upper() in LEFT_HAND_COUNTRIES else "right"


def driver_side(side: str, traffic: str) -> str:
    """The driver's 'left' or 'right' for a side as written (kerb, far, left, right) under left/right-hand traffic."""
    if side == "kerb":
        return traffic
    if side == "far":
        return "left" if traffic == "right" else "right"
    return side


def lane_order(lanes: Lanes, side: str, arm: str | None = None) -> list[int]:
    """User lane numbers from left to right as seen looking along +s (on a junction arm: toward the junction).

    On an arm the lanes toward the junction are the approach's backward lanes and those away from it its
    forward lanes (the same road seen from its other end)."""
    n_fwd, n_bwd = (lanes.forward, lanes.backward) if arm is None else (lanes.backward, lanes.forward)
    fwd, bwd = list(range(1, n_fwd + 1)), [-k for k in range(1, n_bwd + 1)]
    return bwd[::-1] + fwd if side == "right" else fwd[::-1] + bwd


def resolve_arms(scn: Scenario) -> dict[str, str | None]:
    """The junction arm of the ego ('ego': None, its approach) and of every actor: its own, or, for a relative
    placement, its reference's (followed to an absolute one; unknown or circular references are left out)."""
    out: dict[str, str | None] = {"ego": None}
    places = {a.id: a.place for a in scn.actors}
    for aid in places:
        seen, cur = [], aid
        while cur in places and cur not in seen and places[cur].reference is not None:
            seen.append(cur)
            cur = places[cur].reference[1]
        if cur == "ego" or (cur in places and places[cur].reference is None):
            out[aid] = None if cur == "ego" else places[cur].arm
    return out


def resolve_placements(scn: Scenario) -> dict[str, tuple[int | None, str | None, float]]:
    """Start (lane, side, s) of the ego ('ego') and of every actor whose placement resolves.

    Relative placements are seen from the reference's driving seat: ahead_of/behind shift s by
    `distance` along the reference's travel direction (towards -s in an oncoming lane); left_of and
    right_of take the lane on that driver's left or right, `distance` ahead. Unresolvable ones are
    left out (unknown or circular references, no lane on that side). s and lane are on the actor's
    arm (resolve_arms), where a relative placement stays.
    """
    out: dict[str, tuple[int | None, str | None, float]] = {"ego": (scn.ego.lane, None, scn.ego.s)}
    arms = resolve_arms(scn)
    orders = {arm: lane_order(scn.road.lanes, scn.driving_side, arm) for arm in (None, *ARMS)}
    pending = {a.id: a.place for a in scn.actors}
    for _ in range(len(pending) + 1):
        progressed = False
        for aid, place in list(pending.items()):
            ref = place.reference
            order = orders[arms.get(aid)]
            if ref is None:
                out[aid] = (place.lane, place.side, float(place.s or 0.0))
            elif ref[1] in out:
                lane, side, s = out[ref[1]]
                rel = ref[0]
                along = -1.0 if lane is not None and lane < 0 else 1.0
                if rel in ("ahead_of", "behind"):
                    out[aid] = (lane, side, s + along * place.distance * (1 if rel == "ahead_of" else -1))
                elif lane in order:
                    i = order.index(lane) + int(along) * (-1 if rel == "left_of" else 1)
                    if not 0 <= i < len(order):
                        continue
                    out[aid] = (order[i], None, s + along * place.distance)
            else:
                continue
            del pending[aid]
            progressed = True
        if not progressed:
            break
    return out
