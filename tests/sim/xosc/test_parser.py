"""Parameter declarations and overrides, catalog resolution, distributions, located errors."""

from __future__ import annotations

import pytest

from roadtest.errors import ScenarioError, UnsupportedError, UserError
from roadtest.sim.xosc.engine import ScenarioEngine
from roadtest.sim.xosc.parser import expand_distribution, load_scenario

from xosc_docs import event, scenario, sim_time, speed_action, teleport, trigger

PARAMS = """<ParameterDeclaration name="EgoSpeed" parameterType="double" value="10"/>
<ParameterDeclaration name="Double" parameterType="double" value="${$EgoSpeed * 2}"/>"""


def write(tmp_path, text, name="s.xosc"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_declarations_expressions_and_overrides(tmp_path):
    body = event("go", speed_action("$Double"), trigger("StartTrigger", sim_time(0)))
    p = write(tmp_path, scenario(body, params=PARAMS, init=teleport("Ego", 0, speed="$EgoSpeed")))
    sc = load_scenario(p)
    assert sc.params["EgoSpeed"] == 10.0 and sc.params["Double"] == 20.0
    assert sc.root.findall(".//AbsoluteTargetSpeed")[-1].get("value") == "20"
    sc2 = load_scenario(p, {"EgoSpeed": "7"})
    assert sc2.params["Double"] == 14.0
    assert sc2.root.findall(".//AbsoluteTargetSpeed")[-1].get("value") == "14"
    with pytest.raises(UserError, match="NotDeclared"):
        load_scenario(p, {"NotDeclared": "1"})


def test_story_scoped_parameters_shadow_global_ones(tmp_path):
    text = scenario(event("go", speed_action("$v"), trigger("StartTrigger", sim_time(0))),
                    params='<ParameterDeclaration name="v" parameterType="double" value="1"/>')
    text = text.replace('<Story name="S">', '<Story name="S"><ParameterDeclarations>'
                        '<ParameterDeclaration name="v" parameterType="double" value="5"/></ParameterDeclarations>')
    sc = load_scenario(write(tmp_path, text))
    assert sc.root.find(".//AbsoluteTargetSpeed").get("value") == "5"


def test_unknown_parameter_is_located(tmp_path):
    p = write(tmp_path, scenario(event("go", speed_action("$nope"), trigger("StartTrigger", sim_time(0)))))
    with pytest.raises(ScenarioError) as ei:
        load_scenario(p)
    pr = ei.value.problems[0]
    assert pr.file == str(p) and pr.line > 0 and "AbsoluteTargetSpeed.value" in pr.field and "$nope" in pr.message


CATALOG = """<?xml version="1.0"?>
<OpenSCENARIO><FileHeader revMajor="1" revMinor="0" date="2024-01-01T00:00:00" description="c" author="t"/>
<Catalog name="VehicleCatalog">
  <Vehicle name="truck" vehicleCategory="truck">
    <ParameterDeclarations>
      <ParameterDeclaration name="Len" parameterType="double" value="8"/>
      <ParameterDeclaration name="MaxV" parameterType="double" value="${25 + 5}"/>
    </ParameterDeclarations>
    <BoundingBox><Center x="2" y="0" z="1.5"/><Dimensions width="2.5" length="$Len" height="3"/></BoundingBox>
    <Performance maxSpeed="$MaxV" maxAcceleration="2" maxDeceleration="6"/>
    <Axles><FrontAxle maxSteering="0.5" wheelDiameter="1" trackWidth="2" positionX="5" positionZ="0.5"/>
           <RearAxle maxSteering="0" wheelDiameter="1" trackWidth="2" positionX="0" positionZ="0.5"/></Axles>
  </Vehicle>
</Catalog></OpenSCENARIO>
"""


def catalog_scenario(tmp_path, assignments: str) -> str:
    (tmp_path / "cat").mkdir(exist_ok=True)
    (tmp_path / "cat" / "Vehicles.xosc").write_text(CATALOG)
    text = scenario(event("go", speed_action(1), trigger("StartTrigger", sim_time(0))), entities=("Ego", "T"),
                    extra='<CatalogLocations><VehicleCatalog><Directory path="cat"/></VehicleCatalog></CatalogLocations>',
                    params='<ParameterDeclaration name="L" parameterType="double" value="12"/>')
    ref = f'<CatalogReference catalogName="VehicleCatalog" entryName="truck"><ParameterAssignments>{assignments}</ParameterAssignments></CatalogReference>'
    return text.replace('<ScenarioObject name="T">' + text.split('<ScenarioObject name="T">')[1].split("</ScenarioObject>")[0],
                        '<ScenarioObject name="T">' + ref)


def test_catalog_reference_with_parameter_assignments(tmp_path):
    p = write(tmp_path, catalog_scenario(tmp_path, '<ParameterAssignment parameterRef="Len" value="$L"/>'))
    eng = ScenarioEngine(p, seed=0, tick=0.05)
    t = eng.entities["T"]
    assert (t.category, t.length, t.max_speed, t.wheelbase, t.bbox_cx) == ("truck", 12.0, 30.0, 5.0, 2.0)
    p2 = write(tmp_path, catalog_scenario(tmp_path, ""), "s2.xosc")
    assert ScenarioEngine(p2, seed=0, tick=0.05).entities["T"].length == 8.0


def test_catalog_errors_name_what_is_missing(tmp_path):
    # an assignment to an undeclared parameter is ignored with a warning (esmini ignores it)
    p = write(tmp_path, catalog_scenario(tmp_path, '<ParameterAssignment parameterRef="Colour" value="red"/>'))
    sc = load_scenario(p)
    assert any("ParameterAssignment to Colour ignored: not declared by catalog entry 'truck'" in w for w in sc.warnings)
    text = catalog_scenario(tmp_path, "").replace('entryName="truck"', 'entryName="bus"')
    with pytest.raises(ScenarioError, match="entry 'bus' not in catalog 'VehicleCatalog'.*truck"):
        load_scenario(write(tmp_path, text, "s3.xosc"))


def test_unsupported_elements_are_refused_by_name_at_load(tmp_path):
    body = event("go", "<UserDefinedAction><CustomCommandAction type='x'/></UserDefinedAction>",
                 trigger("StartTrigger", sim_time(0)))
    with pytest.raises(UnsupportedError, match=r"unsupported: UserDefinedAction at .*s.xosc:\d+"):
        ScenarioEngine(write(tmp_path, scenario(body)), seed=0, tick=0.05)
    cond = """<Condition name="c" delay="0" conditionEdge="none"><ByValueCondition>
      <UserDefinedValueCondition name="x" value="1" rule="equalTo"/></ByValueCondition></Condition>"""
    body = event("go", speed_action(1), trigger("StartTrigger", cond))
    with pytest.raises(UnsupportedError, match="UserDefinedValueCondition"):
        ScenarioEngine(write(tmp_path, scenario(body), "u2.xosc"), seed=0, tick=0.05)


def test_malformed_xml_is_a_located_user_error(tmp_path):
    p = write(tmp_path, "<OpenSCENARIO><FileHeader></OpenSCENARIO>")
    with pytest.raises(ScenarioError) as ei:
        load_scenario(p)
    assert ei.value.problems[0].line == 1 and "not well-formed" in str(ei.value)


def test_expand_distribution(tmp_path):
    (tmp_path / "target.xosc").write_text(scenario(""))
    p = write(tmp_path, """<?xml version="1.0"?><OpenSCENARIO>
<FileHeader revMajor="1" revMinor="2" date="2024-01-01T00:00:00" description="d" author="t"/>
<ParameterValueDistribution><ScenarioFile filepath="target.xosc"/><Deterministic>
  <DeterministicMultiParameterDistribution><ValueSetDistribution>
    <ParameterValueSet><ParameterAssignment parameterRef="A" value="a1"/><ParameterAssignment parameterRef="B" value="b1"/></ParameterValueSet>
    <ParameterValueSet><ParameterAssignment parameterRef="A" value="a2"/></ParameterValueSet>
  </ValueSetDistribution></DeterministicMultiParameterDistribution>
  <DeterministicSingleParameterDistribution parameterName="S"><DistributionSet><Element value="1"/><Element value="2"/><Element value="3"/></DistributionSet></DeterministicSingleParameterDistribution>
  <DeterministicSingleParameterDistribution parameterName="R"><DistributionRange stepWidth="0.2"><Range lowerLimit="1.1" upperLimit="1.5"/></DistributionRange></DeterministicSingleParameterDistribution>
</Deterministic></ParameterValueDistribution></OpenSCENARIO>""", "dist.xosc")
    runs = expand_distribution(p)
    assert len(runs) == 2 * 3 * 3
    assert all(path == (tmp_path / "target.xosc").resolve() for path, _ in runs)
    assert runs[0][1] == {"A": "a1", "B": "b1", "S": "1", "R": "1.1"}
    assert sorted({r["R"] for _, r in runs}) == ["1.1", "1.3", "1.5"]
    assert expand_distribution(tmp_path / "target.xosc") == [(tmp_path / "target.xosc", {})]
    with pytest.raises(ScenarioError, match="expand_distribution"):
        load_scenario(p)


def test_unknown_references_are_located_errors(tmp_path):
    sbe = """<Condition name="c" delay="0" conditionEdge="none"><ByValueCondition>
      <StoryboardElementStateCondition storyboardElementType="event" storyboardElementRef="Nope" state="endTransition"/>
      </ByValueCondition></Condition>"""
    p = write(tmp_path, scenario(event("go", speed_action(1), trigger("StartTrigger", sbe))))
    with pytest.raises(ScenarioError, match="no storyboard element named 'Nope'.*go") as ei:
        ScenarioEngine(p, seed=0, tick=0.05)
    assert ei.value.problems[0].line > 0
    p = write(tmp_path, scenario(event("go", speed_action(1), trigger("StartTrigger", sim_time(0))), actors=("Egoo",)),
              "s2.xosc")
    with pytest.raises(ScenarioError, match="unknown entity 'Egoo'"):
        ScenarioEngine(p, seed=0, tick=0.05)
