"""`roadtest run --backend carla` without a reachable server fails at once, before any run, with exit 2."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from roadtest.cli import main
from roadtest.sim.carla.connect import parse_endpoint

REPO = Path(__file__).resolve().parents[3]


def _closed_port() -> int:
    with socket.socket() as s:  # bound then released: nothing listens there afterwards
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_server_fails_before_any_run_with_exit_2(tmp_path, capsys):
    port = _closed_port()
    out = tmp_path / "res"
    code = main(["run", str(REPO / "scenarios/suites/smoke.yaml"), "--backend", "carla", "--carla-host", "127.0.0.1",
                 "--carla-port", str(port), "--carla-tm-port", str(port + 10), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"no CARLA server at 127.0.0.1:{port}" in err and "Traceback" not in err
    assert not out.exists()  # refused before the results folder was claimed


def test_host_with_port_and_option_checks(capsys):
    ep = parse_endpoint("10.0.0.5:3000", None, 9000)
    assert (ep.host, ep.port, ep.tm_port) == ("10.0.0.5", 3000, 9000)
    assert parse_endpoint().port == 2000 and parse_endpoint().tm_port == 8000  # CARLA's and the TM's defaults
    assert main(["run", str(REPO / "scenarios/suites/smoke.yaml"), "--carla-host", "h"]) == 2
    assert "only with --backend carla" in capsys.readouterr().err
    assert main(["run", str(REPO / "scenarios/suites/smoke.yaml"), "--backend", "carla", "--carla-port", "2000",
                 "--carla-tm-port", "2001"]) == 2
    assert "collides with the server's ports 2000..2002" in capsys.readouterr().err
    assert main(["run", str(REPO / "scenarios/suites/smoke.yaml"), "--backend", "carla", "--carla-weather", "x"]) == 2
    assert "expected one of roadtest, scenario_runner" in capsys.readouterr().err


def test_a_stand_in_carla_is_refused(monkeypatch):
    import sys
    import types

    from roadtest.agents.leaderboard_compat import SHIMS
    from roadtest.errors import UserError
    from roadtest.sim.carla.connect import import_carla

    fake = types.ModuleType("carla")
    fake.__file__ = str(SHIMS / "carla" / "__init__.py")
    monkeypatch.setitem(sys.modules, "carla", fake)
    with pytest.raises(UserError, match="roadtest's stand-in"):
        import_carla()


def test_recorder_file_of_a_run_folder(tmp_path):
    from roadtest.errors import UserError
    from roadtest.sim.api import Trace
    from roadtest.sim.carla.replay import recorder_file

    with pytest.raises(UserError, match="no trace.json.gz"):
        recorder_file(tmp_path)
    Trace(info={"backend": "embedded"}).save(tmp_path / "trace.json.gz")
    with pytest.raises(UserError, match="not a CARLA run"):
        recorder_file(tmp_path)
    Trace(info={"carla_recorder": "/elsewhere/carla_recorder.log"}).save(tmp_path / "trace.json.gz")
    with pytest.raises(UserError, match="is missing"):
        recorder_file(tmp_path)
    (tmp_path / "carla_recorder.log").write_bytes(b"CARLA")
    assert recorder_file(tmp_path) == tmp_path / "carla_recorder.log"  # a moved results folder still finds it
