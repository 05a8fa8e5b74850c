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
