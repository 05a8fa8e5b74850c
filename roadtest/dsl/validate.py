"""`roadtest validate`: scenario YAML through the loader; .xosc/.xodr against the ASAM XSDs and the ASAM checker.

XSDs are the ones scenariogeneration ships: OpenSCENARIO 1.0, 1.1, 1.2 and 1.3.1 (picked by the
FileHeader's revMinor) and OpenDRIVE 1.7 only (older OpenDRIVE revisions are checked against 1.7,
so a 1.4 file may report 1.7-only requirements; each line names the XSD used).
The ASAM OpenSCENARIO checker (asam-qc-openscenarioxml) defines its reference and data-type rules
from 1.2 on. Those whose meaning holds in every revision (entity, signal and controller references
resolve, phases last > 0 s) run on 1.0/1.1 files too; the others (unique names per level,
storyboard references, catalog parameters, expression operators) keep ASAM's 1.2 gate, except in
strict mode, which roadtest's tests apply to the files it emits.
"""

from __future__ import annotations

import logging
import sys
from functools import lru_cache
from pathlib import Path

from roadtest.errors import Problem, ScenarioError, UserError

__all__ = ["xsd_path", "check_xsd", "check_asam", "check_file", "check_warnings", "validate_command"]

_OSC_XSD = {0: "OpenSCENARIO_1_0.xsd", 1: "OpenSCENARIO_1_1.xsd", 2: "OpenSCENARIO_1_2.xsd", 3: "OpenSCENARIO_1_3_1.xsd"}
_ODR_XSD = "opendrive_17_core.xsd"


def _schemas_dir() -> Path:
    """The XSDs beside the installed scenariogeneration package, found without importing it (it imports scipy)."""
    from importlib.util import find_spec

    return Path(find_spec("scenariogeneration").origin).resolve().parent.parent / "schemas"


def xsd_path(kind: str, rev_minor: int) -> Path:
    """Path of the XSD that validates an OpenSCENARIO ('xosc') or OpenDRIVE ('xodr') file of a revision."""
    if kind == "xodr":
        return _schemas_dir() / _ODR_XSD
    return _schemas_dir() / _OSC_XSD.get(rev_minor, _OSC_XSD[3] if rev_minor > 3 else _OSC_XSD[0])


@lru_cache(maxsize=None)
def _schema(path: Path):
    from lxml import etree

    return etree.XMLSchema(etree.parse(str(path)))


def _parse(path: Path) -> tuple[object | None, list[Problem]]:
    from lxml import etree

    try:
        return etree.parse(str(path)), []
    except etree.XMLSyntaxError as e:
        line, col = (e.position if e.position else (0, 0))
        return None, [Problem(str(path), line or 0, col or 0, "", f"not well-formed XML: {e.msg}")]
    except OSError as e:
        return None, [Problem(str(path), 0, 0, "", f"cannot read: {e}")]


def _rev_minor(tree, kind: str) -> int:
    header = tree.getroot().find("FileHeader" if kind == "xosc" else "header")
    try:
        return int(header.get("revMinor")) if header is not None else 0
    except (TypeError, ValueError):
        return 0


def check_xsd(path: Path, tree=None) -> list[Problem]:
    """XSD problems of an .xosc or .xodr (the root tag decides which schema family)."""
    path = Path(path)
    problems: list[Problem] = []
    if tree is None:
        tree, problems = _parse(path)
        if tree is None:
            return problems
    root = tree.getroot().tag
    kind = "xosc" if root == "OpenSCENARIO" else "xodr" if root == "OpenDRIVE" else ""
    if not kind:
        return [Problem(str(path), tree.getroot().sourceline or 0, 1, "",
                        f"root element <{root}>: expected <OpenSCENARIO> or <OpenDRIVE>")]
    header = tree.getroot().find("FileHeader" if kind == "xosc" else "header")
    major = header.get("revMajor") if header is not None else None
    if major is not None and major.strip() != "1":
        return [Problem(str(path), header.sourceline or 0, 1, "",
                        f"revMajor {major}: no XSD for this revision (expected 1)")]
    xsd = xsd_path(kind, _rev_minor(tree, kind))
    schema = _schema(xsd)
    schema.validate(tree)
    for err in schema.error_log:
        problems.append(Problem(str(path), err.line, err.column, "", f"{err.message} ({xsd.name})"))
    return problems


