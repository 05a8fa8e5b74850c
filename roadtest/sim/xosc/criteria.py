"""scenario_runner's test criteria: a Condition named "criteria_<AtomicCriterion>" in a StopTrigger is, for
scenario_runner, a criterion to evaluate on the ego (OpenScenario._create_test_criteria and
OpenScenarioParser.convert_condition_to_atomic), not a storyboard condition; its ParameterCondition carries the
criterion's argument (parameterRef "" means none). The player takes them out of the triggers and reports them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CRITERIA_PREFIX", "Criterion", "take_criteria"]

CRITERIA_PREFIX = "criteria_"


@dataclass(frozen=True)
class Criterion:
    """One criterion as scenario_runner builds it: the atomic's class name and its optional argument."""

    name: str  # e.g. CollisionTest, RunningRedLightTest, DrivenDistanceTest
    argument: str  # parameterRef; "" when the criterion takes none
    value: float  # the ParameterCondition's value (0 where empty, as scenario_runner reads it)
    line: int


def take_criteria(storyboard: Any) -> list[Criterion]:
    """Remove every criteria_* Condition below the storyboard (and condition groups left empty); return them."""
    found: list[Criterion] = []
    for trigger in list(storyboard.iter("StopTrigger")):
        for group in list(trigger.iter("ConditionGroup")):
            for cond in list(group.iter("Condition")):
                name = cond.get("name") or ""
                if not name.startswith(CRITERIA_PREFIX):
                    continue
                pc = cond.find("ByValueCondition/ParameterCondition")
                raw = (pc.get("value") if pc is not None else "") or ""
                try:
                    value = float(raw) if raw.strip() else 0.0
                except ValueError:
                    value = 0.0
                found.append(Criterion(name[len(CRITERIA_PREFIX):], (pc.get("parameterRef") or "") if pc is not None
                                       else "", value, cond.sourceline or 0))
                group.remove(cond)
            if not len(group):
                trigger.remove(group)
    return found
