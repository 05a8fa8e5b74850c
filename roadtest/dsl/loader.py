"""Load scenario files with source positions, so every problem is reported as file:line:col: field.

YAML is composed node by node (PyYAML's compose) so each value and key keeps its line and column;
pydantic error locations and semantic-check paths are mapped back to those positions.
"""

from __future__ import annotations

import difflib
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from roadtest.dsl.model import Scenario
from roadtest.errors import Problem, ScenarioError

__all__ = ["Doc", "Variant", "parse_yaml", "parse_file", "validate_doc", "load_scenario_file", "load_variants",
           "model_at", "path_exists", "located", "format_path", "MAX_FILE_BYTES", "MAX_NODES", "MAX_DEPTH"]

Path_ = tuple[Any, ...]
_HHMM = re.compile(r"^\d{1,2}:\d{2}$")
MAX_DEPTH = 64  # nesting levels; a scenario needs about 6
MAX_NODES = 100_000  # YAML nodes after alias expansion; a scenario has a few hundred
MAX_FILE_BYTES = 256 * 1024  # a scenario or suite is a few kilobytes; parsing this much takes about a second


@dataclass
class Doc:
    """Plain data of a YAML file plus the (line, col) of every value and every mapping key."""

    data: Any
    file: str
    pos: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    keypos: dict[Path_, tuple[int, int]] = field(default_factory=dict)

    def where(self, path: Path_, key: bool = False) -> tuple[int, int]:
        """Position of the longest prefix of `path` known (the key's position when key=True)."""
        p = tuple(path)
        if key and p in self.keypos:
            return self.keypos[p]
        while p:
            if p in self.pos:
                return self.pos[p]
            p = p[:-1]
        return self.pos.get((), (1, 1))

    def problem(self, path: Path_, message: str, key: bool = False) -> Problem:
        line, col = self.where(path, key)
        return Problem(self.file, line, col, format_path(path), message)


@dataclass(frozen=True)
class Variant:
    """One concrete scenario: the sweep applied, with its own id and seed."""

    scenario: Scenario
    id: str  # name + sweep values slug; filesystem-safe, unique within a target
    seed: int
    sweep: dict[str, Any]
    source: Path


def format_path(path: Path_) -> str:
    return ".".join(str(p) for p in path)


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Builder:
    """Turns a composed node tree into plain data, recording positions and structural problems."""

    def __init__(self, doc: Doc):
        self.doc = doc
        self.problems: list[Problem] = []
        self.constructor = yaml.constructor.SafeConstructor()

    def build(self, node: yaml.Node, path: Path_, depth: int = 0) -> Any:
        self.doc.pos[path] = _mark(node)
        if depth > MAX_DEPTH:
            raise ScenarioError(self.doc.problem(path, f"nesting deeper than {MAX_DEPTH} levels"))
        if isinstance(node, yaml.MappingNode):
            out: dict[Any, Any] = {}
            for knode, vnode in node.value:
                if not isinstance(knode, yaml.ScalarNode):
                    line, col = _mark(knode)
                    self.problems.append(Problem(self.doc.file, line, col, format_path(path), "expected a plain key, got a complex key"))
                    continue
                key = self._scalar(knode)
                if not isinstance(key, (str, int, float, bool)) or key is None:
                    key = str(knode.value)
                if key in out:
                    line, col = _mark(knode)
                    self.problems.append(Problem(self.doc.file, line, col, format_path(path + (key,)), f"duplicate key {key!r}"))
                    continue
                self.doc.keypos[path + (key,)] = _mark(knode)
                out[key] = self.build(vnode, path + (key,), depth + 1)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(v, path + (i,), depth + 1) for i, v in enumerate(node.value)]
        return self._scalar(node)

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if node.style is None and _HHMM.match(node.value or ""):
            return node.value  # YAML 1.1 would read 06:10 as the base-60 integer 370
        try:
            return self.constructor.construct_object(node, deep=True)
        except (ValueError, TypeError, OverflowError) as e:
            line, col = _mark(node)
            raise ScenarioError(Problem(self.doc.file, line, col, "", f"unreadable YAML value {node.value!r}: {e}")) from None


