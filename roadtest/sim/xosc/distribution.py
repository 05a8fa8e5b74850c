"""A ParameterValueDistribution file (a logical scenario): the concrete runs it stands for.

Deterministic distributions are the cross product of their axes (a single parameter's set or range,
a multi-parameter value-set distribution); stochastic ones draw `numberOfTestRuns` value sets from the
standard's distributions with a generator seeded by `randomSeed` (0 when the file gives none), so the
same file always gives the same runs.
"""

from __future__ import annotations

import itertools
import math
import struct
from pathlib import Path
from typing import Any

from roadtest.errors import UnsupportedError

__all__ = ["expand_distribution", "DEFAULT_SEED"]

DEFAULT_SEED = 0  # randomSeed when a Stochastic element has none


def _frange(lo: float, hi: float, step: float) -> list[float]:
    n = int((hi - lo) / step + 1e-9)
    return [round(lo + i * step, 12) for i in range(n + 1)]


def _elements(el) -> list[Any]:
    return [c for c in el if isinstance(c.tag, str)]


def _num(el, name: str, file: str, required: bool = True) -> float | None:
    from roadtest.sim.xosc.parser import fail

    v = el.get(name)
    if v in (None, ""):
        if required:
            raise fail(el, f"{el.tag}.{name}", "missing; expected a number", file)
        return None
    try:
        x = float(v)
    except ValueError:
        raise fail(el, f"{el.tag}.{name}", f"expected a number, got {v!r}", file) from None
    if not math.isfinite(x):
        raise fail(el, f"{el.tag}.{name}", f"expected a finite number, got {v!r}", file)
    return x


def _range(el, file: str) -> tuple[float, float] | None:
    from roadtest.sim.xosc.parser import fail

    r = el.find("Range")
    if r is None:
        return None
    lo, hi = _num(r, "lowerLimit", file), _num(r, "upperLimit", file)
    if lo > hi:
        raise fail(r, "Range", f"lowerLimit {lo:g} is above upperLimit {hi:g}", file)
    return lo, hi


def _deterministic(det, file: str) -> list[list[dict[str, str]]]:
    from roadtest.sim.xosc.parser import fail

    axes: list[list[dict[str, str]]] = []
    for d in _elements(det):
        if d.tag == "DeterministicMultiParameterDistribution":
            sets = [{a.get("parameterRef"): a.get("value") for a in pvs.findall("ParameterAssignment")}
                    for pvs in d.findall("ValueSetDistribution/ParameterValueSet")]
            if not sets:
                raise fail(d, "ValueSetDistribution", "expected at least one ParameterValueSet", file)
            axes.append(sets)
        elif d.tag == "DeterministicSingleParameterDistribution":
            name = d.get("parameterName")
            if not name:
                raise fail(d, f"{d.tag}.parameterName", "missing parameter name", file)
            kind = _elements(d)[0] if _elements(d) else None
            if kind is not None and kind.tag == "DistributionSet":
                vals = [e.get("value") for e in kind.findall("Element")]
            elif kind is not None and kind.tag == "DistributionRange":
                step = _num(kind, "stepWidth", file)
                lim = _range(kind, file)
                if lim is None or not step > 0:
                    raise fail(kind, "DistributionRange", "expected a Range and a positive stepWidth", file)
                vals = [repr(v) for v in _frange(lim[0], lim[1], step)]
            else:  # UserDefinedDistribution: its content means something only to the tool that wrote it
                raise UnsupportedError(kind.tag if kind is not None else d.tag, file, d.sourceline or 0,
                                       "its content is defined by another tool")
            axes.append([{name: v} for v in vals])
        else:
            raise UnsupportedError(d.tag, file, d.sourceline or 0)
    return axes


