"""Adding a metric the way docs/extending.md says (one module, one registry line) puts it in score.json,
results.jsonl, the run summary (its figure, console line, table column and legend) and the HTML report."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from roadtest.scoring import registry
from roadtest.scoring.registry import Column, Metric

REPO = Path(__file__).resolve().parents[2]

THROWAWAY = '''
"""A throwaway metric (a stand-in for a new one): how many ticks the run lasted and its last tick's time."""


def evaluate(trace, meta):
    return {"ticks": len(trace.states), "last_time_s": trace.states[-1].time if trace.states else None,
            "country": meta.get("country")}
'''

LINE = Metric("throwaway", "throwaway_metric_standin:evaluate", "Throwaway stand-in",
              columns=(Column("ticks", "ticks", "d", "ticks the run lasted (a throwaway stand-in metric)"),))


@pytest.fixture
def throwaway(tmp_path, monkeypatch):
    """The metric's one file on the path and its one line in the registry."""
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "throwaway_metric_standin.py").write_text(textwrap.dedent(THROWAWAY))
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    monkeypatch.setattr(registry, "METRICS", registry.METRICS + (LINE,))


def test_a_new_metric_reaches_record_summary_and_report(throwaway, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")  # the summary table unfolded, one header line
    # the full table, as a wide terminal shows it (a pipe gets the compact one), written without styles
    import rich.console

    plain = rich.console.Console
    monkeypatch.setattr(rich.console, "Console", lambda **kw: plain(**{"width": 240, "force_terminal": True,
                                                                     "color_system": None, **kw}))
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target
    from roadtest.report.html import build_report
    from roadtest.runner.episode import Job, execute_run
    from roadtest.runner.store import append_record
    from roadtest.runner.summary import legend, write_summary

    ((_, variants),) = list(iter_target(REPO / "scenarios" / "straight_speed_limit.yaml"))
    bundle = write_bundle(variants[0], tmp_path / "bundles")
    out = tmp_path / "results"
    job = Job(run_id="r1", bundle=str(bundle), variant="v", seed=0, agent="lane-follower", tick=0.05, out=str(out),
              timeout=300.0, reference=False)
    record = execute_run(job)
    assert record["status"] in ("completed", "failed"), record["reason"]
    # the runner counts ticks and sim time itself: the metric must agree with it
    assert record["throwaway"] == {"ticks": record["ticks"], "last_time_s": record["sim_time"], "country": "CN"}
    score = json.loads((out / "runs" / "r1" / "score.json").read_text())
    assert score["throwaway"] == record["throwaway"]
    append_record(out, record)
    assert json.loads((out / "results.jsonl").read_text().splitlines()[0])["throwaway"]["ticks"] == record["ticks"]

    summary = write_summary(out, [record], ["r1"])
    printed = capsys.readouterr().out
    n = record["ticks"]
    assert summary["throwaway"] == {"runs": 1, "ticks": n, "last_time_s": record["sim_time"]}
    assert json.loads((out / "summary.json").read_text())["throwaway"]["ticks"] == n
    assert f"Throwaway stand-in: runs 1, ticks {n}, last_time_s" in printed
    assert "ticks: ticks the run lasted" in printed and ("ticks", "ticks the run lasted (a throwaway stand-in metric)") in legend()
    header = next(line for line in printed.splitlines() if "status" in line and "DS" in line)
    assert header.index("compliance") < header.index("ticks") < header.index("infractions")
    row = next(line for line in printed.splitlines() if line.lstrip("│ ").startswith("r1"))
    assert f" {n} " in row

    page = build_report(out, tmp_path / "page" / "report.html").read_text()
    assert "<h3>Throwaway stand-in of this run</h3>" in page and "<h3>Throwaway stand-in over the suite</h3>" in page
    assert f"<th>ticks</th><td>{n}</td>" in page and "<th>country</th><td>CN</td>" in page


def test_the_default_suite_figure_by_hand():
    # means of the numbers, share of true among true/false, over the two runs that have the metric
    values = [{"a": 1, "ok": True, "name": "x"}, {"a": 2.5, "ok": False, "b": None}, None]
    assert registry.mean_figures(values, 3) == {"runs": 2, "a": 1.75, "ok": 0.5}
    assert registry.mean_figures([None, None], 2) is None


def test_a_metric_asking_for_an_input_there_is_not_is_named(throwaway, tmp_path):
    (tmp_path / "mods" / "throwaway_bad_standin.py").write_text("def evaluate(trace, weather):\n    return {}\n")
    bad = Metric("bad", "throwaway_bad_standin:evaluate")
    with pytest.raises(TypeError, match=r"metric 'bad': throwaway_bad_standin:evaluate asks for \['weather'\]"):
        registry.compute(bad, {k: None for k in registry.INPUTS})


def test_every_registered_metric_resolves_and_asks_only_for_known_inputs():
    import inspect

    for m in registry.metrics():
        for path in (m.run, m.suite, m.lines):
            if path:
                assert callable(registry.resolve(path)), path
        params = inspect.signature(registry.resolve(m.run)).parameters
        assert set(params) <= set(registry.INPUTS), (m.key, list(params))
    keys = [m.key for m in registry.metrics()]
    assert len(set(keys)) == len(keys)
    from roadtest.scoring.record import LEADERBOARD_KEYS, RULE_KEYS

    # a metric's key must not overwrite what the leaderboard or the rules write into the same record
    frame = {"status", "events", "notes", "termination", "termination_reason", *LEADERBOARD_KEYS, *RULE_KEYS}
    assert not frame & set(keys)


def test_the_documented_example_as_written(tmp_path, monkeypatch):
    # docs/extending.md's module and registry line, taken from the page (the module under a throwaway name)
    import re

    monkeypatch.syspath_prepend(str(REPO / "tests" / "metrics"))
    from metrics_synth import drive, straight_meta
    from roadtest.runner.summary import legend, summarise
    from roadtest.scoring.score import score_run

    module, line = re.findall(r"```python\n(.*?)```", (REPO / "docs" / "extending.md").read_text(), re.S)[:2]
    (tmp_path / "doc_metric_standin.py").write_text(textwrap.dedent(module))
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = eval(textwrap.dedent(line).strip().rstrip(",").replace("roadtest.metrics.ego_speed", "doc_metric_standin"),
                 {"Metric": Metric, "Column": Column})
    monkeypatch.setattr(registry, "METRICS", registry.METRICS + (entry,))
    rec = score_run(drive([0.0, 0.2, 0.6, 1.2], speeds=[2.0, 4.0, 6.0, 4.0]), straight_meta(100))
    assert rec["ego_speed"] == {"top_m_s": 6.0, "mean_m_s": 4.0}  # max and mean of 2, 4, 6, 4
    summary = summarise([{"run_id": "a", "status": "completed", **rec}], ["a", "b"])
    assert summary["ego_speed"] == {"runs": 1, "top_m_s": 6.0, "mean_m_s": 4.0}
    assert ("top m/s", "the ego's top speed over the run") in legend()
