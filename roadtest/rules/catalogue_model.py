"""The atomic traffic-rule catalogue: one YAML record per rule in roadtest/rules/catalogue/, checked with positions.

A record says what the rule demands (rule_content), how it is perceived and what kind of norm it is,
its numeric constraints with units (converted to SI here), per-country parameters and legal sources,
its priority class, the context a scene must contain for it to apply, and its STL monitor; and what the rest of
roadtest needs of it: the exam's phrases, what the expert drops when it ignores the rule, and its L1 scene.
A folder named in $ROADTEST_RULES adds its records to the shipped ones.
"""

from __future__ import annotations

import os
import re
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from roadtest.errors import Problem, ScenarioError, UserError
from roadtest.units import UNITS, to_si

__all__ = [
    "PRIORITY_CLASSES",
    "CONTEXT_FACTS",
    "UNITS",
    "Param",
    "Jurisdiction",
    "Context",
    "Monitor",
    "ExamPhrases",
    "L1Scene",
    "Rule",
    "RULES_ENV",
    "EXAM_SCENE_VALUES",
    "catalogue_dir",
    "catalogue_dirs",
    "load_rule_file",
    "load_catalogue",
    "get_rule",
    "to_si",
]

# The rule hierarchy DriveCombo uses: index = priority, lower is more important.
PRIORITY_CLASSES: tuple[str, ...] = (
    "pedestrian_safety",
    "emergency_vehicles",
    "command_personnel",
    "traffic_lights",
    "traffic_signs",
    "road_markings",
    "right_of_way",
    "defensive_driving",
    "emergency_exceptions",
)

# Facts a rule's context may require of a scene, with the values each fact may take. A fact is one
# property of the single place a composed scenario shows, so two rules asking for different values clash.
CONTEXT_FACTS: dict[str, tuple[str, ...]] = {
    "road": ("urban", "rural", "expressway"),
    "junction": ("none", "stop_sign", "traffic_light", "unsignalised", "merge"),
    "center_marking": ("solid", "dashed", "none"),
    "lane_change": ("permitted", "forbidden"),
    "visibility": ("normal", "low"),
    "light": ("day", "night"),
    "zone": ("none", "tunnel", "school_zone", "work_zone"),
    "traffic": ("two_way", "one_way"),
}

ACTOR_NEEDS = (
    "lead_vehicle", "slow_lead", "pedestrian_crossing", "emergency_vehicle", "cyclist", "officer",
    "cross_traffic", "merging_vehicle", "oncoming_vehicle",
)


def sign_ids() -> list[str]:
    """The sign ids a rule's context may ask for: the scenario DSL's own (roadtest.signs.catalogue), so compose can place them."""
    from roadtest.signs.catalogue import load_signs

    return sorted(load_signs())


RULES_ENV = "ROADTEST_RULES"  # folders (os.pathsep-separated) whose rule records join the shipped catalogue
# values a phrase may name besides the rule's params (roadtest.exam.questions fills them from the scene)
EXAM_SCENE_VALUES = ("limit", "over_limit", "half_fast_gap", "side")
_FIELD = re.compile(r"\{([a-z_0-9]+)(?:\|([a-z]+))?\}")
_CONTENT = re.compile(r"^When .+, the driver (may|must|must not) .+$", re.S)
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Param(_Strict):
    """A numeric constraint with its unit, as written; `si` gives the SI value monitors use."""

    value: float
    unit: str
    description: str = ""

    @field_validator("unit")
    @classmethod
    def _unit_known(cls, v: str) -> str:
        if v not in UNITS:
            raise ValueError(f"unknown unit {v!r}; expected one of {', '.join(UNITS)}")
        return v

    @property
    def si(self) -> float:
        return to_si(self.value, self.unit)


class Jurisdiction(_Strict):
    """Where a rule holds: its legal source there and the parameters that differ from the defaults."""

    source: str
    params: dict[str, Param] = Field(default_factory=dict)
    note: str = ""


