"""`roadtest convert`: bad scenarios are reported and skipped, the others still convert, exit code 2."""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path

import pytest

from roadtest.cli import main

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(SCENARIOS / "straight_speed_limit.yaml", src / "a.yaml")
    shutil.copy(SCENARIOS / "fog_sweep.yaml", src / "b.yaml")
    text = (SCENARIOS / "crosswalk_pedestrian.yaml").read_text().replace("kind: pedestrian", "kind: pedestrain")
    (src / "c_bad.yaml").write_text(text)
    return src


@pytest.fixture
def recording_writer_standin(monkeypatch):
    """Stand-in for roadtest.dsl.bundle_writer that records calls, to test convert's own logic alone."""
    calls: list = []

    def write_bundle(variant, out_dir: Path) -> Path:
        calls.append((variant.id, Path(out_dir)))
        return Path(out_dir) / variant.id

    module = types.ModuleType("roadtest.dsl.bundle_writer")
    module.write_bundle = write_bundle
    monkeypatch.setitem(sys.modules, "roadtest.dsl.bundle_writer", module)
    return calls


def test_bad_file_reported_others_converted(folder, tmp_path, capsys, recording_writer_standin):
    code = main(["convert", str(folder), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    ids = [c[0] for c in recording_writer_standin]
    assert "straight-speed-limit" in ids and sum(i.startswith("fog-sweep--") for i in ids) == 4
    assert not any(i.startswith("crosswalk") for i in ids)
    lines = [ln for ln in err.splitlines() if ln]
    assert len(lines) == 1
    assert "c_bad.yaml:" in lines[0] and "actors.0.kind" in lines[0] and "'pedestrian'" in lines[0]
    assert "Traceback" not in err


def test_summary_line_counts(folder, tmp_path, capsys, recording_writer_standin):
    main(["convert", str(folder), "-o", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert "converted 5 variant(s) from 2 scenario file(s)" in out and "1 file(s) failed" in out


def test_all_good_exits_zero(tmp_path, capsys, recording_writer_standin):
    assert main(["convert", str(SCENARIOS / "suites" / "smoke.yaml"), "-o", str(tmp_path)]) == 0
    assert len(recording_writer_standin) == 5


def test_real_bundles_written_only_for_good_files(folder, tmp_path, capsys):
    (folder / "b.yaml").unlink()
    out = tmp_path / "out"
    assert main(["convert", str(folder), "-o", str(out)]) == 2
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["straight-speed-limit"]
    bundle = out / "straight-speed-limit"
    assert {p.name for p in bundle.iterdir()} >= {"road.xodr", "scenario.xosc", "meta.json"}
    meta = json.loads((bundle / "meta.json").read_text())
    assert meta["id"] == "straight-speed-limit"


def test_schema_command_prints_json_schema(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert {"road", "ego", "actors", "sweep"} <= set(schema["properties"])


def test_missing_target(tmp_path, capsys, recording_writer_standin):
    assert main(["convert", str(tmp_path / "nope.yaml"), "-o", str(tmp_path)]) == 2
    assert "no such file" in capsys.readouterr().err
