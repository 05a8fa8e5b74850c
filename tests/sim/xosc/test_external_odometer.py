"""An entity driven from outside the storyboard (the agent's ego) covers distance too: a TraveledDistanceCondition
on it fires once it has driven that far, as it does for an entity under the default controller."""

from __future__ import annotations

from xosc_docs import event, lane_teleport, load_engine, scenario, speed_action, trigger

TRAVELLED = """<Condition name="far" delay="0" conditionEdge="none"><ByEntityCondition><TriggeringEntities
  triggeringEntitiesRule="any"><EntityRef entityRef="Ego"/></TriggeringEntities><EntityCondition>
  <TraveledDistanceCondition value="10"/></EntityCondition></ByEntityCondition></Condition>"""


def test_a_traveled_distance_condition_counts_what_an_external_driver_drove(tmp_path):
    body = event("lead_goes", speed_action(5.0), trigger("StartTrigger", TRAVELLED))
    text = scenario(body, entities=("Ego", "Lead"), actors=("Lead",),
                    init=lane_teleport("Ego", -1, 10.0) + lane_teleport("Lead", -1, 60.0))
    eng = load_engine(tmp_path, text)
    ego, lead = eng.entities["Ego"], eng.entities["Lead"]
    fired_at = None
    for k in range(60):  # the ego is moved 0.5 m a tick from outside: 10 m after 20 ticks
        eng.step(round(k * 0.05, 6), external={"Ego"})
        ego.x += 0.5
        if fired_at is None and lead.speed > 0:
            fired_at = k
    assert fired_at is not None and 19 <= fired_at <= 21  # by hand: 20 ticks of 0.5 m reach 10 m
