"""Evaluate a rule's STL formula with rtamt over the extracted signals, sampling period = the trace tick."""

from __future__ import annotations

import math
import re
from typing import Mapping, Sequence

from roadtest.rules.signals import VOCABULARY, Signals

__all__ = ["STL_WORDS", "identifiers", "check_formula", "split_always", "split_implication", "bind_params",
           "robustness"]

STL_WORDS = frozenset({
    "always", "eventually", "once", "historically", "since", "until", "prev", "next", "and", "or", "not",
    "implies", "iff", "xor", "abs", "rise", "fall", "true", "false", "out", "G", "F", "H", "O", "S", "U",
})
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*)")


def identifiers(formula: str) -> set[str]:
    """Names a formula uses besides STL keywords (signals and parameters)."""
    no_bounds = re.sub(r"\[[^\]]*\]", "", formula)
    return {m for m in _IDENT.findall(no_bounds) if m not in STL_WORDS}


def check_formula(formula: str, params: Sequence[str]) -> list[str]:
    """Problems with a formula: unknown names, unbalanced brackets, or rtamt parse errors."""
    problems = []
    unknown = sorted(identifiers(formula) - set(VOCABULARY) - set(params))
    if unknown:
        problems.append(f"unknown signal or parameter {', '.join(unknown)}; signals are {', '.join(VOCABULARY)}")
    if formula.count("(") != formula.count(")"):
        problems.append("unbalanced parentheses")
    if not problems:
        try:
            _spec(bind_params(formula, {p: 1.0 for p in params}), 0.05)
        except Exception as e:  # rtamt raises its own parse exceptions
            problems.append(f"rtamt cannot parse it: {e}")
    return problems


def split_always(formula: str) -> str | None:
    """The body of a top-level `always(...)`, else None (then the formula is evaluated whole)."""
    f = formula.strip()
    if not f.startswith("always("):
        return None
    depth = 0
    for i, ch in enumerate(f[len("always"):], start=len("always")):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return f[len("always(") : i] if i == len(f) - 1 else None
    return None


def split_implication(formula: str) -> tuple[str, str] | None:
    """(antecedent, consequent) of a formula `A -> B` whose arrow is outside every bracket, else None."""
    f = formula.strip()
    depth = 0
    for i, ch in enumerate(f):
        depth += ch in "(["
        depth -= ch in ")]"
        if depth == 0 and f.startswith("->", i):
            return f[:i].strip(), f[i + 2:].strip()
    return None


def bind_params(formula: str, params: Mapping[str, float]) -> str:
    """Replace parameter names by their SI values as literals."""

    def sub(m: re.Match) -> str:
        name = m.group(1)
        if name in params:
            v = float(params[name])
            return repr(v) if v >= 0 else f"({v!r})"
        return name

    parts = re.split(r"(\[[^\]]*\])", formula)  # leave time bounds alone
    return "".join(p if p.startswith("[") else _IDENT.sub(sub, p) for p in parts)


def _spec(formula: str, tick: float):
    import rtamt

    spec = rtamt.StlDiscreteTimeSpecification()
    for name in sorted(identifiers(formula) & set(VOCABULARY)):
        spec.declare_var(name, "float")
    spec.declare_var("out", "float")
    ms = max(1, int(round(tick * 1000)))
    spec.set_sampling_period(ms, "ms", 0.1)
    spec.spec = f"out = {formula}"
    spec.parse()
    return spec


def robustness(formula: str, params: Mapping[str, float], signals: Signals) -> tuple[list[float], float]:
    """(per-tick robustness series, overall robustness) of a formula on the signals.

    For `always(phi)` the series is phi's robustness at each tick and the overall value its minimum;
    otherwise the series is the formula's own robustness over time and the overall value the first.
    """
    n = len(signals)
    if n == 0:
        return [], math.inf
    body = split_always(formula)
    expr = bind_params(body if body is not None else formula, params)
    spec = _spec(expr, signals.tick)
    ms = max(1, int(round(signals.tick * 1000)))
    m = max(n, 2)  # rtamt cannot evaluate a single sample: repeat it
    data = {"time": [i * ms / 1000.0 for i in range(m)]}
    for name in sorted(identifiers(expr) & set(VOCABULARY)):
        xs = [float(x) for x in signals[name]]
        data[name] = xs + xs[-1:] * (m - n)
    rob = spec.evaluate(data)
    series = [float(r[1]) for r in rob][:n]
    if len(series) < n:
        series += [series[-1] if series else math.inf] * (n - len(series))
    overall = min(series) if body is not None else series[0]
    return series, overall
