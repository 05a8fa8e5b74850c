"""The results store under a torn tail, an unwritable file and a failing append: no record is lost or garbled,
and the user gets one line and exit 2, before the runs rather than after them (fake simulator)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from runner_fakes import make_bundle
from roadtest.cli import main
from roadtest.runner.cli import run_command
from roadtest.runner.store import RESULTS, TORN, append_record, read_records

FAKE = "runner_fakes:FakeSimulator"


def run(target, out, resume=False):
    return run_command(target=Path(target), agent=None, seeds=1, seed=0, tick=0.05, workers=1, out=Path(out),
                       resume=resume, trace_csv=None, timeout=60.0, backend=FAKE)


def test_a_torn_last_line_is_cut_off_before_the_next_append(tmp_path):
    (tmp_path / RESULTS).write_bytes(b'{"run_id":"a","status":"completed"}\n{"run_id":"b","sta')
    append_record(tmp_path, {"run_id": "c", "status": "completed"})
    assert [r["run_id"] for r in read_records(tmp_path)] == ["a", "c"]
    assert (tmp_path / RESULTS).read_bytes() == b'{"run_id":"a","status":"completed"}\n{"run_id":"c","status":"completed"}\n'
    assert (tmp_path / TORN).read_bytes() == b'{"run_id":"b","sta\n'


def test_a_store_that_is_all_fragment_keeps_only_the_new_record(tmp_path):
    (tmp_path / RESULTS).write_bytes(b'{"run_id":"b"' * 10000)  # 130 kB, no newline: longer than one tail chunk
    append_record(tmp_path, {"run_id": "c"})
    assert (tmp_path / RESULTS).read_bytes() == b'{"run_id":"c"}\n'


@pytest.fixture
def two_runs(tmp_path):
    """A suite of two bundles run once into OUT: (suite, out, the store's two record lines)."""
    suite = tmp_path / "suite"
    for name in ("one", "two"):
        make_bundle(suite, name)
    out = tmp_path / "out"
    assert run(suite, out) == 0
    return suite, out, (out / RESULTS).read_bytes().splitlines(keepends=True)


def test_resume_after_a_torn_write_records_every_run(two_runs):
    suite, out, lines = two_runs
    (out / RESULTS).write_bytes(lines[0] + lines[1][:25])  # the second record torn mid-write, as by kill -9
    assert run(suite, out, resume=True) == 0
    recs = list(read_records(out))
    assert sorted(r["variant"] for r in recs) == ["one", "two"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["missing"] == []


def _refuse_results(monkeypatch, out):
    """os.open raises PermissionError for OUT/results.jsonl opened for writing, as for an immutable file
    (chattr +i), which root cannot write either; every other open goes through."""
    real = os.open
    target = str(Path(out) / RESULTS)

    def fake_open(path, flags, *args, **kw):
        if str(path) == target and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(1, "Operation not permitted", str(path))
        return real(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", fake_open)


def test_an_unwritable_store_is_refused_before_any_run(tmp_path, monkeypatch, capsys):
    suite = tmp_path / "suite"
    make_bundle(suite, "one")
    out = tmp_path / "out"
    _refuse_results(monkeypatch, out)
    code = main(["run", str(suite), "--out", str(out), "--backend", FAKE, "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{out / RESULTS}: cannot append results (Operation not permitted); choose another --out" in err
    assert "Traceback" not in err and not (out / "runs").exists()  # refused before the first run


def test_a_record_that_cannot_be_appended_is_kept_and_resume_appends_it(tmp_path, monkeypatch, capsys):
    import roadtest.runner.cli as rcli

    suite = tmp_path / "suite"
    make_bundle(suite, "one")
    out = tmp_path / "out"
    real = rcli.append_record

    def disk_full(out_dir, rec):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rcli, "append_record", disk_full)
    code = main(["run", str(suite), "--out", str(out), "--backend", FAKE, "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "No space left on device" in err and "--resume appends it" in err
    assert "Traceback" not in err
    kept = list((out / "runs").glob("*/.result.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text())["status"] == "completed"
    monkeypatch.setattr(rcli, "append_record", real)
    wall = json.loads(kept[0].read_text())["wall_s"]
    assert run(suite, out, resume=True) == 0
    (rec,) = read_records(out)
    assert rec["status"] == "completed" and rec["wall_s"] == wall and "kept" not in rec  # the same record, not a rerun
    assert not kept[0].exists()


def test_out_naming_a_file_is_one_line_exit_2(tmp_path, capsys):
    suite = tmp_path / "suite"
    make_bundle(suite, "one")
    (tmp_path / "taken").write_text("x")
    assert main(["run", str(suite), "--out", str(tmp_path / "taken"), "--backend", FAKE]) == 2
    err = capsys.readouterr().err
    assert "is a file, expected a results folder" in err and "Traceback" not in err


def test_resume_never_writes_through_a_run_folder_linked_elsewhere(two_runs, tmp_path, capsys):
    suite, out, lines = two_runs
    (out / RESULTS).write_bytes(lines[0])  # the second run is to run again
    second = json.loads(lines[1])["run_id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    import shutil

    shutil.rmtree(out / "runs" / second)
    (out / "runs" / second).symlink_to(elsewhere)
    assert main(["run", str(suite), "--out", str(out), "--resume", "--backend", FAKE]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'runs' / second}: is a link (to {elsewhere})" in err and "Traceback" not in err
    assert list(elsewhere.iterdir()) == []


def test_url_credentials_are_redacted_in_every_recorded_string(tmp_path):
    append_record(tmp_path, {"run_id": "a", "reason": "http://u:p%40ss@gpu1:8000/v1: HTTP 500",
                             "vlm": {"servers": ["https://tok@api.example/v1", "http://plain:9/x"]}})
    (rec,) = read_records(tmp_path)
    assert rec["reason"] == "http://***@gpu1:8000/v1: HTTP 500"
    assert rec["vlm"]["servers"] == ["https://***@api.example/v1", "http://plain:9/x"]
    assert b"p%40ss" not in (tmp_path / RESULTS).read_bytes()


def test_an_out_folder_that_cannot_be_created_is_one_line_exit_2(tmp_path, capsys):
    suite = tmp_path / "suite"
    make_bundle(suite, "one")
    (tmp_path / "plain").write_text("x")
    out = tmp_path / "plain" / "sub"  # a folder below a file: cannot be created, even by root
    assert main(["run", str(suite), "--out", str(out), "--backend", FAKE]) == 2
    err = capsys.readouterr().err
    assert f"--out {out}: cannot write the results folder (Not a directory); choose another --out" in err
    assert "Traceback" not in err


def test_a_bundles_folder_linked_elsewhere_is_refused_before_anything_is_written(tmp_path, repo_root, capsys):
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "bundles").symlink_to(elsewhere)
    code = main(["run", str(repo_root / "scenarios" / "straight_speed_limit.yaml"), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and f"{out / 'bundles'}: is a link (to {elsewhere})" in err and "Traceback" not in err
    assert list(elsewhere.iterdir()) == []
