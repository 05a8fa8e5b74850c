"""The safe expression evaluator and parameter value handling."""

from __future__ import annotations

import math

import pytest

from roadtest.errors import UserError
from roadtest.sim.xosc.params import ExpressionError, ParamScope, convert, evaluate, resolve_value


@pytest.mark.parametrize("expr, want", [
    ("1 + 2 * 3", 7.0),
    ("(1 + 2) * 3", 9.0),
    ("-2 ** 2", -4.0),
    ("2 ** 3 ** 2", 512.0),
    ("10 / 4", 2.5),
    ("7 % 3", 1.0),
    ("-7 % 3", -1.0),
    ("1 - -1", 2.0),
    ("2 * -3 + 1", -5.0),
    ("round(2.5)", 3.0),
    ("round(-2.5)", -3.0),
    ("floor(-1.5) + ceil(1.2)", 0.0),
    ("sqrt(16) + pow(2, 3)", 12.0),
    ("max(1, 4) - min(1, 4)", 3.0),
    ("sign(-3) * abs(-2)", -2.0),
    ("1 < 2 and 3 > 4", 0.0),
    ("not 0 or 0", 1.0),
    ("1.5e2 / .5", 300.0),
])
def test_arithmetic_precedence_and_functions(expr, want):
    assert evaluate(expr, {}) == pytest.approx(want)


def test_trigonometry_and_pi():
    assert evaluate("sin(pi / 2) + cos(0)", {}) == pytest.approx(2.0)
    assert evaluate("atan(1) * 4", {}) == pytest.approx(math.pi)


def test_parameter_references_in_expressions():
    p = {"speed": 20.0, "factor": "1.5", "flag": True}
    assert evaluate("$speed * $factor / 3.6", p) == pytest.approx(20 * 1.5 / 3.6)
    assert evaluate("$flag + 1", p) == 2.0


@pytest.mark.parametrize("expr", ["1 +", "2 * (3", "foo(1)", "max(1)", "$missing + 1", "1 / 0", "1 $ 2",
                                  "sqrt(-1)", "1 2", "__import__('os')"])
def test_bad_expressions_raise_user_errors(expr):
    with pytest.raises(UserError):
        evaluate(expr, {})


def test_non_numeric_parameter_in_expression_is_reported_by_name():
    with pytest.raises(ExpressionError, match=r"\$name"):
        evaluate("$name + 1", {"name": "car_white"})


def test_resolve_value_substitutes_references_and_expressions():
    p = ParamScope(values={"a": 2.0, "n": "car_red", "i": 3})
    assert resolve_value("$n", p) == "car_red"
    assert resolve_value("${$a * 10}", p) == "20"
    assert resolve_value("${$a / 4}", p) == "0.5"
    assert resolve_value("$i", p) == "3"
    assert resolve_value("plain", p) == "plain"
    with pytest.raises(ExpressionError, match="unknown parameter"):
        resolve_value("$nope", p)
    with pytest.raises(ExpressionError, match="closing"):
        resolve_value("${1 + 2", p)


def test_scopes_shadow_and_report_owner():
    outer = ParamScope(values={"x": 1, "y": 2})
    inner = ParamScope(outer, {"x": 10})
    assert inner["x"] == 10 and inner["y"] == 2 and "y" in inner and "z" not in inner
    assert inner.owner("y") is outer and inner.owner("x") is inner and inner.owner("z") is None


def test_convert_by_parameter_type():
    assert convert("3.0", "int") == 3
    assert convert("2.5", "double") == 2.5
    assert convert("true", "boolean") is True and convert("0", "boolean") is False
    assert convert("abc", "string") == "abc"
    with pytest.raises(UserError, match="not a valid double"):
        convert("fast", "double")
    with pytest.raises(UserError):
        convert("maybe", "boolean")
