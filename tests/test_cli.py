"""Every command's usage errors: one line saying what is wrong, the command's usage, exit 2, no traceback."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import pytest

from roadtest.cli import COMMANDS, build_parser, main


def _leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> dict[str, argparse.ArgumentParser]:
    """Every runnable (sub)command of the parser, found by walking it, so a new command cannot be missed."""
    out = {}
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs and prefix:
        out[" ".join(prefix)] = parser
    for s in subs:
        for name, p in s.choices.items():
            out.update(_leaves(p, prefix + (name,)))
    return out


LEAVES = _leaves(build_parser())


def _required_positionals(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]


def _required_options(p: argparse.ArgumentParser) -> list[str]:
    """Each required option with a placeholder value, so that only the mistake under test remains."""
    return [x for a in p._actions if a.option_strings and a.required for x in (a.option_strings[-1], "x")]


def _valued_options(p: argparse.ArgumentParser) -> list[str]:
    return [a.option_strings[-1] for a in p._actions if a.option_strings and a.nargs != 0]


def _check_usage_error(capsys, argv: list[str], rc: int, usage: str | None = None) -> str:
    err = capsys.readouterr().err
    assert rc == 2, (argv, rc, err)
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines[0].startswith(f"usage: roadtest {argv[0] if usage is None else usage}"), err
    errors = [ln for ln in lines if ": error: " in ln]
    assert len(errors) == 1, err
    return errors[0]


def test_the_walk_finds_every_listed_command():
    assert sorted(LEAVES) == sorted(COMMANDS)


@pytest.mark.parametrize("command", sorted(LEAVES))
def test_unknown_option_is_a_usage_error(capsys, command):
    p = LEAVES[command]
    argv = command.split() + ["x"] * len(_required_positionals(p)) + _required_options(p) + ["--bogus", "x"]
    line = _check_usage_error(capsys, argv, main(argv))
    assert "--bogus" in line


@pytest.mark.parametrize("command", sorted(LEAVES))
def test_missing_argument_is_a_usage_error(capsys, command):
    p = LEAVES[command]
    positionals = _required_positionals(p)
    if positionals:
        argv = command.split()
        line = _check_usage_error(capsys, argv, main(argv))
        assert "required" in line and positionals[0].dest in line
    required = _required_options(p)
    if required:
        argv = command.split() + ["x"] * len(positionals)
        line = _check_usage_error(capsys, argv, main(argv))
        assert "required" in line and required[0] in line
    for opt in _valued_options(p):  # an option given without its value
        argv = command.split() + ["x"] * len(positionals) + [opt]
        line = _check_usage_error(capsys, argv, main(argv))
        assert opt in line and "expected one argument" in line
    if not positionals:  # nothing to leave out: a stray argument is the mistake
        argv = command.split() + required + ["stray"]
        line = _check_usage_error(capsys, argv, main(argv))
        assert "stray" in line


@pytest.mark.parametrize("argv, usage", [(["rules"], "rules"), (["rules", "nope"], "rules"), (["nope"], "")])
def test_group_without_a_known_subcommand(capsys, argv, usage):
    _check_usage_error(capsys, argv, main(argv), usage)


def test_help_shows_flags_as_flags(capsys):
    assert main(["run", "--help"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s+--resume\s{2,}\w", out, re.M), out  # the flag, then its help: no value placeholder
    assert re.search(r"--seeds N\b", out)


def test_console_entry_point_exits_2_without_a_traceback():
    r = subprocess.run([sys.executable, "-m", "roadtest.cli", "convert"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "the following arguments are required: target" in r.stderr


def test_version_prints_the_packaged_version_and_exits_0(capsys):
    from pathlib import Path

    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    want = re.search(r'(?m)^version = "([^"]+)"', pyproject).group(1)
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"roadtest {want}"