class _Capped(Exception):
    """Raised inside the composer when a document is too deep or expands too far."""

    def __init__(self, mark: yaml.Mark, message: str):
        self.mark, self.message = mark, message


class _CappedLoader(yaml.SafeLoader):
    """SafeLoader whose composer counts nesting depth and the node count after alias expansion.

    An alias is a reference to an already composed node, so the tree is small while its expansion
    (what the builder walks) can be exponential; each node's expanded size is known when it is
    composed, so the running total is checked at every alias, before anything is expanded.
    """

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._expanded = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            node = super().compose_node(parent, index)
            self._expanded += self._sizes.get(id(node), 1)
            if self._expanded > MAX_NODES:
                raise _Capped(mark, f"alias expands the document beyond {MAX_NODES} values "
                                    "(expected a scenario of at most a few thousand)")
            return node
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _Capped(self.peek_event().start_mark, f"nesting deeper than {MAX_DEPTH} levels")
        before = self._expanded
        self._expanded += 1
        if self._expanded > MAX_NODES:
            raise _Capped(self.peek_event().start_mark, f"more than {MAX_NODES} values in one document")
        node = super().compose_node(parent, index)
        self._sizes[id(node)] = self._expanded - before
        self._depth -= 1
        return node


def _compose(text: str) -> yaml.Node | None:
    loader = _CappedLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _offset_mark(text: str, index: int) -> tuple[int, int]:
    """1-based (line, col) of a character offset."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def parse_yaml(text: str, file: str) -> Doc:
    """Parse YAML text into a Doc; malformed YAML raises ScenarioError at the parser's position."""
    doc = Doc(data=None, file=file)
    try:
        node = _compose(text)
    except _Capped as e:
        raise ScenarioError(Problem(file, e.mark.line + 1, e.mark.column + 1, "", e.message)) from None
    except yaml.reader.ReaderError as e:
        line, col = _offset_mark(text, e.position)
        what = "binary file" if e.character == 0 else "character not allowed in YAML"
        raise ScenarioError(Problem(file, line, col, "", f"{what}: #x{e.character:04x} (expected YAML text)")) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = " ".join(x for x in (e.context, e.problem) if x)
        raise ScenarioError(Problem(file, line, col, "", f"malformed YAML: {what}")) from None
    except yaml.YAMLError as e:
        raise ScenarioError(Problem(file, 1, 1, "", f"malformed YAML: {e}")) from None
    if node is None:
        raise ScenarioError(Problem(file, 1, 1, "", "empty file (expected a mapping with name, road, ego, ...)"))
    builder = _Builder(doc)
    try:
        doc.data = builder.build(node, ())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise ScenarioError(Problem(file, line, col, "", f"malformed YAML: {getattr(e, 'problem', e)}")) from None
    if builder.problems:
        raise ScenarioError(builder.problems)
    if not isinstance(doc.data, dict):
        raise ScenarioError(doc.problem((), f"expected a mapping at the top level, got {type(doc.data).__name__}"))
    return doc


