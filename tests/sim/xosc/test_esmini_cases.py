"""Generated cases the two players once disagreed on, each shrunk by hypothesis and kept with esmini 3.6's own
trajectory (esmini.csv, every 0.1 s; found.json says what roadtest did when it was kept): replayed without esmini,
every entity stays within 0.5 m of esmini over the whole run, or within the bound of a difference not yet fixed."""

from __future__ import annotations

import pytest
from esmini_diff import BOUND, diff_file
from esmini_sweep import CASES

# case -> (bound in m, why it still differs); every other kept case agrees within BOUND
KNOWN: dict[str, tuple[float, str]] = {
    "lane_change_87b362da87": (0.65, "a 1 s linear LaneChangeAction at 3 m/s: 0.6 m "
                                     "just after it ends (cause not yet found)"),
    "lateral_distance_4b1c6b7063": (0.55, "entity frame, no constraints, the cars 5 m apart: "
                                          "0.53 m from 3.8 s on (cause not yet found)"),
    "trajectory_037baa7974": (1.0, "a timed NURBS of order 2: 0.93 m, likely the curve's "
                                   "sampling against time, as the corpus's trajectory-test (not yet confirmed)"),
}
NAMES = sorted(p.name for p in CASES.iterdir() if (p / "esmini.csv").exists()) if CASES.is_dir() else []


def test_cases_are_kept():
    assert len(NAMES) >= 5 and set(KNOWN) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_kept_case_replays_close_to_esmini(name):
    where = CASES / name
    r = diff_file(where / "scenario.xosc", reference_csv=where / "esmini.csv", label=name)
    assert r.result == "compared", r.detail
    bound = KNOWN.get(name, (BOUND, ""))[0]
    assert r.worst <= bound, {d.entity: (d.first, round(d.size, 2), round(d.worst, 2), d.element)
                              for d in r.entities.values()}