class Context(_Strict):
    """What the scene must contain for the rule to apply; facts list the values the rule accepts."""

    facts: dict[str, list[str]] = Field(default_factory=dict)
    actors: list[str] = Field(default_factory=list)
    signs: list[str] = Field(default_factory=list)

    @field_validator("facts", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: ([x] if isinstance(x, str) else x) for k, x in v.items()}
        return v

    @model_validator(mode="after")
    def _known(self) -> "Context":
        for k, vals in self.facts.items():
            if k not in CONTEXT_FACTS:
                raise ValueError(f"unknown fact {k!r}; expected one of {', '.join(CONTEXT_FACTS)}")
            bad = [x for x in vals if x not in CONTEXT_FACTS[k]]
            if bad or not vals:
                raise ValueError(f"facts.{k}: {bad or vals!r} not among {', '.join(CONTEXT_FACTS[k])}")
        for a in self.actors:
            if a not in ACTOR_NEEDS:
                raise ValueError(f"unknown actor need {a!r}; expected one of {', '.join(ACTOR_NEEDS)}")
        known = sign_ids() if self.signs else []
        for s in self.signs:
            if s not in known:
                raise ValueError(f"unknown sign need {s!r}; expected a scenario sign id, one of {', '.join(known)}")
        return self


class Monitor(_Strict):
    """An STL formula over the signal vocabulary (roadtest.rules.signals) and the rule's params."""

    formula: str
    signals: list[str]
    in_force: str | None = None  # STL condition over signals and params: where it holds, the rule is in play
    note: str = ""
    margin: str = ""  # "unit: what it measures" of the rule's quantitative margin (roadtest.rules.margins), where the
    #                   formula's robustness is a ±1 flag or has no slope a search could follow

    def context(self) -> str | None:
        """When the rule is in force: `in_force`, else the antecedent A of a formula `always(A -> B)`, else
        None (in force at every tick). A run in which it never holds gets the verdict not_applicable, and
        only a rule in force around a violation can excuse the rules it outranks."""
        return monitor_context(self.formula, self.in_force)


def monitor_context(formula: str, in_force: str | None) -> str | None:
    """`in_force`, else the antecedent A of `always(A -> B)`, else None: when a monitor's rule is in force."""
    from roadtest.rules.monitor import split_always, split_implication

    if in_force:
        return in_force
    body = split_always(formula)
    parts = split_implication(body) if body is not None else None
    return parts[0] if parts else None


class ExamPhrases(_Strict):
    """How the written exam words the rule: the action that complies and actions that break it, never per scene.

    `{name|unit}` is one of the rule's params (or a scene value: EXAM_SCENE_VALUES) in the country's display
    unit (kmh, m, s); `{name}` is the value as text."""

    comply: str
    violate: list[str] = Field(min_length=1)


class L1Variant(_Strict):
    """The rule's L1 scene for some countries."""

    countries: list[str] = Field(min_length=1)
    tweaks: dict[str, Any] = Field(default_factory=dict)


class L1Scene(_Strict):
    """What scripts/make_suites.py adds to the composed scene of the rule alone (the L1 scene), where the
    composed scene does not put the rule to the test: `tweaks` for every country, or `scenes` per group."""

    tweaks: dict[str, Any] = Field(default_factory=dict)
    scenes: list[L1Variant] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one(self) -> "L1Scene":
        if self.tweaks and self.scenes:
            raise ValueError("expected tweaks (every country) or scenes (per group of countries), not both")
        return self


