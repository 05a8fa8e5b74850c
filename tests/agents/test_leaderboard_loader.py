"""Agent files load as the leaderboard loads them: the file's folder on sys.path, one instance per run, setup()
exactly once whether the constructor ran it (leaderboard 1.0, carla_garage) or left it to the evaluator (2.0)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

HEADER = """
import json, os
from pathlib import Path
LOG = Path(os.environ["ROADTEST_TEST_LOG"])

def log(*what):
    with LOG.open("a") as f:
        f.write(json.dumps([str(w) for w in what]) + "\\n")
"""


def _agent_file(folder: Path, body: str, name: str = "agent.py", run_step: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(HEADER + textwrap.dedent(body) + (run_step or RUN_STEP))  # run_step and sensors on the file's last class
    return path


def _log(path: Path) -> list[list[str]]:
    import json

    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def log_file(tmp_path, monkeypatch):
    path = tmp_path / "calls.log"
    monkeypatch.setenv("ROADTEST_TEST_LOG", str(path))
    return path


RUN_STEP = """
    def sensors(self):
        return []
    def run_step(self, input_data, timestamp):
        from roadtest.sim.api import Control
        return Control(throttle=0.0, brake=1.0)
"""


def test_the_agent_files_folder_is_on_sys_path(tmp_path, log_file, monkeypatch):
    from roadtest.agents import load_agent

    monkeypatch.setattr(sys, "path", list(sys.path))
    folder = tmp_path / "tfpp"
    (folder / "model").mkdir(parents=True)
    (folder / "model" / "__init__.py").write_text("WEIGHTS = 'beside the agent'\n")
    path = _agent_file(folder, """
        from model import WEIGHTS   # carla_garage's TransFuser++ imports `model` from its own folder
        class A:
            def setup(self, path_to_conf_file):
                log("setup", WEIGHTS)
    """)
    agent = load_agent(f"{path}:A")
    agent.sensors()
    assert _log(log_file) == [["setup", "beside the agent"]]
    assert sys.path[0] == str(folder.resolve())


def test_leaderboard_2_constructor_then_setup_once(tmp_path, log_file):
    from roadtest.agents import load_agent

    path = _agent_file(tmp_path, """
        class A:
            def __init__(self, carla_host, carla_port, debug=False):
                log("init", carla_host, carla_port, debug)
            def setup(self, path_to_conf_file):
                log("setup", path_to_conf_file)
    """)
    agent = load_agent(f"{path}:A", "conf.txt")
    agent.set_global_plan([(0.0, 0.0), (5.0, 0.0)], {})
    agent.sensors()
    agent.run_step({}, 0.05)
    assert _log(log_file) == [["init", "localhost", "2000", "False"], ["setup", "conf.txt"]]


def test_leaderboard_1_base_calls_setup_so_the_adapter_does_not(tmp_path, log_file):
    from roadtest.agents import load_agent

    path = _agent_file(tmp_path, """
        class Base:
            def __init__(self, path_to_conf_file):
                self.setup(path_to_conf_file)
        class A(Base):
            def setup(self, path_to_conf_file):
                log("setup", path_to_conf_file)
    """)
    agent = load_agent(f"{path}:A", "c.yaml")
    agent.sensors()
    agent.run_step({}, 0.05)
    assert _log(log_file) == [["setup", "c.yaml"]]
    assert "setup" not in vars(type(agent.inner).__mro__[1])  # the watch on setup is removed after construction


@pytest.mark.parametrize("base_calls_setup", [True, False])
def test_carla_garage_constructor_with_route_index(tmp_path, log_file, base_calls_setup):
    """carla_garage: __init__(path_to_conf_file, route_index=None); PDM-Lite's AutoPilot defines setup with
    (path_to_conf_file, route_index=None, traffic_manager=None) and builds self.step there."""
    from roadtest.agents import load_agent

    path = _agent_file(tmp_path, f"""
        class Base:
            def __init__(self, path_to_conf_file, route_index=None):
                log("init", path_to_conf_file, route_index)
                if {base_calls_setup}:
                    self.setup(path_to_conf_file, route_index)
            def setup(self, path_to_conf_file):
                pass
        class AutoPilot(Base):
            def setup(self, path_to_conf_file, route_index=None, traffic_manager=None):
                log("setup", path_to_conf_file, route_index)
                self.step = -1
    """, run_step=RUN_STEP.replace("return Control", "self.step += 1\n        return Control"))
    agent = load_agent(f"{path}:AutoPilot", "pdm.conf")
    agent.sensors()
    agent.run_step({}, 0.05)
    assert _log(log_file) == [["init", "pdm.conf", "None"], ["setup", "pdm.conf", "None"]]
    assert agent.inner.step == 0
    assert "setup" in vars(type(agent.inner)) and vars(type(agent.inner))["setup"].__name__ == "setup"


def test_one_instance_per_run_through_the_cli(tmp_path, log_file, repo_root):
    """TCP, UniAD, VAD and PDM-Lite make their save path with mkdir(exist_ok=False): a second instance built
    before the run (a pre-flight sensor check) would fail with FileExistsError."""
    from roadtest.cli import main

    save = tmp_path / "save"
    path = _agent_file(tmp_path / "a", f"""
        log("import")
        class A:
            def __init__(self, carla_host, carla_port, debug=False):
                log("init")
            def setup(self, path_to_conf_file):
                Path({str(save)!r}).mkdir(exist_ok=False)
                log("setup")
            def destroy(self):
                log("destroy")
    """)
    rc = main(["run", str(repo_root / "scenarios" / "straight_speed_limit.yaml"), "--agent", f"{path}:A",
               "--out", str(tmp_path / "out"), "--workers", "1"])
    assert rc == 0
    # the parent imports the file to check the name; the run's own process imports, builds and sets up once
    assert [c for c in _log(log_file) if c != ["import"]] == [["init"], ["setup"], ["destroy"]]
    import json

    (record,) = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert record["status"] not in ("agent_error", "crashed"), record
