"""exam build -> exam run (through a fake OpenAI-compatible server answering from the key) -> exam compare."""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import pytest

from roadtest.cli import main
from roadtest.exam.build import MIN_SIGN_PIXELS, build_exam
from roadtest.exam.frames import MAX_DIST, SignPose, sign_in_view

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "agents" / "vlm"))
from fake_openai import FakeOpenAIServer, prompt_text  # noqa: E402

SCENES = [ROOT / "scenarios" / "straight_speed_limit.yaml", ROOT / "scenarios" / "stop_sign_t_junction.yaml"]


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".bundles" not in p.parts}


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    base = tmp_path_factory.mktemp("exam")
    suite = base / "suite.yaml"
    suite.write_text("name: exam-two\nscenarios:\n" + "".join(f"  - {p}\n" for p in SCENES))
    out = base / "exam"
    summary = build_exam(suite, out)
    return suite, out, summary, [json.loads(l) for l in (out / "exam.jsonl").read_text().splitlines()]


def test_the_exam_has_sign_action_and_open_questions_in_the_conversation_layout(exam):
    _, out, summary, rows = exam
    kinds = {r["kind"] for r in rows}
    assert kinds == {"sign", "action", "open"}
    for r in rows:
        assert r["conversations"][0]["from"] == "human" and r["conversations"][0]["value"].startswith("<image>\n")
        assert r["conversations"][1] == {"from": "gpt", "value": r["answer"]}
        assert (out / r["image"]).exists()
        assert r["variant"] and r["seed"] == 0 and isinstance(r["tick"], int)
    # the stop-sign scene asks what its sign means, and the key is the stop sign's meaning
    stop = [r for r in rows if r["kind"] == "sign" and r["justification"]["sign"] == "stop"]
    assert stop and all("Stop" in r["options"]["ABCD".index(r["answer"])]["text"] for r in stop)
    assert "stop_sign" in stop[0]["justification"]["rules"]


def test_sign_questions_come_from_frames_where_the_sign_is_visible_and_close(exam):
    _, _, _, rows = exam
    signs = [r for r in rows if r["kind"] == "sign"]
    assert signs
    for r in signs:
        assert r["justification"]["distance_m"] <= MAX_DIST
        assert r["justification"]["sign_pixels"] >= MIN_SIGN_PIXELS


def test_idkb_geometry_by_hand():
    ahead = SignPose("1", "s", 20.0, 2.0, 1.5, math.pi)  # 20 m ahead, 2 m left, facing back at the car
    assert sign_in_view((0.0, 0.0, 0.0), ahead) == pytest.approx(math.hypot(20, 2))
    assert sign_in_view((0.0, 0.0, 0.0), SignPose("2", "s", 31.0, 0.0, 1.5, math.pi)) is None  # beyond 30 m
    assert sign_in_view((0.0, 0.0, 0.0), SignPose("3", "s", 10.0, 8.0, 1.5, math.pi)) is None  # 38.7 deg off axis
    assert sign_in_view((0.0, 0.0, 0.0), SignPose("4", "s", 10.0, 6.0, 1.5, math.pi)) is not None  # 31 deg
    turned = SignPose("5", "s", 20.0, 0.0, 1.5, math.pi - math.radians(25))  # face turned 155 deg from the car
    assert sign_in_view((0.0, 0.0, 0.0), turned) is None
    assert sign_in_view((0.0, 0.0, 0.0), SignPose("6", "s", 20.0, 0.0, 1.5, 0.0)) is None  # its back to the car


def test_every_multiple_choice_question_has_four_distinct_options_and_one_compliant(exam):
    _, _, _, rows = exam
    for r in rows:
        if r["kind"] == "open":
            continue
        assert len({o["text"] for o in r["options"]}) == 4
        excused = set(r["justification"].get("excused") or [])
        assert [o["letter"] for o in r["options"] if set(o["breaks"]) <= excused] == [r["answer"]]


def test_the_same_suite_and_seed_give_the_same_exam_byte_for_byte(exam, tmp_path):
    suite, out, _, _ = exam
    build_exam(suite, tmp_path / "again")
    assert _digest(tmp_path / "again") == _digest(out)