class Rule(_Strict):
    """One atomic traffic rule."""

    id: str
    title: str
    rule_content: str
    perceptual_type: Literal["static", "dynamic"]
    norm_type: Literal["obligatory", "forbidden", "permissive"]
    action_type: Literal[
        "speed_limit", "stop", "yield", "lane_change", "overtake", "turn", "merge", "pull_over",
        "signal", "keep_distance", "keep_lane_side", "enter", "collision_avoidance", "proceed",
    ]
    priority_class: str
    params: dict[str, Param] = Field(default_factory=dict)
    jurisdictions: dict[str, Jurisdiction]
    context: Context = Field(default_factory=Context)
    conflicts_with: list[str] = Field(default_factory=list)
    monitor: Monitor
    closed_loop: bool = True  # false: the built-in simulator cannot drive a scene that tests it
    closed_loop_reason: str = ""  # required when closed_loop is false: why not
    exam: ExamPhrases | None = None  # the exam's options; a rule without them cannot be examined
    ablation: str = ""  # what the expert drops when it ignores the rule (expert-ignore:ID; roadtest.agents.constraints)
    l1: L1Scene = Field(default_factory=L1Scene)
    file: str = ""

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError(f"rule id {v!r} must be lower_snake_case")
        return v

    @field_validator("rule_content")
    @classmethod
    def _content(cls, v: str) -> str:
        if not _CONTENT.match(v.strip()):
            raise ValueError("expected 'When [condition], the driver may/must/must not [action]'")
        return v.strip()

    @field_validator("priority_class")
    @classmethod
    def _pclass(cls, v: str) -> str:
        if v not in PRIORITY_CLASSES:
            raise ValueError(f"unknown priority class {v!r}; expected one of {', '.join(PRIORITY_CLASSES)}")
        return v

    @field_validator("jurisdictions")
    @classmethod
    def _countries(cls, v: dict[str, Jurisdiction]) -> dict[str, Jurisdiction]:
        for cc in v:
            if not re.fullmatch(r"[A-Z]{2}", cc):
                raise ValueError(f"country {cc!r}: expected an ISO 3166 alpha-2 code such as CN, DE, US, JP")
        if not v:
            raise ValueError("at least one jurisdiction is required")
        return v

    @model_validator(mode="after")
    def _closed_loop_said(self) -> "Rule":
        if not self.closed_loop and not self.closed_loop_reason.strip():
            raise ValueError("closed_loop: false needs closed_loop_reason: why the built-in simulator cannot test the rule")
        if self.closed_loop and self.closed_loop_reason.strip():
            raise ValueError("closed_loop_reason is only for closed_loop: false")
        return self

    @model_validator(mode="after")
    def _params_declared(self) -> "Rule":
        for cc, j in self.jurisdictions.items():
            for name in j.params:
                if name not in self.params:
                    raise ValueError(f"jurisdictions.{cc}.params.{name}: not declared in params")
        return self

    @field_validator("exam")
    @classmethod
    def _phrases_fill(cls, v: "ExamPhrases | None", info: ValidationInfo) -> "ExamPhrases | None":
        if v is None:
            return v
        params = info.data.get("params") or {}
        for i, text in enumerate([v.comply, *v.violate]):
            where = "comply" if i == 0 else f"violate[{i - 1}]"
            for m in _FIELD.finditer(text):
                if m.group(1) not in params and m.group(1) not in EXAM_SCENE_VALUES:
                    raise ValueError(f"{where}: {{{m.group(1)}}} is neither a param of the rule nor one of "
                                     f"{', '.join(EXAM_SCENE_VALUES)}")
                if m.group(2) not in (None, "kmh", "m", "s"):
                    raise ValueError(f"{where}: unit {m.group(2)!r} in {m.group(0)}; expected kmh, m or s")
        return v

    @property
    def priority(self) -> int:
        return PRIORITY_CLASSES.index(self.priority_class)

    def params_for(self, country: str | None = None, overrides: dict[str, float] | None = None) -> dict[str, float]:
        """SI parameter values for a country (defaults where it sets none), then explicit SI overrides."""
        out = {k: p.si for k, p in self.params.items()}
        if country and country in self.jurisdictions:
            out.update({k: p.si for k, p in self.jurisdictions[country].params.items()})
        for k, v in (overrides or {}).items():
            if k in out:
                out[k] = float(v)
        return out


def catalogue_dir() -> Path:
    """The shipped catalogue folder (package data, so a wheel install has it too)."""
    return Path(str(files("roadtest.rules").joinpath("catalogue")))


def catalogue_dirs() -> list[Path]:
    """The shipped catalogue folder, then each folder named in $ROADTEST_RULES (a missing one is a UserError)."""
    extra = [Path(x) for x in os.environ.get(RULES_ENV, "").split(os.pathsep) if x.strip()]
    for d in extra:
        if not d.is_dir():
            raise UserError(f"${RULES_ENV}: {d} is not a folder of rule records")
    return [catalogue_dir(), *extra]


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where installed: the same data and marks, faster


