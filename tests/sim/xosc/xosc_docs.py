"""Small OpenSCENARIO documents for the xosc tests (no road network: world positions only)."""

from __future__ import annotations

VEHICLE = """<Vehicle name="car" vehicleCategory="car">
  <BoundingBox><Center x="1.5" y="0" z="0.9"/><Dimensions width="2" length="5" height="1.8"/></BoundingBox>
  <Performance maxSpeed="50" maxAcceleration="5" maxDeceleration="9"/>
  <Axles><FrontAxle maxSteering="0.5" wheelDiameter="0.8" trackWidth="1.7" positionX="3" positionZ="0.4"/>
         <RearAxle maxSteering="0" wheelDiameter="0.8" trackWidth="1.7" positionX="0" positionZ="0.4"/></Axles>
</Vehicle>"""


def teleport(name: str, x: float, y: float = 0.0, h: float = 0.0, speed: float | None = None) -> str:
    sp = "" if speed is None else f"""<PrivateAction><LongitudinalAction><SpeedAction>
      <SpeedActionDynamics dynamicsShape="step" dynamicsDimension="time" value="0"/>
      <SpeedActionTarget><AbsoluteTargetSpeed value="{speed}"/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction>"""
    return f"""<Private entityRef="{name}">
      <PrivateAction><TeleportAction><Position><WorldPosition x="{x}" y="{y}" h="{h}"/></Position></TeleportAction></PrivateAction>
      {sp}</Private>"""


def sim_time(t: float, rule: str = "greaterThan", edge: str = "rising", delay: float = 0.0) -> str:
    return f"""<Condition name="t{t}" delay="{delay}" conditionEdge="{edge}"><ByValueCondition>
      <SimulationTimeCondition value="{t}" rule="{rule}"/></ByValueCondition></Condition>"""


def trigger(kind: str, *conds: str) -> str:
    return f"<{kind}><ConditionGroup>{''.join(conds)}</ConditionGroup></{kind}>"


def speed_action(v: float, shape: str = "step", dim: str = "time", value: float = 0.0) -> str:
    return f"""<PrivateAction><LongitudinalAction><SpeedAction>
      <SpeedActionDynamics dynamicsShape="{shape}" dynamicsDimension="{dim}" value="{value}"/>
      <SpeedActionTarget><AbsoluteTargetSpeed value="{v}"/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction>"""


def event(name: str, action: str, start: str = "", priority: str = "parallel", count: int = 1) -> str:
    return f"""<Event name="{name}" priority="{priority}" maximumExecutionCount="{count}">
      <Action name="{name}_action">{action}</Action>{start}</Event>"""


def scenario(body: str, *, entities: tuple[str, ...] = ("Ego",), init: str = "", stop: str = "",
             params: str = "", extra: str = "", act_start: str = "", actors: tuple[str, ...] = ("Ego",),
             rev_minor: int = 0) -> str:
    ents = "".join(f'<ScenarioObject name="{n}">{VEHICLE}</ScenarioObject>' for n in entities)
    refs = "".join(f'<EntityRef entityRef="{a}"/>' for a in actors)
    return f"""<?xml version="1.0"?>
<OpenSCENARIO>
  <FileHeader revMajor="1" revMinor="{rev_minor}" date="2024-01-01T00:00:00" description="test" author="roadtest"/>
  <ParameterDeclarations>{params}</ParameterDeclarations>
  {extra}
  <RoadNetwork/>
  <Entities>{ents}</Entities>
  <Storyboard>
    <Init><Actions>{init}</Actions></Init>
    <Story name="S"><Act name="A">
      <ManeuverGroup name="G" maximumExecutionCount="1"><Actors selectTriggeringEntities="false">{refs}</Actors>
        <Maneuver name="M">{body}</Maneuver>
      </ManeuverGroup>{act_start}
    </Act></Story>
    {stop}
  </Storyboard>
</OpenSCENARIO>
"""


def straight_road(length: float = 500.0, width: float = 3.5) -> str:
    """An OpenDRIVE road along +x: lanes 2, 1 (left, against s) and -1, -2 (right, with s), all `width` wide."""
    def lane(i: int) -> str:
        return (f'<lane id="{i}" type="driving" level="false"><link/><width sOffset="0" a="{width}" b="0" c="0" d="0"/>'
                f'<roadMark sOffset="0" type="broken" weight="standard" color="standard" width="0.12"/></lane>')
    return f"""<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4" name="t" version="1.0"/>
<road name="r" length="{length}" id="1" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="{length}"><line/></geometry></planView>
<lanes><laneSection s="0"><left>{lane(2)}{lane(1)}</left>
<center><lane id="0" type="none" level="false"><roadMark sOffset="0" type="solid" weight="standard" color="standard" width="0.12"/></lane></center>
<right>{lane(-1)}{lane(-2)}</right></laneSection></lanes></road></OpenDRIVE>
"""


def lane_teleport(name: str, lane: int, s: float, speed: float | None = None, offset: float = 0.0) -> str:
    sp = "" if speed is None else speed_action(speed)
    return f"""<Private entityRef="{name}"><PrivateAction><TeleportAction><Position>
      <LanePosition roadId="1" laneId="{lane}" s="{s}" offset="{offset}"/></Position></TeleportAction></PrivateAction>{sp}</Private>"""


def with_controller(text: str, object_controller: str) -> str:
    """The document with an ObjectController element (its XML) on the first ScenarioObject."""
    return text.replace("</Vehicle></ScenarioObject>", f"</Vehicle>{object_controller}</ScenarioObject>", 1)


def load_engine(tmp_path, text: str, road_length: float | None = 500.0, tick: float = 0.05):
    """Write the document (beside a straight road of `road_length` m unless None) and return its ScenarioEngine
    after Init."""
    from roadtest.sim.xosc.engine import ScenarioEngine

    if road_length is not None:
        (tmp_path / "road.xodr").write_text(straight_road(road_length))
        text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    path = tmp_path / "s.xosc"
    path.write_text(text)
    eng = ScenarioEngine(path, seed=0, tick=tick)
    eng.init()
    return eng