def parse_file(path: str | Path) -> Doc:
    """Read and parse a YAML file; an unreadable file is a ScenarioError naming it."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ScenarioError(Problem(str(p), 0, 0, "", f"file of {size} bytes is larger than the limit of "
                                                          f"{MAX_FILE_BYTES} bytes (a scenario is a few kilobytes)"))
        data = p.read_bytes()
    except OSError as e:
        raise ScenarioError(Problem(str(p), 0, 0, "", f"cannot read: {e.strerror or e}")) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _offset_mark(data.decode("latin-1"), e.start)
        raise ScenarioError(Problem(str(p), line, col, "", f"byte 0x{data[e.start]:02x} is not UTF-8 text "
                                                           "(expected a UTF-8 YAML file)")) from None
    return parse_yaml(text, str(p))


# ---------------------------------------------------------------- schema walking

def _unwrap(tp: Any) -> Any:
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(args) == 1:
                tp = args[0]
            else:
                return tp
        else:
            return tp


def _step(tp: Any, part: Any, data: Any) -> tuple[bool, Any]:
    """One path step through a type: (is the step valid, the type below it)."""
    tp = _unwrap(tp)
    origin = typing.get_origin(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        f = tp.model_fields.get(part) if isinstance(part, str) else None
        return (f is not None, f.annotation if f else None)
    if origin is list:
        ok = isinstance(part, int) and isinstance(data, list) and 0 <= part < len(data)
        return ok, typing.get_args(tp)[0]
    if origin is dict:
        return isinstance(part, str), typing.get_args(tp)[1]
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        members = [a for a in typing.get_args(_unwrap(tp)) if isinstance(a, type) and issubclass(a, BaseModel)]
        tag = data.get("action") if isinstance(data, dict) else None
        for m in members:
            lit = m.model_fields.get("action")
            if lit is not None and tag in typing.get_args(lit.annotation):
                return _step(m, part, data)
        for m in members:
            ok, sub = _step(m, part, data)
            if ok:
                return ok, sub
        return False, None
    return tp is Any, Any


def _get(data: Any, part: Any) -> Any:
    if isinstance(data, dict):
        return data.get(part)
    if isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
        return data[part]
    return None


def model_at(path: Path_, data: Any, root: type[BaseModel] = Scenario) -> Any:
    """The type found at a data path in the schema (None when the path leaves the schema)."""
    tp: Any = root
    cur = data
    for part in path:
        ok, tp = _step(tp, part, cur)
        if not ok:
            return None
        cur = _get(cur, part)
    tp = _unwrap(tp)
    if typing.get_origin(tp) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        tag = cur.get("action") if isinstance(cur, dict) else None
        for m in typing.get_args(tp):
            lit = getattr(m, "model_fields", {}).get("action")
            if lit is not None and tag in typing.get_args(lit.annotation):
                return m
    return tp


def path_exists(dotted: str, data: Any, root: type[BaseModel] = Scenario) -> tuple[Path_ | None, str]:
    """Resolve a dotted path against the schema and data: (data path, "") or (None, why not).

    List items are addressed by index or, for items with an `id`, by that id (actors.truck.speed).
    """
    parts: list[Any] = []
    tp: Any = root
    cur = data
    for raw in dotted.split("."):
        part: Any = raw
        if isinstance(cur, list):
            ids = [i for i, item in enumerate(cur) if isinstance(item, dict) and item.get("id") == raw]
            if raw.lstrip("-").isdigit():
                part = int(raw)
            elif ids:
                part = ids[0]
        ok, tp = _step(tp, part, cur)
        if not ok:
            here = format_path(parts) or "the scenario"
            sub = _unwrap(model_at(tuple(parts), data, root)) if parts else root
            names = list(sub.model_fields) if isinstance(sub, type) and issubclass(sub, BaseModel) else []
            hint = _suggest(str(raw), names)
            return None, f"{here} has no {raw!r}{hint}"
        parts.append(part)
        cur = _get(cur, part)
    return tuple(parts), ""


def _suggest(key: str, names: list[str]) -> str:
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (expected one of {', '.join(names)})" if names else ""


# ---------------------------------------------------------------- validation

def _error_problem(doc: Doc, err: dict[str, Any], root: type[BaseModel]) -> Problem:
    loc = err["loc"]
    cur, path = doc.data, []
    for i, part in enumerate(loc):
        inside = (isinstance(cur, dict) and part in cur) or (
            isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur))
        if inside:
            path.append(part)
            cur = _get(cur, part)
        elif i == len(loc) - 1 and err["type"] == "missing":
            line, col = doc.where(tuple(path))
            return Problem(doc.file, line, col, format_path(path + [part]), f"missing required key {part!r}")
    etype = err["type"]
    if etype == "extra_forbidden":
        parent = _unwrap(model_at(tuple(path[:-1]), doc.data, root))
        names = list(parent.model_fields) if isinstance(parent, type) and issubclass(parent, BaseModel) else []
        return doc.problem(tuple(path), f"unknown key {path[-1]!r}{_suggest(str(path[-1]), names)}", key=True)
    if etype == "union_tag_invalid":
        ctx = err.get("ctx", {})
        key = str(ctx.get("discriminator", "action")).strip("'")
        at = tuple(path) + ((key,) if isinstance(cur, dict) and key in cur else ())
        return doc.problem(at, f"unknown {key} {ctx.get('tag')!r} (expected one of {ctx.get('expected_tags')})")
    if etype == "model_type":
        what = "a rule id or {id, params}" if path[:1] == ["rules"] and len(path) == 2 else "a mapping"
        return doc.problem(tuple(path), f"expected {what} (got {err.get('input')!r})")
    msg = err["msg"]
    msg = msg[len("Value error, "):] if msg.startswith("Value error, ") else msg
    if msg.startswith("Input should be"):
        msg = "expected" + msg[len("Input should be"):]
    if etype not in ("value_error", "assertion_error") and not isinstance(err.get("input"), (dict, list)):
        msg += f" (got {err.get('input')!r})"
    return doc.problem(tuple(path), msg)


def validate_reporting(doc: Doc, problems: list[Problem]) -> Any:
    """validate_doc, with the problems a caller found before it reported in the same error as the schema's."""
    try:
        scenario = validate_doc(doc)
    except ScenarioError as e:
        raise ScenarioError(problems + e.problems) from None
    if problems:
        raise ScenarioError(problems)
    return scenario