def _compose_positions(text: str, file: str) -> tuple[Any, dict[tuple, tuple[int, int]]]:
    """Parse YAML keeping each node's 1-based line and column keyed by its path."""
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        raise ScenarioError(Problem(file, line, col, "", f"invalid YAML: {getattr(e, 'problem', e)}")) from e
    pos: dict[tuple, tuple[int, int]] = {}

    def walk(n: Any, path: tuple) -> None:
        if n is None:
            return
        pos[path] = (n.start_mark.line + 1, n.start_mark.column + 1)
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                pos[path + (k.value,)] = (k.start_mark.line + 1, k.start_mark.column + 1)
                walk(v, path + (k.value,))
                pos[path + (k.value,)] = (k.start_mark.line + 1, k.start_mark.column + 1)
        elif isinstance(n, yaml.SequenceNode):
            for i, v in enumerate(n.value):
                walk(v, path + (i,))

    walk(node, ())
    return yaml.load(text, Loader=_LOADER), pos


def _where(pos: dict[tuple, tuple[int, int]], loc: tuple) -> tuple[int, int]:
    loc = tuple(loc)
    while loc and loc not in pos:
        loc = loc[:-1]
    return pos.get(loc, (1, 1))


def load_rule_file(path: str | Path) -> Rule:
    """One rule record, with file:line:col and the field for every problem."""
    path = Path(path)
    file = str(path)
    data, pos = _compose_positions(path.read_text(), file)
    if not isinstance(data, dict):
        raise ScenarioError(Problem(file, 1, 1, "", "expected a mapping (one rule record)"))
    try:
        rule = Rule(**{**data, "file": file})
    except ValidationError as e:
        problems = []
        for err in e.errors():
            loc = tuple(x for x in err["loc"] if not (isinstance(x, str) and x.startswith("function-")))
            loc = tuple(x for x in loc if x not in ("str", "list[str]"))
            line, col = _where(pos, loc)
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                msg = "unknown field"
            elif err["type"] == "missing":
                msg = "required field missing"
            problems.append(Problem(file, line, col, ".".join(str(x) for x in loc), msg))
        raise ScenarioError(problems) from e
    if rule.id != path.stem:
        line, col = _where(pos, ("id",))
        raise ScenarioError(Problem(file, line, col, "id", f"{rule.id!r} must match the file name {path.stem!r}"))
    return rule


def load_catalogue(directory: str | Path | None = None) -> dict[str, Rule]:
    """Every rule record of the catalogue folder (default: catalogue_dirs()), keyed by id (sorted); all
    problems reported together.

    Parsed once per process and folder state (file names, sizes, mtimes): a long-lived worker pays for
    it once, not once per run. The caller gets its own dict; the Rule records are immutable."""
    dirs = [Path(directory)] if directory is not None else catalogue_dirs()
    for d in dirs:
        if not d.is_dir():
            raise UserError(f"{d}: rule catalogue folder not found")
    # by name, the shipped folder's file first: a record of an extra folder that takes its id is the one refused
    files = [f for _, _, f in sorted((f.name, i, f) for i, d in enumerate(dirs) for f in d.glob("*.yaml"))]
    stamp = tuple((str(f.resolve()), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    cached = _PARSED.get(stamp)
    if cached is None:
        cached = _PARSED[stamp] = _parse_catalogue(files)
    return dict(cached)


_PARSED: dict[tuple, dict[str, Rule]] = {}


def _parse_catalogue(files: list[Path]) -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    problems: list[Problem] = []
    for f in files:
        try:
            r = load_rule_file(f)
        except ScenarioError as e:
            problems.extend(e.problems)
            continue
        if r.id in rules:
            problems.append(Problem(r.file, 1, 1, "id", f"rule {r.id!r} is already defined in {rules[r.id].file}"))
            continue
        rules[r.id] = r
    for r in rules.values():
        for other in r.conflicts_with:
            if other not in rules:
                problems.append(Problem(r.file, 0, 0, "conflicts_with", f"unknown rule {other!r}"))
    if problems:
        raise ScenarioError(problems)
    return rules


def get_rule(rule_id: str, catalogue: dict[str, Rule] | None = None) -> Rule:
    """One rule by id; an unknown id is a UserError naming close matches."""
    cat = catalogue if catalogue is not None else load_catalogue()
    if rule_id not in cat:
        import difflib

        near = difflib.get_close_matches(rule_id, list(cat), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else f"; known: {', '.join(cat)}"
        raise UserError(f"unknown rule id {rule_id!r}{hint}")
    return cat[rule_id]
