"""Hostile or broken input files: refused fast, with file:line:col, exit 2, never another exception."""

from __future__ import annotations

import textwrap
import threading
from pathlib import Path

import pytest

from roadtest.cli import main
from roadtest.dsl.loader import MAX_FILE_BYTES, load_variants, parse_file, parse_yaml
from roadtest.dsl.suite import iter_target
from roadtest.dsl.validate import check_file
from roadtest.errors import ScenarioError

GOOD = """\
name: t
country: {country}
road: {{kind: straight, length: 300, lanes: {{forward: 1, backward: 1}}}}
ego: {{lane: 1, s: 20, speed: 30, route: {{distance: 200}}}}
"""


def bomb(levels: int = 9, width: int = 9) -> str:
    """The billion-laughs shape: each anchor a list of `width` aliases of the one before."""
    lines = ["l0: &l0 [" + ", ".join(['"lol"'] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\nname: bomb\n"


def run_bounded(fn, seconds: float = 20.0):
    """fn() in a thread; fail (instead of hanging the suite) when it does not return in time."""
    out: dict = {}

    def go():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            out["error"] = e

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds} s"
    if "error" in out:
        raise out["error"]
    return out.get("value")


def test_alias_bomb_is_refused_at_the_alias():
    text = bomb()
    with pytest.raises(ScenarioError) as e:
        run_bounded(lambda: parse_yaml(text, "bomb.yaml"))
    (p,) = e.value.problems
    # the cap is crossed while expanding the aliases of some level; the message points at one of them
    line = text.splitlines()[p.line - 1]
    assert p.file == "bomb.yaml" and p.line >= 2 and line[p.col - 1] == "*", (str(p), line)
    assert "alias" in p.message


def test_alias_bomb_cli_exit_2(tmp_path, capsys):
    f = tmp_path / "bomb.yaml"
    f.write_text(bomb())
    for argv in (["validate", str(f)], ["convert", str(f), "-o", str(tmp_path / "b")]):
        assert run_bounded(lambda: main(argv)) == 2
        cap = capsys.readouterr()
        assert "bomb.yaml:" in cap.out + cap.err


def test_modest_aliases_still_load(tmp_path):
    text = GOOD.format(country="CN") + "actors:\n" + "".join(
        f"  - {{id: a{i}, kind: vehicle, place: {{lane: 1, s: {80 + 10 * i}}}, speed: {'&v 30' if i == 0 else '*v'}}}\n"
        for i in range(5))
    f = tmp_path / "ok.yaml"
    f.write_text(text)
    assert [a.speed for a in load_variants(f)[0].scenario.actors] == [30 / 3.6] * 5


def test_file_over_the_size_limit(tmp_path, capsys):
    f = tmp_path / "big.yaml"
    f.write_text(GOOD.format(country="CN") + "description: '" + "x" * MAX_FILE_BYTES + "'\n")
    with pytest.raises(ScenarioError, match="larger than"):
        parse_file(f)
    assert main(["validate", str(f)]) == 2
    assert main(["run", str(f), "-o", str(tmp_path / "r")]) == 2
    cap = capsys.readouterr()
    assert "big.yaml" in cap.err + cap.out


def test_deep_nesting_has_a_line():
    text = "name: x\nroad:\n  kind: " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(ScenarioError) as e:
        parse_yaml(text, "deep.yaml")
    (p,) = e.value.problems
    assert p.line == 3 and p.col > 8 and "nest" in p.message and "RecursionError" not in p.message


def test_binary_file_is_located(tmp_path):
    f = tmp_path / "bin.yaml"
    f.write_bytes(b"name: x\nroad: ok\n" + bytes(range(128, 256)))
    (p,) = check_file(f)
    assert (p.line, p.col) == (3, 1) and "UTF-8" in p.message
    g = tmp_path / "nul.yaml"
    g.write_bytes(b"name: x\nego: \x00\x01\n")
    (p,) = check_file(g)
    assert (p.line, p.col) == (2, 6), str(p)


@pytest.mark.parametrize("country, expected", [("XX", "expected one of CN, DE, FR, GB, JP, US"), ("de", "did you mean 'DE'"),
                                               ("UK", "did you mean 'GB'"), ("USA", "did you mean 'US'")])
def test_unknown_country_is_an_error_at_country(tmp_path, country, expected):
    f = tmp_path / "c.yaml"
    f.write_text(GOOD.format(country=country))
    with pytest.raises(ScenarioError) as e:
        load_variants(f)
    (p,) = e.value.problems
    assert (p.line, p.col, p.field) == (2, 10, "country") and expected in p.message, str(p)


def test_an_unknown_rule_id_is_reported_beside_the_other_mistakes_of_the_file(tmp_path):
    """One pass, every located mistake: a schema error (weather, a sign's s) does not hide the unknown rule id."""
    f = tmp_path / "many.yaml"
    f.write_text(GOOD.format(country="DE").replace("backward: 1}}", "backward: 1}, signs: [{id: stopp, s: 40}]}")
                 + textwrap.dedent("""\
        environment: {weather: fogg}
        rules: [red_lihgt, {id: speed_limt}]
        """))
    with pytest.raises(ScenarioError) as e:
        load_variants(f)
    got = {(p.line, p.col, p.field): p.message for p in e.value.problems}
    assert "environment.weather" in {k[2] for k in got}, got
    assert got[(6, 9, "rules.0")] == "unknown rule id 'red_lihgt' (did you mean 'red_light'?)", got
    assert got[(6, 25, "rules.1.id")].startswith("unknown rule id 'speed_limt' (did you mean 'speed_limit'?)"), got
    assert got[(3, 84, "road.signs.0.id")] == "unknown sign id 'stopp' (did you mean 'stop'?)", got
    assert main(["validate", str(f)]) == 2


def test_supported_countries_load(tmp_path):
    for c in ("CN", "DE", "JP", "US"):
        f = tmp_path / f"{c}.yaml"
        f.write_text(GOOD.format(country=c))
        assert load_variants(f)[0].scenario.country == c


def test_validate_runs_the_checks_convert_runs(tmp_path):
    f = tmp_path / "merge.yaml"
    f.write_text(textwrap.dedent("""\
        name: m
        road: {kind: highway_merge, length: 400, lanes: {forward: 2, backward: 0}}
        ego: {lane: 1, s: 20, speed: 60, route: {distance: 300}}
        """))
    problems = check_file(f)
    assert problems, "validate passed a scenario that convert rejects"
    assert all(p.line > 0 and p.col > 0 for p in problems), [str(p) for p in problems]
    assert any("ramp" in p.message for p in problems)
    assert (problems[0].line, problems[0].field) == (2, "road.ramp")


def test_convert_of_a_folder_finds_subfolders(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "deep.yaml").write_text(GOOD.format(country="CN").replace("name: t", "name: deep"))
    (tmp_path / "top.yaml").write_text(GOOD.format(country="DE"))
    sources = [Path(s).name for s, r in iter_target(tmp_path) if not isinstance(r, ScenarioError)]
    assert sorted(sources) == ["deep.yaml", "top.yaml"]
    assert main(["convert", str(tmp_path), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "deep" / "road.xodr").is_file()


@pytest.mark.parametrize("text, col", [("name: 2020-13-45\n", 7), ("a: !!float x\n", 4), ("b: 1\na: !!int 0x\n", 4)])
def test_unconstructible_value_is_located(text, col):
    with pytest.raises(ScenarioError) as e:
        parse_yaml(text, "v.yaml")
    (p,) = e.value.problems
    assert (p.line, p.col) == (text.count("\n"), col), str(p)


def test_schema_lists_the_supported_countries():
    import json

    from roadtest.dsl.schema import schema_json

    assert json.loads(schema_json())["properties"]["country"]["enum"] == ["CN", "DE", "FR", "GB", "JP", "US"]


@pytest.mark.parametrize("command", ["convert", "run"])
def test_build_errors_are_located_in_every_command(tmp_path, capsys, command):
    f = tmp_path / "merge.yaml"
    f.write_text("name: m\nroad: {kind: highway_merge, length: 400, lanes: {forward: 2, backward: 0}}\n"
                 "ego: {lane: 1, s: 20, speed: 60, route: {distance: 300}}\n")
    assert main([command, str(f), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{f}:2:7: road.ramp: highway_merge needs a ramp" in err, err
