"""validate warns about listed rules a scene can never put in force, and about rules the start already breaks."""

from __future__ import annotations

import textwrap

from roadtest.cli import main
from roadtest.dsl.validate import check_file, check_warnings

JP_CURVE = """\
name: jp-curve-school
country: JP
road:
  kind: curve
  length: 300
  radius: 200
  angle: 30
  lanes: {{forward: 1, backward: 1}}
  speed_limit: 50
  signs:
    - {{id: school_zone, s: 60, side: kerb}}
{sections}
ego: {{lane: 1, s: 20, speed: 40, route: {{distance: 250}}}}
rules: [school_zone_speed, merge_give_way]
"""

DE_FOG_MERGE = """\
name: de-fog-merge
country: DE
environment: {{weather: fog_dense}}
road: {{kind: highway_merge, length: 500, lanes: {{forward: 2, backward: 0}}, ramp: {{merge_s: 200, length: 150}}}}
ego: {{lane: 1, s: 20, speed: {speed}, route: {{distance: 400}}}}
rules: [fog_speed_limit, merge_give_way]
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_school_sign_without_zone_and_merge_rule_without_merge(tmp_path, capsys):
    f = write(tmp_path, "jp.yaml", JP_CURVE.format(sections=""))
    assert check_file(f) == []
    warns = {w.field: w for w in check_warnings(f)}
    assert set(warns) == {"rules.0", "rules.1"}
    assert (warns["rules.0"].line, warns["rules.0"].col) == (14, 9) and "school_zone section" in warns["rules.0"].message
    assert (warns["rules.1"].line, warns["rules.1"].col) == (14, 28) and "merge" in warns["rules.1"].message
    assert main(["validate", str(f)]) == 0  # a warning is not an error
    assert "2 warning(s)" in capsys.readouterr().out


def test_a_zone_section_puts_the_school_rule_in_force(tmp_path):
    sections = "  sections:\n    - {kind: school_zone, s_start: 70, s_end: 200, speed_limit: 30}"
    f = write(tmp_path, "jp.yaml", JP_CURVE.format(sections=sections))
    assert [w.field for w in check_warnings(f)] == ["rules.1"]


def test_fog_merge_that_starts_above_the_fog_limit(tmp_path):
    # DE (StVO §3(1)): 50 km/h below 50 m visibility, tolerance 2 km/h; fog_dense is 50 m
    f = write(tmp_path, "fog.yaml", DE_FOG_MERGE.format(speed=60))
    (w,) = check_warnings(f)
    assert w.field == "rules.0" and (w.line, w.col) == (6, 9)
    assert "t = 0" in w.message and "ego_speed 60 km/h" in w.message and "fog_speed 50 km/h" in w.message
    assert check_warnings(write(tmp_path, "fog2.yaml", DE_FOG_MERGE.format(speed=45))) == []
