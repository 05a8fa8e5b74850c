"""Every self-contained esmini scenario of ../shared/conformance runs to its stop trigger or is refused by name,
ending when esmini ended it; prints the table (pytest -s) of end times and position differences."""

from __future__ import annotations

import pytest

from roadtest.sim.conformance import corpus_rows, corpus_table, run_corpus_file

pytestmark = [pytest.mark.conformance, pytest.mark.slow]

LOWER_BAR = 0.80  # fraction of runnable files ending as esmini does, enforced today (90% reached on 2026-11-29)
TARGET = 0.90  # issue 4's bar; below it the test xfails with the files that differ


@pytest.fixture(scope="module")
def results(conformance_dir):
    res = [run_corpus_file(conformance_dir, row) for row in corpus_rows(conformance_dir)]
    print("\n" + corpus_table(res))
    return res


def test_every_file_runs_or_is_refused_by_name(results):
    errors = [f"{r.file}: {r.detail}" for r in results if r.result == "error"]
    assert not errors, "\n".join(errors)
    assert all(r.detail.startswith("unsupported: ") for r in results if r.result == "refused")


def test_end_times_match_esmini_above_the_lower_bar(results):
    runnable = [r for r in results if r.result != "missing"]
    share = sum(r.matches for r in runnable) / len(runnable)
    assert share >= LOWER_BAR, corpus_table(results)


def test_end_times_match_esmini_for_nine_in_ten(results):
    runnable = [r for r in results if r.result != "missing"]
    share = sum(r.matches for r in runnable) / len(runnable)
    if share < TARGET:
        differ = ", ".join(r.file for r in runnable if not r.matches)
        pytest.xfail(f"{share:.0%} of files end as esmini does (target {TARGET:.0%}); differing: {differ}")


def test_deterministic_scenarios_stay_close_to_esmini(results):
    # Lane following at commanded speeds by the default controller: the standard leaves no room, so within 0.5 m.
    exact = {"straight_500m", "slow-lead-vehicle", "follow_reference_interactive"}
    for r in results:
        if r.file in exact and r.result == "completed":
            assert r.max_diff and max(r.max_diff.values()) < 0.5, (r.file, r.max_diff)
    assert any(r.file in exact and r.result == "completed" for r in results)
