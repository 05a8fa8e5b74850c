"""Every self-contained esmini scenario of ../shared/conformance runs to its stop trigger or is refused by name,
ending when esmini ended it; prints the table (pytest -s) of end times and position differences."""

from __future__ import annotations

import pytest

from esmini_corpus import corpus_rows, corpus_table, run_corpus_file

pytestmark = [pytest.mark.conformance, pytest.mark.slow]

TARGET = 0.90  # the built-in player's bar: nine in ten end within one tick of esmini, and the rest are refused by name

# Files whose entities stray more than CLOSE from esmini's trajectory, with the reason (the standard
# wins where esmini departs from it); every other file stays within CLOSE, entity by entity.
CLOSE = 0.5  # m
KNOWN: dict[str, tuple[float, str]] = {
    "controller_test": (1.0, "esmini moves the Ego twice in the ticks two InteractiveControllers share it (one "
                             "per domain), one tick ahead; roadtest moves it once"),
    "cut-in_sloppy": (3.0, "the sloppy driver's noise reproduces esmini's speeds within 0.09 m/s over 364 s; "
                           "the small per-tick differences add up along the way"),
    "highway_merge_advanced": (1.5, "compared over its whole 1200 s: A5 (was 31.9 m) now brakes at its Performance "
                                    "limit after its lead stops at the road end, as esmini, one tick earlier (1.25 m); "
                                    "A3 backs up at 136-139 s to hold its continuous LongitudinalDistanceAction gap to "
                                    "A2, stopped at the road end, with reversing speeds up to 0.9 m/s from esmini's "
                                    "(1.41 m, cause not yet found)"),
    "parking_demo": (1.0, "Target5: esmini keeps a 0.05 rad heading offset after leaving the junction and starts "
                          "its clothoid from it; roadtest faces along its road (esmini departs from the lane)"),
    "trajectory-test": (1.0, "Target's NURBS: control-point times at the basis peaks as esmini, a residual of the "
                             "curve's sampling remains"),
}


@pytest.fixture(scope="module")
def results(conformance_dir):
    res = [run_corpus_file(conformance_dir, row) for row in corpus_rows(conformance_dir)]
    print("\n" + corpus_table(res))
    return res


def test_every_file_runs_or_is_refused_by_name(results):
    errors = [f"{r.file}: {r.detail}" for r in results if r.result == "error"]
    assert not errors, "\n".join(errors)
    assert all(r.detail.startswith("unsupported: ") for r in results if r.result == "refused")


def test_nine_in_ten_end_as_esmini_and_the_rest_are_refused_by_name(results):
    runnable = [r for r in results if r.result != "missing"]
    share = sum(r.matches for r in runnable) / len(runnable)
    assert share >= TARGET, corpus_table(results)
    elsewhere = [r.file for r in runnable if not r.matches and r.result != "refused"]
    assert not elsewhere, f"end neither as esmini nor refused by name: {elsewhere}"


def test_trajectories_stay_close_to_esmini_except_the_known_differences(results):
    far = {}
    for r in results:
        if r.result in ("completed", "timeout") and r.max_diff:
            bound = KNOWN.get(r.file, (CLOSE, ""))[0]
            worst = max(r.max_diff.values())
            if worst > bound:
                far[r.file] = (round(worst, 2), bound)
    assert not far, f"position differences beyond their bound (m): {far}"
