"""Every shell command README.md and docs/*.md show is exercised: the fast ones run here, the slow ones under
`-m slow`, and those that need what a test machine lacks (network, CARLA, a Ray cluster, a model server) are
parsed by roadtest's own parser with the files they name checked. Also: the README stays one screen of contents,
its links resolve, and its apt line names every Debian package the tests need."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
SHELL = ("bash", "sh", "shell", "console")
COMMAND_WORDS = ("roadtest", "python", "python3", "pip", "docker-compose", "ray", "git", "export", "cat", "vllm")

# commands (by their start) too long for the default run: they run under -m slow
SLOW = {
    "python3 -m venv": "a fresh venv and pip install from PyPI: minutes (here: only its roadtest commands run)",
    "roadtest run scenarios/fog_truck_solid_line.yaml": "a run, its clip and its report: about a minute",
    "roadtest run scenarios/suites/smoke.yaml --agent lane-follower": "five runs and then clips of them: about a minute",
    "roadtest replay /tmp/smoke-lf": "needs the smoke runs of the line before",
    "roadtest report /tmp/smoke-lf": "needs the smoke runs and renders their clips",
    "python3 scripts/check_suites.py": "every level: about 4 minutes on an idle machine",
    "roadtest run scenarios/composed/L1/red_light.yaml": "every variant of the scene: over a minute",
    "roadtest exam build scenarios/suites/L1.yaml": "the expert drives all of L1",
    "roadtest search scenarios/search/walker_crossing.yaml": "40 runs of the scene: a few minutes",
    "python benchmarks/search_bench.py": "81 grid runs, then 10-seed searches per method: about half an hour",
    "python benchmarks/scale_bench.py": "the L1 suite on two trees, then 3,300 short runs: about ten minutes",
}
# commands that need what a test machine does not have: parsed, never run
EXTERNAL = {
    "sudo apt-get install": "root and Debian's mirrors (.ci/run installs the same packages)",
    "pip install": "PyPI",
    "git clone": "the network",
    "export PYTHONPATH=$CARLA_ROOT": "a CARLA release",
    "docker-compose -f docker/compose.yaml up": "a docker daemon and the CARLA images",
    "docker-compose -f docker/compose.yaml run": "a docker daemon and the CARLA images",
    "vllm serve": "a GPU and vLLM",
    "ray start": "a Ray cluster",
    "roadtest run scenarios/suites/smoke.yaml --backend carla": "a CARLA server",
    "roadtest run scenarios/suites/L1.yaml --agent expert --executor ray": "a Ray cluster",
    "roadtest run scenarios/suites/smoke.yaml --agent vlm": "a model server (the vllm line above)",
    "roadtest run scenarios/suites/L1.yaml --agent vlm": "a model server",
    "roadtest exam run exam/L1 --agent-config my_vlm.yaml": "a model server and the L1 exam",
    "roadtest exam compare exam/L1-mymodel": "the two runs above",
    "docker-compose -f docker/compose.yaml config": "docker-compose (Debian's; .ci/run runs this line)",
}


def fences(path: Path) -> list[tuple[int, str, str]]:
    """(line number, language, text) of every fenced block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return [(text[:m.start()].count("\n") + 1, m.group(1), m.group(2))
            for m in re.finditer(r"(?ms)^```(\w*)[^\n]*\n(.*?)^```", text)]


def commands(block: str) -> list[str]:
    """The block's commands: continuation lines joined, a here-document kept with its command, comments dropped."""
    lines, out, i = block.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + " " + lines[i].strip()
            i += 1
        here = re.search(r"<<-?'?(\w+)'?", line)
        if here:
            body = []
            while i < len(lines) and lines[i].strip() != here.group(1):
                body.append(lines[i])
                i += 1
            line = "\n".join([line] + body + [here.group(1)])
            i += 1
        out.append(line)
    return out