def validate_doc(doc: Doc, root: type[BaseModel] = Scenario, check: bool = True) -> Any:
    """Validate parsed data against a model, then run the semantic checks; all problems at once."""
    try:
        obj = root.model_validate(doc.data)
    except ValidationError as e:
        problems = [_error_problem(doc, err, root) for err in e.errors()]
        if check and root is Scenario:
            from roadtest.dsl.schema import raw_id_problems

            problems += [doc.problem(path, msg, key=key) for path, msg, key in raw_id_problems(doc.data)]
        raise ScenarioError(_dedupe(problems)) from None
    if check and isinstance(obj, Scenario):
        from roadtest.dsl.schema import semantic_problems

        problems = [doc.problem(path, msg, key=key) for path, msg, key in semantic_problems(obj, doc.data)]
        if problems:
            raise ScenarioError(_dedupe(problems))
    return obj


def located(doc: Doc, path: Path_, message: str) -> Problem:
    """A Problem at a data path of a document."""
    return doc.problem(path, message)


def _dedupe(problems: list[Problem]) -> list[Problem]:
    """Distinct problems in file order."""
    return sorted(set(problems), key=lambda p: (p.file, p.line, p.col, p.field, p.message))


def load_scenario_file(path: str | Path) -> Scenario:
    """Load and check one scenario file (its sweep, if any, is checked but not applied)."""
    doc = parse_file(path)
    from roadtest.dsl.search_space import check_search, search_params
    from roadtest.dsl.variants import check_sweep

    problems = check_sweep(doc) + check_search(doc)
    try:
        scn = validate_doc(doc)
    except ScenarioError as e:
        raise ScenarioError(_dedupe(problems + e.problems)) from None
    if problems:
        raise ScenarioError(problems)
    if scn.search:
        search_params(doc, scn)
    return scn


def load_variants(path: str | Path) -> list[Variant]:
    """Load a scenario file and expand its sweep into concrete variants."""
    from roadtest.dsl.variants import expand_doc

    return expand_doc(parse_file(path))
