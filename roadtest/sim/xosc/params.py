"""OpenSCENARIO parameters: declarations, `$name` references and a safe `${expr}` evaluator (never eval)."""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping

from roadtest.errors import UserError

__all__ = ["ExpressionError", "evaluate", "resolve_value", "convert", "ParamScope"]


class ExpressionError(UserError):
    """A `${...}` expression or `$name` reference that cannot be evaluated."""


_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<param>\$[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>==|!=|<=|>=|\*\*|[-+*/%(),<>]))"
)

_FUNCS: dict[str, tuple[int, Callable[..., float]]] = {
    "round": (1, lambda a: float(math.floor(a + 0.5)) if a >= 0 else -float(math.floor(-a + 0.5))),
    "floor": (1, lambda a: float(math.floor(a))),
    "ceil": (1, lambda a: float(math.ceil(a))),
    "sqrt": (1, math.sqrt),
    "sin": (1, math.sin),
    "cos": (1, math.cos),
    "tan": (1, math.tan),
    "asin": (1, math.asin),
    "acos": (1, math.acos),
    "atan": (1, math.atan),
    "sign": (1, lambda a: float((a > 0) - (a < 0))),
    "abs": (1, abs),
    "pow": (2, math.pow),
    "max": (2, max),
    "min": (2, min),
}


def _tokenize(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExpressionError(f"expression {text!r}: unexpected character {text[pos:].strip()[:1]!r} at {pos + 1}")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over: or > and > not > comparison > additive > multiplicative > unary > power > atom."""

    def __init__(self, text: str, params: Mapping[str, Any]):
        self.text, self.params = text, params
        self.toks = _tokenize(text)
        self.i = 0

    def error(self, msg: str) -> ExpressionError:
        return ExpressionError(f"expression {self.text!r}: {msg}")

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        t = self.peek()
        if t is None or (value is not None and t[1] != value):
            raise self.error(f"expected {value or 'a value'}" + (f", found {t[1]!r}" if t else " at the end"))
        self.i += 1
        return t

    def accept(self, *values: str) -> str | None:
        t = self.peek()
        if t and t[0] in ("op", "name") and t[1] in values:
            self.i += 1
            return t[1]
        return None

    def parse(self) -> float:
        v = self.or_()
        if self.peek() is not None:
            raise self.error(f"unexpected {self.peek()[1]!r}")
        return v

    def or_(self) -> float:
        v = self.and_()
        while self.accept("or"):
            r = self.and_()
            v = float(bool(v) or bool(r))
        return v

    def and_(self) -> float:
        v = self.not_()
        while self.accept("and"):
            r = self.not_()
            v = float(bool(v) and bool(r))
        return v

    def not_(self) -> float:
        if self.accept("not"):
            return float(not self.not_())
        return self.cmp()

    def cmp(self) -> float:
        v = self.add()
        op = self.accept("==", "!=", "<=", ">=", "<", ">")
        if op:
            r = self.add()
            v = float({"==": v == r, "!=": v != r, "<=": v <= r, ">=": v >= r, "<": v < r, ">": v > r}[op])
        return v

    def add(self) -> float:
        v = self.mul()
        while True:
            op = self.accept("+", "-")
            if not op:
                return v
            r = self.mul()
            v = v + r if op == "+" else v - r

    def mul(self) -> float:
        v = self.unary()
        while True:
            op = self.accept("*", "/", "%")
            if not op:
                return v
            r = self.unary()
            if op != "*" and r == 0:
                raise self.error("division by zero")
            v = v * r if op == "*" else (v / r if op == "/" else math.fmod(v, r))

    def unary(self) -> float:
        if self.accept("-"):
            return -self.unary()
        if self.accept("+"):
            return self.unary()
        return self.power()

    def power(self) -> float:
        v = self.atom()
        if self.accept("**"):
            return math.pow(v, self.unary())
        return v

    def atom(self) -> float:
        kind, val = self.take()
        if kind == "num":
            return float(val)
        if kind == "param":
            name = val[1:]
            if name not in self.params:
                raise self.error(f"unknown parameter ${name}")
            raw = self.params[name]
            if isinstance(raw, bool):
                return float(raw)
            if isinstance(raw, (int, float)):
                return float(raw)
            s = str(raw).strip()
            if s.lower() in ("true", "false"):
                return float(s.lower() == "true")
            try:
                return float(s)
            except ValueError:
                raise self.error(f"parameter ${name} = {s!r} is not a number") from None
        if kind == "name":
            if val in ("true", "false"):
                return float(val == "true")
            if val == "pi":  # esmini's constant; not in the 1.2 grammar but used by its scenarios
                return math.pi
            if val not in _FUNCS:
                raise self.error(f"unknown function {val!r} (expected one of {', '.join(sorted(_FUNCS))})")
            nargs, fn = _FUNCS[val]
            self.take("(")
            args = [self.or_()]
            while self.accept(","):
                args.append(self.or_())
            self.take(")")
            if len(args) != nargs:
                raise self.error(f"{val}() takes {nargs} argument(s), got {len(args)}")
            try:
                return float(fn(*args))
            except (ValueError, OverflowError) as e:
                raise self.error(f"{val}{tuple(args)}: {e}") from None
        if val == "(":
            v = self.or_()
            self.take(")")
            return v
        raise self.error(f"unexpected {val!r}")


def evaluate(expr: str, params: Mapping[str, Any]) -> float:
    """Value of an OpenSCENARIO 1.x expression body (the text inside `${...}`)."""
    return _Parser(expr, params).parse()


def _fmt(v: float) -> str:
    if not math.isfinite(v):
        raise ExpressionError(f"value {v!r} is not a finite number")
    return str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)


def resolve_value(text: str, params: Mapping[str, Any]) -> str:
    """An attribute's text with `$name` or `${expr}` replaced; other text is returned unchanged."""
    if not text or "$" not in text:
        return text
    s = text.strip()
    if s.startswith("${"):
        if not s.endswith("}"):
            raise ExpressionError(f"expression {text!r}: missing closing '}}'")
        return _fmt(evaluate(s[2:-1], params))
    if s.startswith("$"):
        name = s[1:]
        if name not in params:
            raise ExpressionError(f"unknown parameter {s}")
        v = params[name]
        return _fmt(v) if isinstance(v, float) else str(v)
    return text


def convert(value: str, ptype: str) -> Any:
    """A declared parameter's value in its parameterType (int, double, boolean, string, dateTime...)."""
    t = ptype.lower()
    try:
        if t in ("int", "integer", "unsignedint", "unsignedshort"):
            return int(float(value))
        if t == "double":
            return float(value)
        if t == "boolean":
            if value.strip().lower() not in ("true", "false", "1", "0"):
                raise ValueError(value)
            return value.strip().lower() in ("true", "1")
    except ValueError:
        raise ExpressionError(f"value {value!r} is not a valid {ptype}") from None
    return value


class ParamScope(dict):
    """Parameter name -> value, chained to an enclosing scope (declarations in a Story, a catalog entry...)."""

    def __init__(self, parent: "ParamScope | None" = None, values: Mapping[str, Any] | None = None):
        super().__init__(values or {})
        self.parent = parent

    def __missing__(self, key: str) -> Any:
        if self.parent is None:
            raise KeyError(key)
        return self.parent[key]

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or (self.parent is not None and key in self.parent)

    def owner(self, key: str) -> "ParamScope | None":
        """The scope that declares `key` (for ParameterSetAction), or None."""
        s: ParamScope | None = self
        while s is not None:
            if dict.__contains__(s, key):
                return s
            s = s.parent
        return None
