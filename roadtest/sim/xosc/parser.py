"""Read an OpenSCENARIO file: parameters substituted in scope, catalog references replaced by their entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from roadtest.errors import Problem, ScenarioError, UserError
from roadtest.sim.xosc.carla_frame import CARLA_PREFIX, in_carla_frame, to_opendrive_frame
from roadtest.sim.xosc.catalogs import CatalogSet
from roadtest.sim.xosc.criteria import CRITERIA_PREFIX, Criterion, take_criteria
from roadtest.sim.xosc.params import ParamScope, convert, resolve_value

__all__ = ["FILE_ATTR", "Scenario", "load_scenario", "parse_xml", "where", "fail", "declare",
           "substitute", "expand_distribution", "attr_float", "find_elsewhere"]

FILE_ATTR = "_rtfile"  # set on elements copied in from another file (catalog entries), for error locations


MAX_DEPTH = 256  # element nesting; OpenSCENARIO's deepest legitimate paths are a few dozen, Python recursion ~1000


def parse_xml(path: Path):
    """Parse an XML file keeping line numbers; a malformed file, or one nested deeper than MAX_DEPTH (which the
    recursive readers could not walk), is the user's mistake."""
    from lxml import etree

    try:
        root = etree.parse(str(path), etree.XMLParser(remove_comments=True, huge_tree=True)).getroot()
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e})") from e
    except etree.XMLSyntaxError as e:
        line, col = e.position if e.position else (0, 0)
        raise ScenarioError(Problem(str(path), line, col, "", f"not well-formed XML: {e.msg}")) from e
    _check_depth(root, path)
    return root


def _check_depth(root, path: Path) -> None:
    """ScenarioError at the first element nested deeper than MAX_DEPTH (an iterative walk, no recursion)."""
    from lxml import etree

    depth = 0
    for event, el in etree.iterwalk(root, events=("start", "end")):
        depth += 1 if event == "start" else -1
        if depth > MAX_DEPTH:
            raise ScenarioError(Problem(str(path), el.sourceline or 0, 0, str(el.tag),
                                        f"elements nested more than {MAX_DEPTH} deep"))


def where(el, default_file: str = "") -> tuple[str, int]:
    """(file, line) of an element, following the file marker of copied catalog entries."""
    e = el
    while e is not None:
        f = e.get(FILE_ATTR)
        if f:
            return f, el.sourceline or 0
        e = e.getparent()
    return default_file, el.sourceline or 0


def fail(el, field_name: str, message: str, default_file: str = "") -> ScenarioError:
    """A ScenarioError located at an element."""
    f, line = where(el, default_file)
    return ScenarioError(Problem(f, line, 0, field_name, message))


def declare(decls, scope: ParamScope, file: str, overrides: Mapping[str, Any] | None = None) -> None:
    """Add a ParameterDeclarations element's parameters to `scope` (values may use earlier ones)."""
    if decls is None:
        return
    for d in decls.findall("ParameterDeclaration"):
        name = d.get("name")
        if not name:
            raise fail(d, "ParameterDeclaration.name", "missing parameter name", file)
        ptype = d.get("parameterType", "string")
        assigned = bool(overrides) and name in overrides
        raw = overrides[name] if assigned else d.get("value", "")
        try:
            value = resolve_value(str(raw), scope)
            try:
                scope[name] = convert(value, ptype)
            except UserError:
                if not assigned:
                    raise
                scope[name] = value  # an assignment of the wrong type: keep the text, as players do
        except UserError as e:
            raise fail(d, f"ParameterDeclaration[{name}].value", str(e), file) from None


def substitute(el, scope: ParamScope, file: str, catalogs: "CatalogSet | None",
               warnings: list[str] | None = None) -> None:
    """Resolve `$` references in every attribute below `el`, scoping ParameterDeclarations; inline catalog entries.

    A `name` that is no valid expression or reference stays as written (a name is a string), with a warning."""
    decls = el.find("ParameterDeclarations")
    if decls is not None and el.tag not in ("OpenSCENARIO",):
        scope = ParamScope(scope)
        declare(decls, scope, file)
    for k, v in el.attrib.items():
        if "$" in v and el.tag != "ParameterDeclaration":
            try:
                el.set(k, resolve_value(v, scope))
            except UserError as e:
                if k != "name" or warnings is None:
                    raise fail(el, f"{el.tag}.{k}", str(e), file) from None
                f, line = where(el, file)
                warnings.append(f"{f}:{line}: {el.tag}.name {v!r} is kept as written ({e})")
    for child in list(el):
        if not isinstance(child.tag, str):
            continue
        if child.tag == "CatalogReference" and catalogs is not None:
            entry = catalogs.resolve(child, scope, file)
            el.replace(child, entry)
            continue
        if child.tag == "ParameterDeclarations":
            continue
        substitute(child, scope, file, catalogs, warnings)