def _asam_checkers() -> list[tuple[object, bool]]:
    """(checker, holds for every revision): reference rules whose meaning does not change with the
    revision run on 1.0/1.1 files too; the rest keep the ASAM bundle's 1.2 gate unless strict."""
    from qc_openscenario.checks import data_type_checker as d
    from qc_openscenario.checks import parameters_checker as p
    from qc_openscenario.checks import reference_checker as r

    return [(r.uniquely_resolvable_entity_references, True), (r.resolvable_signal_id_in_traffic_signal_state_action, True),
            (r.resolvable_traffic_signal_controller_by_traffic_signal_controller_ref, True),
            (r.valid_actor_reference_in_private_actions, True), (r.resolvable_entity_references, True),
            (r.resolvable_variable_reference, False), (r.resolvable_storyboard_element_reference, False),
            (r.unique_element_names_on_same_level, False), (p.valid_parameter_declaration_in_catalogs, False),
            (d.allowed_operators, False), (d.non_negative_transition_time_in_light_state_action, True),
            (d.positive_duration_in_phase, True)]


def check_asam(path: Path, tree=None, schema_ok: bool = True, strict: bool = False) -> list[Problem]:
    """Error-level issues of asam-qc-openscenarioxml's basic, reference and data-type checks on an .xosc.

    The reference checks need a schema-valid file: pass schema_ok=False (check_xsd found problems)
    and they are skipped, as the checker bundle itself does. strict=True applies every rule to every
    revision (roadtest's own files are held to it); otherwise rules about names, storyboard
    references, parameters and operators start at 1.2, as ASAM defines them.
    """
    from qc_baselib import Configuration, IssueSeverity, Result
    from qc_openscenario import constants
    from qc_openscenario.checks import basic_checker, models, utils
    from qc_openscenario.main import execute_checker

    logging.getLogger().setLevel(max(logging.getLogger().level, logging.WARNING))  # the checker logs at INFO

    path = Path(path)
    config = Configuration()
    config.set_config_param("InputFile", str(path))
    result = Result()
    result.register_checker_bundle(name=constants.BUNDLE_NAME, description="roadtest validate",
                                   version=constants.BUNDLE_VERSION, summary="")
    data = models.CheckerData(xml_file_path=str(path), input_file_xml_root=None, config=config, result=result,
                              schema_version=None, xodr_root=None)
    basic = [basic_checker.valid_xml_document, basic_checker.root_tag_is_openscenario,
             basic_checker.fileheader_is_present, basic_checker.version_is_defined]
    execute_checker(basic[0], data, required_definition_setting=False)
    if result.all_checkers_completed_without_issue({basic[0].CHECKER_ID}):
        data.input_file_xml_root = utils.get_root_without_default_namespace(str(path))
    for c in basic[1:]:
        execute_checker(c, data, required_definition_setting=False)
    if result.all_checkers_completed_without_issue({c.CHECKER_ID for c in basic}):
        data.schema_version = utils.get_standard_schema_version(data.input_file_xml_root)
        try:
            data.xodr_root = utils.get_xodr_road_network(str(path), data.input_file_xml_root)
        except Exception:  # a missing or broken LogicFile: the road checks are skipped
            data.xodr_root = None
        if schema_ok:
            # our XSD check stands in for the checker's own (same ASAM XSDs; compiling them twice costs seconds)
            from qc_baselib import StatusType
            from qc_openscenario.checks.schema_checker import valid_schema

            result.register_checker(checker_bundle_name=constants.BUNDLE_NAME, checker_id=valid_schema.CHECKER_ID,
                                    description="XSD validation done by roadtest.dsl.validate.check_xsd")
            result.set_checker_status(checker_bundle_name=constants.BUNDLE_NAME, checker_id=valid_schema.CHECKER_ID,
                                      status=StatusType.COMPLETED)
        for c, every_revision in _asam_checkers():
            execute_checker(c, data, required_definition_setting=not (strict or every_revision))
    if tree is None:
        tree, _ = _parse(path)
    problems = []
    for checker in result.get_checker_results(constants.BUNDLE_NAME):
        for issue in checker.issues:
            if getattr(issue.level, "value", issue.level) != IssueSeverity.ERROR.value:
                continue
            line = col = 0
            text = issue.description
            for loc in issue.locations:
                text = loc.description.strip() or text
                for fl in loc.file_location:
                    line, col = fl.row or 0, fl.column or 0
                for xl in loc.xml_location:
                    if tree is not None and not line:
                        try:
                            hits = tree.getroot().getroottree().xpath(xl.xpath)
                        except Exception:
                            hits = []
                        if hits and hasattr(hits[0], "sourceline"):
                            line, col = hits[0].sourceline or 0, 1
            problems.append(Problem(str(path), line, col, "", f"{text} (ASAM {checker.checker_id})"))
    return problems


