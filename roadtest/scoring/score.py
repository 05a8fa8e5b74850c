"""One run's score record: the leaderboard's fields, every registered metric (registry.py), the rule verdicts."""

from __future__ import annotations

from typing import Any

from roadtest.metrics import leaderboard
from roadtest.rules import evaluate as rule_monitors
from roadtest.scoring.record import jsonable, verdict_counts
from roadtest.scoring.registry import compute, metrics
from roadtest.sim.api import Trace

__all__ = ["score_run"]


def score_run(trace: Trace, meta: dict, reference: Trace | None = None, bundle: Any = None) -> dict[str, Any]:
    """Everything roadtest reports about one run, JSON-ready, field names as the leaderboard writes them.

    `reference` is the expert's trace of the same variant (planning L2), `bundle` the run's bundle (for a metric that
    needs the map: without it the VLM figures are left out); a metric that returns None leaves its key out.
    """
    lb = leaderboard.evaluate(trace, meta, reference)
    out = lb.to_dict()
    out["termination"] = trace.termination.value if trace.termination else None
    out["termination_reason"] = trace.reason
    inputs = {"trace": trace, "meta": meta, "reference": reference, "bundle": bundle, "leaderboard": lb}
    for m in metrics():
        value = compute(m, inputs)
        if value is not None:
            out[m.key] = value
    try:
        rules = [jsonable(r) for r in rule_monitors.evaluate_rules(trace, meta)]
    except Exception as e:  # noqa: BLE001 - a monitor's bug must not cost the run its driving score
        import traceback

        tb = traceback.extract_tb(e.__traceback__)[-1]
        rules = None
        out["rules_error"] = f"{type(e).__name__}: {e} at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}"
    if rules is not None:
        out["rules"] = rules
        out["rule_verdicts"] = verdict_counts(rules)
    return jsonable(out)