def _server(rows, style):
    key = {r["conversations"][0]["value"].replace("<image>\n", "", 1): r for r in rows}

    def reply(request):
        q = key[prompt_text(request)]
        right = q["answer"]
        wrong = "ABCD"[("ABCD".index(right) + 1) % 4] if q["kind"] != "open" else "Nothing to report."
        if q["kind"] == "open":
            return q["answer"] if style != "wrong" else wrong
        return {"right": right, "wrong": wrong, "prose": f"Looking at the scene, the correct option is {right} here.",
                "several": f"{right} or {wrong}"}[style]

    return FakeOpenAIServer(reply)


@pytest.mark.parametrize("style, accuracy, following", [("right", 1.0, 1.0), ("wrong", 0.0, 1.0),
                                                        ("prose", 1.0, 0.0), ("several", 0.0, 0.0)])
def test_exam_run_through_a_fake_server_scores_as_the_answers_deserve(exam, tmp_path, style, accuracy, following):
    _, out, _, rows = exam
    with _server(rows, style) as srv:
        cfg = tmp_path / "vlm.yaml"
        cfg.write_text(f"backend: openai\nopenai: {{base_url: '{srv.base_url}', model: fake-vlm}}\n")
        code = main(["exam", "run", str(out), "--agent-config", str(cfg), "-o", str(tmp_path / "res")])
        assert code == 0
        assert len(srv.requests) == len(rows)
        first = srv.requests[0]["messages"][-1]["content"]
        assert any(p.get("type") == "image_url" for p in first)  # the frame goes with the question
    summary = json.loads((tmp_path / "res" / "summary.json").read_text())
    assert summary["multiple_choice_accuracy"] == accuracy
    assert summary["instruction_following"] == following
    assert set(summary["by_kind"]) == {"sign", "action", "open"}
    assert summary["by_rules"]["stop_sign"]["n"] >= 1


def test_exam_compare_against_a_road_test_of_the_same_suite(exam, tmp_path, capsys):
    suite, out, _, rows = exam
    with _server(rows, "right") as srv:
        cfg = tmp_path / "vlm.yaml"
        cfg.write_text(f"backend: openai\nopenai: {{base_url: '{srv.base_url}', model: fake-vlm}}\n")
        assert main(["exam", "run", str(out), "--agent-config", str(cfg), "-o", str(tmp_path / "res")]) == 0
    assert main(["run", str(suite), "--agent", "lane-follower", "--out", str(tmp_path / "road")]) in (0, 1)
    assert main(["exam", "compare", str(tmp_path / "res"), str(tmp_path / "road")]) == 0
    m = json.loads((tmp_path / "res" / "compare.json").read_text())
    cells = {(c["rule"], c["variant"]): c["cell"] for c in m["cells"]}
    # the model knew every rule (all answers right); the rule-blind lane follower ran the stop sign
    assert cells[("stop_sign", "stop-sign-t-junction")] == "knows_violates"
    assert all(c.startswith("knows_") for c in cells.values())
    assert "knows & complies" in capsys.readouterr().out
    from roadtest.report.exam_matrix import load_exam_matrix

    shown = load_exam_matrix(tmp_path / "road", None)  # what `roadtest report` of the road results shows
    assert shown.counts.get(("correct", "broken"), 0) == sum(1 for c in cells.values() if c == "knows_violates")


def test_exam_run_without_a_config_uses_the_builtin_backend_and_labels_it_once(exam, tmp_path, capsys):
    _, out, _, rows = exam
    assert main(["exam", "run", str(out), "-o", str(tmp_path / "res")]) == 0
    said = capsys.readouterr().out
    first = said.splitlines()[0]
    assert first.startswith("builtin-rules (not a VLM): accuracy ")
    assert said.count("not a VLM") == 1
    summary = json.loads((tmp_path / "res" / "summary.json").read_text())
    assert summary["backend"] == "builtin" and summary["is_vlm"] is False and summary["questions"] == len(rows)
