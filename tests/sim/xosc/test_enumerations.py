"""Every value of every enumeration of the OpenSCENARIO 1.0-1.3 schemas is read by the runtime without a crash.

The enumerations and the attributes typed by them come from the XSDs (tests/xosc_schema_enums.py), not from
roadtest. Each attribute is set, value by value, on every element of its declared type in a seed scenario
(corpus files, and `own_seed.xosc` below for the types the corpus lacks), and the scenario is loaded and
played for two simulated seconds. A refusal is allowed only at load, as a UserError; nothing may raise
while the scenario runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree
from xosc_schema_enums import enum_attributes, typed_elements

from roadtest.errors import UserError
from roadtest.sim.xosc.engine import ScenarioEngine

STEPS, TICK = 40, 0.05
SEEDS = ["cut-in_simple.xosc", "slow-lead-vehicle.xosc", "lane_change.xosc", "highway_merge.xosc",
         "synchronize.xosc", "pedestrian_collision.xosc", "traffic_lights.xosc", "light_state.xosc",
         "speed-profile.xosc", "trajectory-test.xosc", "keep_lateral_distance.xosc", "swarm.xosc",
         "override_bb.xosc", "lane_change_crest.xosc", "acc-test.xosc", "ltap-od.xosc", "trailers.xosc",
         "bicycle_fall_over.xosc", "follow_ghost.xosc", "parking_lot.xosc", "alks_cut-in.xosc"]
# types only a ParameterValueDistribution file holds (a file the runtime does not play as a scenario)
DISTRIBUTION_ONLY = {"VehicleCategoryDistributionEntry", "VehicleRoleDistributionEntry", "UserDefinedValueCondition"}
# types only an element refused by name holds: a file using them is refused at load (test_refused_by_name)
REFUSED = {"ByType": "EntitySelection"}
# a declaration's type and value go together: declarations are tested on the test's own seed, whose parameter and
# variable take, for each type, a value of that type
TYPED_VALUE = {"boolean": "true", "dateTime": "2024-01-01T00:00:00", "double": "1.5", "integer": "1", "int": "1",
               "unsignedInt": "1", "unsignedShort": "1", "string": "x"}
DECLARATIONS = {("ParameterDeclaration", "parameterType"), ("VariableDeclaration", "variableType")}


def play(path: Path) -> str:
    """'played', or 'refused: ...' when loading raised a UserError; anything raised while stepping propagates."""
    try:
        eng = ScenarioEngine(path, seed=0, tick=TICK)
    except UserError as e:
        return f"refused: {e}"
    eng.init()
    for k in range(STEPS):
        eng.step(round(k * TICK, 6))
        if eng.finished:
            break
    return "played"


@pytest.fixture(scope="module")
def seeds(conformance_dir, tmp_path_factory, own_seed) -> dict[str, tuple[Path, bytes]]:
    """name -> (folder to write it in, bytes): corpus scenarios in a folder whose ../xodr and Catalogs resolve."""
    res = conformance_dir / "esmini" / "resources"
    root = tmp_path_factory.mktemp("enum")
    (root / "xodr").symlink_to(res / "xodr")
    (root / "xosc").mkdir()
    (root / "xosc" / "Catalogs").symlink_to(res / "xosc" / "Catalogs")
    out = {n: (root / "xosc", (res / "xosc" / n).read_bytes()) for n in SEEDS if (res / "xosc" / n).is_file()}
    from xosc_docs import straight_road

    (root / "xosc" / "own_road.xodr").write_text(straight_road())
    out["own_seed.xosc"] = (root / "xosc", own_seed)
    return out


def _cases(seeds: dict) -> dict[tuple[str, str], str]:
    """(type, attribute) -> the first seed holding an element of that type."""
    where: dict[tuple[str, str], str] = {}
    attrs = enum_attributes()
    for name, (_, data) in seeds.items():
        for _, t in typed_elements(etree.fromstring(data)):
            for (ct, a) in attrs:
                if ct == t and ((ct, a) not in DECLARATIONS or name == "own_seed.xosc"):
                    where.setdefault((ct, a), name)
    return where


def test_every_enumerated_attribute_has_a_seed(seeds):
    """The seeds hold an element of every type that has an enumerated attribute (else a value goes untested)."""
    missing = {k for k in enum_attributes() if k not in _cases(seeds) and k[0] not in DISTRIBUTION_ONLY | set(REFUSED)}
    assert not missing, f"no seed holds these (type, attribute): {sorted(missing)}"


@pytest.mark.slow
def test_every_enumeration_value_plays(seeds):
    attrs = enum_attributes()
    failures, refusals, n = [], [], 0
    for (ct, a), seed in sorted(_cases(seeds).items()):
        folder, data = seeds[seed]
        for value in attrs[(ct, a)]:
            root = etree.fromstring(data)
            for el, t in typed_elements(root):
                if t == ct:
                    el.set(a, value)
                    if (ct, a) in DECLARATIONS:
                        el.set("value", TYPED_VALUE[value])
            path = folder / f"enum_{ct}_{a}_{value}.xosc"
            path.write_bytes(etree.tostring(root))
            n += 1
            try:
                r = play(path)
                if r != "played":
                    refusals.append(f"{ct}.{a}={value} in {seed}: {r}")
            except Exception as e:  # noqa: BLE001 - the property is that nothing else is raised
                failures.append(f"{ct}.{a}={value} in {seed}: {type(e).__name__}: {e}")
            finally:
                path.unlink()
    assert n > 350
    assert not failures, "\n".join(failures)
    assert not refusals, "\n".join(refusals)


# ---- a seed of the test's own for the types the corpus files lack ---------------------------------------
PEDESTRIAN = """<Pedestrian name="p" pedestrianCategory="pedestrian" mass="80" role="none">
  <BoundingBox><Center x="0" y="0" z="0.9"/><Dimensions width="0.5" length="0.5" height="1.8"/></BoundingBox>
  <Properties/></Pedestrian>"""
ENVIRONMENT = """<GlobalAction><EnvironmentAction><Environment name="env">
  <TimeOfDay animation="false" dateTime="2024-06-01T12:00:00"/>
  <Weather fractionalCloudCover="threeOktas" atmosphericPressure="101325" temperature="290">
    <Sun azimuth="0" elevation="1" illuminance="100000"/><Fog visualRange="10000"/>
    <Precipitation precipitationType="rain" precipitationIntensity="1"/></Weather>
  <RoadCondition frictionScaleFactor="1.0" wetness="dry"/></Environment></EnvironmentAction></GlobalAction>"""


ANIMATION = """<PrivateAction><AppearanceAction><AnimationAction animationDuration="1" loop="false">
  <AnimationType><ComponentAnimation><VehicleComponent vehicleComponentType="hood"/></ComponentAnimation>
  </AnimationType><AnimationState state="1"/></AnimationAction></AppearanceAction></PrivateAction>"""
GESTURE = """<PrivateAction><AppearanceAction><AnimationAction><AnimationType>
  <PedestrianAnimation motion="walking"><PedestrianGesture gesture="crossArms"/></PedestrianAnimation>
  </AnimationType></AnimationAction></AppearanceAction></PrivateAction>"""
SYNC = """<PrivateAction><SynchronizeAction masterEntityRef="Ego">
  <TargetPositionMaster><LanePosition roadId="1" laneId="-1" s="300" offset="0"/></TargetPositionMaster>
  <TargetPosition><LanePosition roadId="1" laneId="-2" s="310" offset="0"/></TargetPosition>
  <FinalSpeed><RelativeSpeedToMaster value="0" speedTargetValueType="delta"/></FinalSpeed>
  </SynchronizeAction></PrivateAction>"""
PARAMS = """<ParameterDeclarations><ParameterDeclaration name="gap" parameterType="double" value="10">
  <ConstraintGroup><ValueConstraint rule="greaterThan" value="0"/></ConstraintGroup></ParameterDeclaration>
  </ParameterDeclarations>"""


def _story(name: str, actor: str, body: str, start: str) -> str:
    return (f'<Story name="{name}S"><Act name="{name}A"><ManeuverGroup name="{name}G" maximumExecutionCount="1">'
            f'<Actors selectTriggeringEntities="false"><EntityRef entityRef="{actor}"/></Actors>'
            f'<Maneuver name="{name}M">{body}</Maneuver></ManeuverGroup>{start}</Act></Story>')


def _own_seed() -> str:
    from xosc_docs import event, lane_teleport, scenario, sim_time, speed_action, trigger

    ped = ('<ScenarioObject name="Ped">' + PEDESTRIAN + '</ScenarioObject><ScenarioObject name="Cone">'
           '<MiscObject name="cone" miscObjectCategory="obstacle" mass="1"><BoundingBox><Center x="0" y="0" z="0.3"/>'
           '<Dimensions width="0.3" length="0.3" height="0.6"/></BoundingBox><Properties/></MiscObject></ScenarioObject>')
    t0 = trigger("StartTrigger", sim_time(0.0, rule="greaterOrEqual", edge="none"))

    def cond(inner: str) -> str:
        return trigger("StartTrigger", f"""<Condition name="c" delay="0" conditionEdge="none"><ByEntityCondition>
          <TriggeringEntities triggeringEntitiesRule="any"><EntityRef entityRef="Ego"/></TriggeringEntities>
          <EntityCondition>{inner}</EntityCondition></ByEntityCondition></Condition>""")
    body = "".join([
        event("speed", speed_action(12.0), cond('<SpeedCondition value="1" rule="greaterThan" direction="longitudinal"/>')),
        event("angle", speed_action(11.0), cond(
            '<AngleCondition angleType="heading" angle="0" angleTolerance="0.1" coordinateSystem="lane"/>')),
        event("rangle", speed_action(10.0), cond(
            '<RelativeAngleCondition angleType="heading" angle="0" angleTolerance="0.1" entityRef="Other"/>')),
        event("clear", speed_action(11.5), cond(
            '<RelativeClearanceCondition oppositeLanes="false" distanceForward="5" distanceBackward="5" freeSpace="true">'
            '<RelativeLaneRange from="1" to="1"/></RelativeClearanceCondition>')),
        event("hit", speed_action(10.5), cond('<CollisionCondition><ByType type="miscellaneous"/></CollisionCondition>')),
        event("anim", ANIMATION, t0),
        event("var", speed_action(9.0), trigger("StartTrigger", """<Condition name="v" delay="0" conditionEdge="none">
          <ByValueCondition><VariableCondition variableRef="count" value="0" rule="equalTo"/></ByValueCondition></Condition>""")),
        event("tod", speed_action(9.5), trigger("StartTrigger", """<Condition name="d" delay="0" conditionEdge="none">
          <ByValueCondition><TimeOfDayCondition dateTime="2024-01-01T00:00:00" rule="greaterThan"/></ByValueCondition>
          </Condition>""")),
        event("override", """<PrivateAction><ControllerAction><OverrideControllerValueAction>
          <Throttle active="false" value="0"/><Brake active="false" value="0"/><Clutch active="false" value="0"/>
          <ParkingBrake active="false" value="0"/><SteeringWheel active="false" value="0"/>
          <Gear><AutomaticGear gear="d"/></Gear></OverrideControllerValueAction></ControllerAction></PrivateAction>""", t0),
    ])
    text = scenario(body, entities=("Ego", "Other"), rev_minor=2, init=ENVIRONMENT + lane_teleport("Ego", -1, 20, 10)
                    + lane_teleport("Other", -2, 40, 10) + lane_teleport("Ped", -2, 200) + lane_teleport("Cone", 1, 300),
                    extra='<VariableDeclarations><VariableDeclaration name="count" variableType="integer" value="0"/>'
                          "</VariableDeclarations>")
    text = text.replace("</Entities>", ped + "</Entities>")
    stories = "".join(_story(n, actor, event(n, action, t0), t0) for n, actor, action in
                      (("gesture", "Ped", GESTURE), ("sync", "Other", SYNC)))
    text = text.replace("</Story>", "</Story>" + stories, 1)
    text = text.replace("<ParameterDeclarations></ParameterDeclarations>", PARAMS)
    return text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="own_road.xodr"/></RoadNetwork>')


@pytest.fixture(scope="module")
def own_seed(tmp_path_factory) -> bytes:
    return _own_seed().encode()


def test_own_seed_plays(seeds):
    """The test's own seed plays unmutated (else its values test only a refusal)."""
    folder, data = seeds["own_seed.xosc"]
    (folder / "own_seed.xosc").write_bytes(data)
    assert play(folder / "own_seed.xosc") == "played"


def test_refused_by_name(tmp_path):
    """The elements holding the REFUSED types are refused at load, by name (never a crash, never ignored)."""
    from xosc_docs import load_engine

    text = _own_seed().replace('<RoadNetwork><LogicFile filepath="own_road.xodr"/></RoadNetwork>', "<RoadNetwork/>")
    sel = """<EntitySelection name="cars"><Members><ByType objectType="vehicle"/></Members></EntitySelection>"""
    with pytest.raises(UserError, match="unsupported: EntitySelection"):
        load_engine(tmp_path, text.replace("</Entities>", sel + "</Entities>"))