def _sampler(dist, file: str):
    """A function rng -> value (text as a parameter assignment holds it) for one StochasticDistribution."""
    from roadtest.sim.xosc.parser import fail

    kinds = _elements(dist)
    if not kinds:
        raise fail(dist, "StochasticDistribution", "expected a distribution element", file)
    k = kinds[0]
    lim = _range(k, file)

    def clipped(draw):
        def f(rng):
            if lim is None:
                return repr(float(draw(rng)))
            for _ in range(10_000):  # the Range truncates the distribution: redraw outside it
                x = float(draw(rng))
                if lim[0] <= x <= lim[1]:
                    return repr(x)
            raise fail(k, "Range", f"the distribution almost never falls within [{lim[0]:g}, {lim[1]:g}]", file)
        return f

    if k.tag == "ProbabilityDistributionSet":
        els = k.findall("Element")
        weights = [_num(e, "weight", file) for e in els]
        if not els or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise fail(k, "ProbabilityDistributionSet", "expected elements with non-negative weights, not all 0", file)
        values = [e.get("value") for e in els]
        total = sum(weights)
        return lambda rng: values[int(rng.choice(len(values), p=[w / total for w in weights]))]
    if k.tag == "UniformDistribution":
        if lim is None:
            raise fail(k, "UniformDistribution.Range", "missing; expected lowerLimit and upperLimit", file)
        return lambda rng: repr(float(rng.uniform(lim[0], lim[1])))
    if k.tag == "NormalDistribution":
        mean, var = _num(k, "expectedValue", file), _num(k, "variance", file)
        if var < 0:
            raise fail(k, "NormalDistribution.variance", f"expected >= 0, got {var:g}", file)
        return clipped(lambda rng: rng.normal(mean, math.sqrt(var)))
    if k.tag == "LogNormalDistribution":
        # expectedValue and variance are the distribution's own; the underlying normal's follow from them
        mean, var = _num(k, "expectedValue", file), _num(k, "variance", file)
        if not mean > 0 or var < 0:
            raise fail(k, "LogNormalDistribution", "expected expectedValue > 0 and variance >= 0", file)
        s2 = math.log1p(var / mean ** 2)
        mu = math.log(mean) - s2 / 2
        return clipped(lambda rng: rng.lognormal(mu, math.sqrt(s2)))
    if k.tag == "PoissonDistribution":
        lam = _num(k, "expectedValue", file)
        if lam < 0:
            raise fail(k, "PoissonDistribution.expectedValue", f"expected >= 0, got {lam:g}", file)
        draw = clipped(lambda rng: rng.poisson(lam))
        return lambda rng: repr(int(float(draw(rng))))
    if k.tag == "Histogram":
        bins = k.findall("Bin")
        ranges = [_range(b, file) for b in bins]
        weights = [_num(b, "weight", file) for b in bins]
        if not bins or None in ranges or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise fail(k, "Histogram", "expected bins with a Range and non-negative weights, not all 0", file)
        total = sum(weights)

        def hist(rng):
            lo, hi = ranges[int(rng.choice(len(bins), p=[w / total for w in weights]))]
            return repr(float(rng.uniform(lo, hi)))
        return hist
    raise UnsupportedError(k.tag, file, k.sourceline or 0, "its content is defined by another tool")


def _stochastic(st, file: str) -> list[dict[str, str]]:
    import numpy as np

    from roadtest.sim.xosc.parser import fail

    n = st.get("numberOfTestRuns")
    try:
        runs = int(n)
    except (TypeError, ValueError):
        raise fail(st, "Stochastic.numberOfTestRuns", f"expected a whole number, got {n!r}", file) from None
    if runs < 1:
        raise fail(st, "Stochastic.numberOfTestRuns", f"expected at least 1, got {runs}", file)
    seed = _num(st, "randomSeed", file, required=False)
    seed = DEFAULT_SEED if seed is None else seed
    samplers = []
    for d in st.findall("StochasticDistribution"):
        if not d.get("parameterName"):
            raise fail(d, "StochasticDistribution.parameterName", "missing parameter name", file)
        samplers.append((d.get("parameterName"), _sampler(d, file)))
    rng = np.random.default_rng(int(seed) if seed == int(seed) and seed >= 0 else
                                int.from_bytes(struct.pack("<d", seed), "little"))
    return [{name: draw(rng) for name, draw in samplers} for _ in range(runs)]


def expand_distribution(path: str | Path) -> list[tuple[Path, dict[str, str]]]:
    """The runs a ParameterValueDistribution file stands for: (scenario path, parameter values) each.

    Any other OpenSCENARIO file stands for itself: [(path, {})]."""
    from roadtest.sim.xosc.parser import fail, parse_xml

    path = Path(path)
    root = parse_xml(path)
    file = str(path)
    pvd = root.find("ParameterValueDistribution")
    if pvd is None:
        return [(path, {})]
    sf = pvd.find("ScenarioFile")
    if sf is None or not sf.get("filepath"):
        raise fail(pvd, "ScenarioFile.filepath", "missing scenario file", file)
    target = (path.parent / sf.get("filepath")).resolve()
    det, st = pvd.find("Deterministic"), pvd.find("Stochastic")
    if det is not None:
        combos = [{k: v for c in combo for k, v in c.items()} for combo in itertools.product(*_deterministic(det, file))]
    elif st is not None:
        combos = _stochastic(st, file)
    else:
        raise fail(pvd, "ParameterValueDistribution", "expected a Deterministic or a Stochastic distribution", file)
    return [(target, c) for c in combos]