@dataclass
class Scenario:
    """A parsed, parameter-resolved OpenSCENARIO scenario."""

    path: Path
    root: Any  # lxml element <OpenSCENARIO>
    params: ParamScope
    rev_minor: int
    logic_file: Path | None
    entities: list[Any] = field(default_factory=list)  # <ScenarioObject> elements with entries inlined
    storyboard: Any = None
    traffic_signal_controllers: list[Any] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # inconsistencies read past, each with the rule applied
    criteria: list[Criterion] = field(default_factory=list)  # scenario_runner's criteria_* conditions, taken out
    srunner_dialect: bool = False  # written for scenario_runner (description "CARLA:..."): read as it reads it

    @property
    def file(self) -> str:
        return str(self.path)


def load_scenario(path: str | Path, overrides: Mapping[str, Any] | None = None) -> Scenario:
    """Parse, substitute parameters (with `overrides` on top of the declared values) and inline catalogs."""
    path = Path(path)
    root = parse_xml(path)
    file = str(path)
    if root.tag != "OpenSCENARIO":
        raise ScenarioError(Problem(file, root.sourceline or 0, 0, "", f"root element is <{root.tag}>, expected <OpenSCENARIO>"))
    if root.find("ParameterValueDistribution") is not None:
        raise ScenarioError(Problem(file, root.sourceline or 0, 0, "",
                                    "a ParameterValueDistribution file (a logical scenario): `roadtest run` runs every "
                                    "concrete scenario it defines (expand_distribution() lists them)"))
    header = root.find("FileHeader")
    try:
        rev_minor = int(header.get("revMinor", "0")) if header is not None else 0
    except ValueError:
        raise fail(header, "FileHeader.revMinor", f"expected an integer, got {header.get('revMinor')!r}", file) from None
    scope = ParamScope()
    decls = root.find("ParameterDeclarations")
    if overrides:
        declared = {d.get("name") for d in decls.findall("ParameterDeclaration")} if decls is not None else set()
        unknown = sorted(set(overrides) - declared)
        if unknown:
            raise UserError(f"{file}: parameter override(s) {', '.join(unknown)} not declared "
                            f"(declared: {', '.join(sorted(declared)) or 'none'})")
    declare(decls, scope, file, overrides)
    catalogs = CatalogSet(root.find("CatalogLocations"), path.parent)
    substitute(root, scope, file, catalogs, catalogs.warnings)
    dialect = in_carla_frame(root)
    if dialect:
        n = to_opendrive_frame(root)
        catalogs.warnings.append(f"{file}: the header's description starts with {CARLA_PREFIX!r}: its positions are "
                                 f"in CARLA's left-handed frame, as scenario_runner reads it ({n} mirrored into "
                                 "OpenDRIVE's frame)")
    logic = root.find("RoadNetwork/LogicFile")
    logic_file = (path.parent / logic.get("filepath")).resolve() if logic is not None and logic.get("filepath") else None
    ents = root.find("Entities")
    entities = list(ents.findall("ScenarioObject")) if ents is not None else []
    if ents is not None and ents.find("EntitySelection") is not None:
        from roadtest.errors import UnsupportedError
        raise UnsupportedError("EntitySelection", file, ents.find("EntitySelection").sourceline or 0)
    sb = root.find("Storyboard")
    if sb is None:
        raise ScenarioError(Problem(file, root.sourceline or 0, 0, "Storyboard", "missing <Storyboard>"))
    tsc = root.findall("RoadNetwork/TrafficSignals/TrafficSignalController")
    criteria = take_criteria(sb)
    if criteria:
        catalogs.warnings.append(
            f"{file}: {len(criteria)} StopTrigger condition(s) named {CRITERIA_PREFIX}* are scenario_runner's test "
            f"criteria, not storyboard conditions: {', '.join(c.name for c in criteria)} (roadtest's own monitors "
            "and the leaderboard's infractions score the run)")
    return Scenario(path=path, root=root, params=scope, rev_minor=rev_minor, logic_file=logic_file,
                    entities=entities, storyboard=sb, traffic_signal_controllers=tsc, warnings=catalogs.warnings,
                    criteria=criteria, srunner_dialect=dialect)


def find_elsewhere(raw: str, scenario: Path, what: str) -> tuple[Path | None, str]:
    """A file a scenario names that is not beside it: as esmini, also relative to the working folder, then to the
    folders above the scenario's (a suite's root). (the first found, a warning saying so), or (None, "")."""
    for base in [Path.cwd(), *scenario.resolve().parent.parents]:
        cand = (base / raw).resolve()
        if cand.is_file():
            return cand, (f"{scenario}: {what} {raw!r} is not found beside the scenario; using {cand} "
                          f"(relative to {base}, as esmini looks it up)")
    return None, ""


def expand_distribution(path: str | Path) -> list[tuple[Path, dict[str, str]]]:
    """The runs a ParameterValueDistribution file stands for (see roadtest.sim.xosc.distribution)."""
    from roadtest.sim.xosc.distribution import expand_distribution as expand

    return expand(path)


def attr_float(el: Any, name: str, default: float = 0.0) -> float:
    """An attribute (of an element or a dict) as a float; `default` when it or the element is missing or empty."""
    v = el.get(name) if el is not None else None
    return default if v in (None, "") else float(v)