def _check_yaml(path: Path) -> list[Problem]:
    """The loader's checks, then what building each variant finds (so validate refuses what convert refuses)."""
    from roadtest.dsl.loader import parse_file
    from roadtest.dsl.suite import is_suite, iter_target
    from roadtest.dsl.variants import expand_doc

    try:
        doc = parse_file(path)
        if not is_suite(doc):
            variants = expand_doc(doc)
            from roadtest.dsl.bundle_writer import build_problems  # only a file the loader accepts is built

            return build_problems(doc, variants)
        from roadtest.dsl.bundle_writer import build_problems

        problems: list[Problem] = []
        for source, result in iter_target(path):
            problems += result.problems if isinstance(result, ScenarioError) else build_problems(parse_file(source), result)
        return problems
    except ScenarioError as e:
        return list(e.problems)
    except UserError as e:
        return [Problem(str(path), 1, 1, "", str(e))]


def check_warnings(path: str | Path) -> list[Problem]:
    """Warnings about a valid scenario or suite file: rules never in force in the scene, rules failed at t = 0."""
    from roadtest.dsl.loader import parse_file
    from roadtest.dsl.rule_context import rule_warnings
    from roadtest.dsl.suite import iter_target

    p = Path(path)
    if p.suffix.lower() not in (".yaml", ".yml"):
        return []
    found: list[Problem] = []
    for source, result in iter_target(p):
        if not isinstance(result, ScenarioError):
            found += rule_warnings(parse_file(source), result)
    return found


def check_file(path: str | Path, strict: bool = False) -> list[Problem]:
    """Every problem in one file: .yaml/.yml via the scenario loader, .xosc (XSD + ASAM checker), .xodr (XSD)."""
    p = Path(path)
    if not p.is_file():
        return [Problem(str(p), 0, 0, "", "no such file")]
    suffix = p.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return _check_yaml(p)
    if suffix not in (".xosc", ".xodr"):
        return [Problem(str(p), 0, 0, "", "unsupported file type (expected .yaml, .xosc or .xodr)")]
    tree, problems = _parse(p)
    if tree is None:
        return problems
    problems = check_xsd(p, tree)
    if suffix == ".xosc" and tree.getroot().tag == "OpenSCENARIO":
        problems += check_asam(p, tree, schema_ok=not problems, strict=strict)
    return problems


def validate_command(paths) -> int:
    """Print one line per problem (`file:line:col: what`); 2 when any, else 0 and 'N files OK'."""
    files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.suffix.lower() in (".yaml", ".yml", ".xosc", ".xodr"))
        else:
            files.append(p)
    bad = warned = 0
    for f in files:
        problems = check_file(f)
        if problems:
            bad += 1
        for prob in problems:
            print(str(prob))
        if not problems:
            warnings = check_warnings(f)
            warned += len(warnings)
            for w in warnings:
                print(str(w))
    tail = f" ({warned} warning(s))" if warned else ""
    if bad:
        print(f"{bad} of {len(files)} files have problems{tail}", file=sys.stderr)
        return 2
    print(f"{len(files)} files OK{tail}")
    return 0