def doc_commands() -> list[tuple[str, int, list[str]]]:
    """(file relative to the repo, line, commands) of every shell block of the README and docs/."""
    return [(str(p.relative_to(REPO)), line, commands(text)) for p in DOCS for line, lang, text in fences(p)
            if lang in SHELL]


def kind(cmd: str) -> str:
    for table, name in ((EXTERNAL, "external"), (SLOW, "slow")):
        if any(cmd.startswith(k) for k in table):
            return name
    return "fast"


BLOCKS = doc_commands()


def _block_id(b):
    return f"{b[0]}:{b[1]}"


def test_every_command_block_is_marked_as_shell():
    """A fence whose first word is a command says ```bash, so this test finds it."""
    for path in DOCS:
        for line, lang, text in fences(path):
            first = (text.split() or [""])[0]
            if lang not in SHELL and first in COMMAND_WORDS:
                pytest.fail(f"{path.relative_to(REPO)}:{line}: a fence of commands without ```bash")
    assert len(BLOCKS) >= 8 and sum(len(c) for _, _, c in BLOCKS) >= 30


def test_every_listed_slow_or_external_command_is_still_in_the_docs():
    shown = [c for _, _, cmds in BLOCKS for c in cmds]
    for key in list(SLOW) + list(EXTERNAL):
        assert any(c.startswith(key) for c in shown), f"{key!r} is listed here but no longer in README.md or docs/"


def _sandbox(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder that looks like the checkout's root (scenarios/, docker/, scripts/ linked) and an environment
    whose `roadtest` and `python` are this checkout's, under this interpreter."""
    box = tmp_path / "box"
    box.mkdir()
    for name in ("scenarios", "docker", "scripts", "benchmarks", "pyproject.toml"):
        (box / name).symlink_to(REPO / name)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name, line in (("roadtest", f'exec "{sys.executable}" -m roadtest "$@"'),
                       ("python", f'exec "{sys.executable}" "$@"'), ("python3", f'exec "{sys.executable}" "$@"')):
        (bindir / name).write_text(f"#!/bin/sh\n{line}\n")
        (bindir / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONPATH=str(REPO),
               COLUMNS="80")
    return box, env


# commands whose documented exit status on success is not only 0
EXIT_OK = {"roadtest search": (0, 1)}  # 1: it found a violation and wrote counterexamples (docs/search.md)


def _run(cmd: str, box: Path, env: dict[str, str], where: str) -> str:
    # a slow command's limit: scripts/check_suites.py takes 4 min on an idle machine and over 15 on a busy one
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", cmd], cwd=box, env=env, capture_output=True, text=True,
                          timeout=3600 if kind(cmd) == "slow" else 900)
    ok = next((codes for start, codes in EXIT_OK.items() if cmd.startswith(start)), (0,))
    assert proc.returncode in ok, f"{where}: `{cmd}` exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _check_external(cmd: str, where: str) -> None:
    """A roadtest command that cannot run here still parses, and the repository files it names exist."""
    words = shlex.split(cmd.split("\n")[0], comments=True)
    for w in words:
        if re.match(r"^(scenarios|docker|scripts|docs)/", w):
            assert (REPO / w).exists(), f"{where}: `{cmd}` names {w}, which is not in the repository"
    if words[0] == "roadtest":
        from roadtest.cli import build_parser

        try:
            build_parser().parse_args(words[1:])
        except SystemExit as e:
            pytest.fail(f"{where}: `{cmd}` is not a valid roadtest command line (exit {e.code})")


def _fast_part(cmds: list[str]) -> list[str]:
    """A block's commands up to its first slow one (a later command may need what the slow one makes)."""
    n = next((i for i, c in enumerate(cmds) if kind(c) == "slow"), len(cmds))
    return cmds[:n]


def _play(cmds: list[str], box: Path, env: dict[str, str], where: str) -> None:
    for cmd in cmds:
        if cmd.startswith("python3 -m venv"):  # a fresh-venv line: its installs need PyPI, its roadtest commands run
            for part in cmd.split(" && "):
                if part.startswith("roadtest "):
                    _run(part, box, env, where)
                else:
                    _check_external(part, where)
        elif kind(cmd) == "external":
            _check_external(cmd, where)
        else:
            _run(cmd, box, env, where)


