"""Names and paths a careless user gives: long scenario names are cut and hashed on disk while the record keeps
the whole name; what cannot be written is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roadtest.cli import main
from roadtest.names import disk_name
from roadtest.runner.cli import run_id_for
from roadtest.runner.store import read_records


def test_disk_name_keeps_short_names_and_hashes_long_ones():
    assert disk_name("straight-speed-limit") == "straight-speed-limit"
    assert disk_name("a" * 200) == "a" * 200
    long = "a" * 250
    import hashlib

    assert disk_name(long) == "a" * 183 + "-" + hashlib.sha256(long.encode()).hexdigest()[:16]
    assert disk_name(long) != disk_name(long + "b") and len(disk_name(long + "b")) == 200
    assert len(disk_name("é" * 150).encode()) <= 200  # cut on a character, not inside one


def test_ordinary_run_ids_are_unchanged():
    assert run_id_for("straight-speed-limit", 3, "expert") == "straight-speed-limit__s3__expert"


@pytest.mark.parametrize("n", [225, 250, 600])
def test_a_long_scenario_name_runs_and_the_record_keeps_it(repo_root, tmp_path, capsys, n):
    text = (repo_root / "scenarios" / "straight_speed_limit.yaml").read_text()
    name = "a" * n
    scen = tmp_path / "long.yaml"
    scen.write_text(text.replace("name: straight-speed-limit", f"name: {name}", 1))
    out = tmp_path / "out"
    code = main(["run", str(scen), "--out", str(out), "--agent", "expert"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "File name too long" not in err
    assert code == 0, err
    (rec,) = read_records(out)
    assert rec["status"] == "completed" and rec["variant"] == name and rec["scenario"] == name
    assert len(rec["run_id"].encode()) <= 200
    assert (out / "runs" / rec["run_id"] / "trace.json.gz").exists()
    (bundle,) = (out / "bundles").iterdir()
    assert json.loads((bundle / "meta.json").read_text())["scenario"] == name


def test_convert_o_naming_a_file_is_one_line_exit_2(repo_root, tmp_path, capsys):
    (tmp_path / "taken").write_text("x")
    assert main(["convert", str(repo_root / "scenarios" / "straight_speed_limit.yaml"), "-o", str(tmp_path / "taken")]) == 2
    err = capsys.readouterr().err
    assert f"-o {tmp_path / 'taken'}: is a file, expected a folder for the bundles" in err and "Traceback" not in err
    assert (tmp_path / "taken").read_text() == "x"


def test_an_absolute_glob_in_a_suite_is_expanded_like_a_relative_one(repo_root, tmp_path, capsys):
    scen = tmp_path / "scen"
    scen.mkdir()
    text = (repo_root / "scenarios" / "straight_speed_limit.yaml").read_text()
    for name in ("one", "two"):
        (scen / f"{name}.yaml").write_text(text.replace("name: straight-speed-limit", f"name: abs-{name}", 1))
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: abs\nscenarios: ['{scen}/*.yaml']\n")
    assert main(["convert", str(suite), "-o", str(tmp_path / "bundles")]) == 0
    assert sorted(p.name for p in (tmp_path / "bundles").iterdir()) == ["abs-one", "abs-two"]
    suite.write_text(f"name: abs\nscenarios: ['{tmp_path}/nothing/*.yaml']\n")
    assert main(["convert", str(suite), "-o", str(tmp_path / "b2")]) == 2
    err = capsys.readouterr().err
    assert f"glob '{tmp_path}/nothing/*.yaml' matches no file" in err and "Traceback" not in err
