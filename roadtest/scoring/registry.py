"""The metrics a run's record reports, one line each (as nuPlan's metric builders, without Hydra).

A metric is a function in its own module, named here by "module:function" so that nothing is imported before a
run is scored. score_run calls it with the inputs its parameters name (INPUTS) and stores what it returns
under the metric's key, in score.json and results.jsonl; None leaves the key out for that run. The run summary
and the HTML report then show it with no further edits: its suite figure (`suite`, by default the mean of its
numeric fields over the runs that have it), its console lines (`lines`, by default one line of the suite
figure), its columns of the summary table with their legend, and tables of its scalar fields in the report.
docs/extending.md, "Add a metric", walks through it.
"""

from __future__ import annotations

import importlib
import inspect
import statistics
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

__all__ = ["Metric", "Column", "METRICS", "INPUTS", "metrics", "resolve", "compute", "suite_figure", "summary_lines",
           "mean_figures"]

INPUTS = ("trace", "meta", "reference", "bundle", "leaderboard")  # leaderboard: the LeaderboardResult of the run


@dataclass(frozen=True)
class Column:
    """One column of the run summary's table: field `field` of the metric's record value, format spec `fmt`."""

    head: str
    field: str
    fmt: str = ""
    legend: str = ""


@dataclass(frozen=True)
class Metric:
    """A metric of the record: its key, its run function and, optionally, how the summary and report show it."""

    key: str  # the record's key, e.g. "bench2drive"
    run: str  # "module:function" of (some of) INPUTS -> a JSON-ready value, or None for "not this run"
    title: str | None = None  # heading of its tables in the HTML report and its default console line; None: none
    suite: str | None = "roadtest.scoring.registry:mean_figures"  # "module:function"(values, planned) or None
    lines: str | None = None  # "module:function"(suite figure) -> console lines; None: one line of the figure
    columns: tuple[Column, ...] = ()


B2D, OWN, VLM = "roadtest.metrics.bench2drive", "roadtest.metrics.corrected", "roadtest.scoring.vlm_figures"

METRICS: tuple[Metric, ...] = (
    Metric("bench2drive", f"{B2D}:evaluate", "Bench2Drive", suite=f"{B2D}:suite_figures", lines=f"{B2D}:summary_lines",
           columns=(Column("B2D ok", "success", legend="Bench2Drive success: route completed with no infraction but min speed"),)),
    Metric("roadtest", f"{OWN}:evaluate", "roadtest's own figures", suite=f"{OWN}:suite_figures", lines=f"{OWN}:summary_lines",
           columns=(Column("own RC", "route_completion", ".1f",
                           "roadtest's route completion: tick-independent, goal as the simulator reports it"),)),
    Metric("planning", "roadtest.metrics.planning:evaluate", suite=None),
    Metric("vlm", f"{VLM}:figures", "VLM figures", suite=f"{VLM}:suite_figures", lines=f"{VLM}:vlm_lines"),
)


def metrics() -> tuple[Metric, ...]:
    """The registered metrics, in the order they are computed and shown."""
    return METRICS


def resolve(path: str) -> Callable[..., Any]:
    """The function that "module:function" names."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def compute(metric: Metric, inputs: Mapping[str, Any]) -> Any:
    """The metric's value for one run: its run function called with the INPUTS its parameters name."""
    fn = resolve(metric.run)
    params = inspect.signature(fn).parameters
    unknown = [p for p, v in params.items() if p not in INPUTS and v.default is inspect.Parameter.empty
               and v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)]
    if unknown:
        raise TypeError(f"metric {metric.key!r}: {metric.run} asks for {unknown}; a metric may ask for {list(INPUTS)}")
    return fn(**{p: inputs[p] for p in params if p in INPUTS})


def suite_figure(metric: Metric, values: Sequence[Any], planned: int) -> Any:
    """The metric's suite figure over the recorded runs' values (None where a run lacks it); None: not summarised."""
    return resolve(metric.suite)(list(values), planned) if metric.suite else None


def summary_lines(metric: Metric, figure: Any) -> list[str]:
    """The console lines under the summary table for the metric's suite figure."""
    if figure is None:
        return []
    if metric.lines:
        return list(resolve(metric.lines)(figure))
    items = [f"{k} {_short(v)}" for k, v in figure.items() if _scalar(v)] if isinstance(figure, dict) else [_short(figure)]
    return [f"{metric.title or metric.key}: " + ", ".join(items)]


def _scalar(v: Any) -> bool:
    return isinstance(v, (int, float, str, bool)) or v is None


def _short(v: Any) -> str:
    return "-" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v)


def mean_figures(values: Sequence[Any], planned: int) -> dict[str, Any] | None:
    """The default suite figure: over the runs whose value is a dict, the mean of each numeric field and the share of
    runs where each true/false field is true (`runs`: how many runs have the metric); None when no run has it."""
    runs = [v for v in values if isinstance(v, dict)]
    if not runs:
        return None
    out: dict[str, Any] = {"runs": len(runs)}
    for key in dict.fromkeys(k for r in runs for k in r):
        xs = [r[key] for r in runs if key in r and r[key] is not None]
        if xs and all(isinstance(x, bool) for x in xs):
            out[key] = round(sum(xs) / len(xs), 6)
        elif xs and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs):
            out[key] = round(statistics.fmean(xs), 6)
    return out
