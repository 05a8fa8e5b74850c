"""An OpenSCENARIO file nested 2,000 elements deep is the file's mistake (`invalid`, exit 2 with its location),
not a RecursionError counted as an infrastructure failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roadtest.cli import main
from roadtest.errors import ScenarioError
from roadtest.sim.xosc.parser import MAX_DEPTH, parse_xml

HEAD = ('<?xml version="1.0"?>\n<OpenSCENARIO><FileHeader revMajor="1" revMinor="1" date="2020-01-01T00:00:00" '
        'description="x" author="x"/><RoadNetwork/><Entities/><Storyboard><Init><Actions>\n')
TAIL = "</Actions></Init><StopTrigger/></Storyboard></OpenSCENARIO>\n"


def _nested(path: Path, depth: int) -> Path:
    path.write_text(HEAD + "<Private entityRef='x'>" * depth + "</Private>" * depth + TAIL)
    return path


def test_parse_refuses_elements_nested_past_the_limit(tmp_path):
    with pytest.raises(ScenarioError) as info:
        parse_xml(_nested(tmp_path / "deep.xosc", 2000))
    assert str(info.value.problems[0]) == f"{tmp_path / 'deep.xosc'}:3:0: Private: elements nested more than 256 deep"


def test_nesting_at_the_limit_parses(tmp_path):
    root = parse_xml(_nested(tmp_path / "ok.xosc", MAX_DEPTH - 5))  # the 5 enclosing elements fill the rest
    assert root.tag == "OpenSCENARIO"


def test_a_bundle_nested_2000_deep_runs_as_invalid_not_sim_error(tmp_path, capsys):
    bundle = tmp_path / "deep"
    bundle.mkdir()
    _nested(bundle / "scenario.xosc", 2000)
    out = tmp_path / "out"
    assert main(["run", str(bundle), "--out", str(out)]) == 2
    (rec,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert rec["status"] == "invalid" and rec["infrastructure"] is False
    assert rec["reason"] == f"{bundle / 'scenario.xosc'}:3:0: Private: elements nested more than 256 deep"
    assert "RecursionError" not in capsys.readouterr().err