@pytest.mark.parametrize("block", [b for b in BLOCKS if _fast_part(b[2])], ids=_block_id)
def test_fast_commands_run_as_written(block, tmp_path):
    where, line, cmds = block
    box, env = _sandbox(tmp_path)
    _play(_fast_part(cmds), box, env, f"{where}:{line}")


@pytest.mark.slow
@pytest.mark.parametrize("block", [b for b in BLOCKS if _fast_part(b[2]) != b[2]], ids=_block_id)
def test_slow_commands_run_as_written(block, tmp_path):
    where, line, cmds = block
    box, env = _sandbox(tmp_path)
    _play(cmds, box, env, f"{where}:{line}")
    if "roadtest run scenarios/suites/smoke.yaml --agent expert" in cmds[0]:
        _check_the_readme_smoke_claim(box)


def _check_the_readme_smoke_claim(box: Path) -> None:
    """What the README says the smoke suite gives the expert: no rule violated, DS 100 but on fog-truck-solid-line."""
    import json

    (folder,) = (box / "results").glob("smoke-*")
    recs = {r["variant"]: r for r in map(json.loads, (folder / "results.jsonl").read_text().splitlines())}
    assert len(recs) == 5 and all(r["status"] == "completed" for r in recs.values())
    assert not [x for r in recs.values() for x in r["rules"] if x["verdict"] == "violated"]
    ds = {v: round(r["scores"]["score_composed"], 2) for v, r in recs.items()}
    assert ds.pop("fog-truck-solid-line") == 98.77 and set(ds.values()) == {100.0}
    assert {r["roadtest"]["driving_score"] for r in recs.values()} == {100.0}


def test_the_readme_is_one_screen_of_contents():
    """What a user needs in the first hour: a few sections, no sub-sections, the reference in docs/."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"(?m)^(#{2,}) ", re.sub(r"(?ms)^```.*?^```", "", text))
    assert len(headings) <= 7 and all(h == "##" for h in headings), headings
    assert len(text.splitlines()) <= 120


def test_links_of_the_readme_and_docs_resolve():
    for path in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if not re.match(r"^[a-z]+:", target):
                assert (path.parent / target).exists(), f"{path.relative_to(REPO)}: link {target} resolves to nothing"


def test_the_readme_apt_line_names_every_debian_package_the_tests_need():
    """The README's one apt line: what .ci/run installs for the tests and what tests/conftest.py skips without."""
    import importlib.util

    # tests/conftest.py by its path: the module name "conftest" may be a sub-folder's conftest in a whole run
    spec = importlib.util.spec_from_file_location("roadtest_tests_root_conftest", REPO / "tests" / "conftest.py")
    root_conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(root_conftest)
    SYSTEM_PACKAGES = root_conftest.SYSTEM_PACKAGES

    text = (REPO / "README.md").read_text(encoding="utf-8")
    apt = [c for where, _, cmds in BLOCKS if where == "README.md" for c in cmds if "apt-get install" in c]
    assert len(apt) == 1, apt
    named = set(apt[0].split())
    ci = (REPO / ".ci" / "run").read_text().replace("\\\n", " ")
    installed = {w for line in re.findall(r"apt-get install ([^\n>]*)", ci) for w in line.split() if not w.startswith("-")}
    assert {"libegl1", "chromium", "chromium-driver"} <= installed, installed  # the parse found .ci/run's lines
    needed = (installed - {"docker-compose"})  # CI's own check of docker/compose.yaml, no test's need
    assert needed | {p for _, pkgs, _ in SYSTEM_PACKAGES.values() for p in pkgs.split()} <= named, named
    tests_section = text.split("## Run the tests")[1].split("\n## ")[0]
    assert re.search(r"The install takes about \d+ min", tests_section)  # how long each part takes, said beside it
    assert re.search(r"the tests about \d+ min", tests_section)
