"""Results folders: a new one per invocation without --out; --out and --resume only for the same plan."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from runner_fakes import make_bundle
from roadtest.cli import main
from roadtest.runner.store import read_records

HERE = Path(__file__).resolve().parent
FAKE = "runner_fakes:FakeSimulator"
AGENTS = HERE / "runner_fakes.py"
FOLDER = re.compile(r"roadtest: results in (\S+)")


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["run", *argv, "--backend", FAKE, "--workers", "1"])
    return code, capsys.readouterr().err


def test_each_invocation_without_out_gets_a_new_folder_and_says_which(tmp_path, monkeypatch, capsys):
    a, b = make_bundle(tmp_path / "in", "alpha"), make_bundle(tmp_path / "in", "beta")
    monkeypatch.chdir(tmp_path)
    before = datetime.now(timezone.utc).replace(microsecond=0)
    folders = []
    for target in (a, a, b):  # the same target twice, then another one
        code, err = _run(capsys, str(target))
        assert code == 0, err
        (printed,) = FOLDER.findall(err)
        folders.append(Path(printed))
    after = datetime.now(timezone.utc)
    assert len(set(folders)) == 3
    for folder, target in zip(folders, (a, a, b)):
        assert folder.parent == Path("results")
        m = re.fullmatch(rf"{target.name}-(\d{{8}}T\d{{6}}Z)(-\d+)?", folder.name)
        assert m, folder.name
        stamp = datetime.strptime(m.group(1), "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
        assert before <= stamp <= after + timedelta(seconds=1)  # UTC, not local time
        (rec,) = read_records(tmp_path / folder)
        assert rec["status"] == "completed"
        assert json.loads((tmp_path / folder / "plan.json").read_text())["variants"] == [target.name]


def test_out_on_a_folder_of_another_plan_is_refused_naming_the_difference(tmp_path, capsys):
    a = make_bundle(tmp_path / "in", "alpha")
    suite = tmp_path / "suite"
    make_bundle(suite, "alpha")
    make_bundle(suite, "gamma")
    out = str(tmp_path / "out")
    assert _run(capsys, str(a), "--out", out)[0] == 0
    records = (tmp_path / "out" / "results.jsonl").read_text()
    for extra, named in ((["--agent", f"{AGENTS}:SteadyAgent"], "agent"), (["--seeds", "3"], "seeds: 0..2 here, 0"),
                         (["--tick", "0.1"], "tick: 0.1 here, 0.05"), ([], "variants: 1 not in it (gamma)")):
        target = str(suite) if not extra else str(a)
        for resume in ([], ["--resume"]):
            code, err = _run(capsys, target, "--out", out, *extra, *resume)
            assert code == 2, err
            assert "different plan" in err and named in err, err
            assert "Traceback" not in err
    assert (tmp_path / "out" / "results.jsonl").read_text() == records  # nothing was added or replaced


def test_resume_continues_the_same_plan_only(tmp_path, capsys):
    a = make_bundle(tmp_path / "in", "alpha")
    out = str(tmp_path / "out")
    assert _run(capsys, str(a), "--out", out, "--seeds", "2")[0] == 0
    code, err = _run(capsys, str(a), "--out", out, "--seeds", "2")
    assert code == 2 and "already holds 2 run(s) of this plan" in err and "--resume" in err
    code, err = _run(capsys, str(a), "--out", out, "--seeds", "2", "--resume")
    assert code == 0 and "resumed: 2 run(s)" in err
    assert len(list(read_records(tmp_path / "out"))) == 2
    code, err = _run(capsys, str(a), "--resume")
    assert code == 2 and "--resume: expected --out DIR" in err


def test_a_folder_without_a_plan_file_is_checked_by_its_run_ids(tmp_path, capsys):
    a, b = make_bundle(tmp_path / "in", "alpha"), make_bundle(tmp_path / "in", "beta")
    out = tmp_path / "out"
    assert _run(capsys, str(a), "--out", str(out))[0] == 0
    (out / "plan.json").unlink()  # a folder written before plans were recorded
    code, err = _run(capsys, str(b), "--out", str(out), "--resume")
    assert code == 2 and "this plan does not have" in err and "alpha__s0__scenario" in err
