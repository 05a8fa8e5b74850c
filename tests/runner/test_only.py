"""`roadtest run --only PATTERN`: one variant of a swept scene without a hand-edited copy, selected as pytest's -k."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roadtest.cli import main
from roadtest.errors import UserError
from roadtest.runner.cli import id_matcher

REPO = Path(__file__).resolve().parents[2]
SWEEP = REPO / "scenarios" / "fog_sweep.yaml"  # 2 weathers x 2 speeds
IDS = ["fog-sweep--environment.weather-fog_light--ego.speed-20", "fog-sweep--environment.weather-fog_light--ego.speed-30",
       "fog-sweep--environment.weather-fog_dense--ego.speed-20", "fog-sweep--environment.weather-fog_dense--ego.speed-30"]


@pytest.mark.parametrize("pattern, chosen", [
    ("fog_dense", [2, 3]),
    ("FOG_DENSE", [2, 3]),                         # case-insensitive, as -k
    ("fog_dense and speed-20", [2]),
    ("fog_dense and not speed-20", [3]),
    ("speed-20 or speed-30", [0, 1, 2, 3]),
    ("not (fog_light or speed-30)", [2]),
    ("snow", []),
])
def test_patterns_select_as_pytest_k_would(pattern, chosen):
    match = id_matcher(pattern)
    assert [i for i, v in enumerate(IDS) if match(v)] == chosen


@pytest.mark.parametrize("pattern", ["", "fog and", "(fog", "fog)", "fog speed", "and fog"])
def test_malformed_patterns_are_user_errors(pattern):
    with pytest.raises(UserError, match="--only"):
        id_matcher(pattern)


def test_run_only_one_variant_of_a_sweep(tmp_path):
    out = tmp_path / "res"
    assert main(["run", str(SWEEP), "--only", "fog_dense and speed-20", "--out", str(out)]) in (0, 1)
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["variant"] for r in recs] == [IDS[2]]


def test_no_matching_variant_exits_2_listing_the_ids(tmp_path, capsys):
    assert main(["run", str(SWEEP), "--only", "snow", "--out", str(tmp_path / "res")]) == 2
    err = capsys.readouterr().err
    assert "--only 'snow': no variant id of the target matches" in err and IDS[0] in err
    assert not (tmp_path / "res" / "results.jsonl").exists()
