"""`roadtest exam run`: put an exam to a model through the VLM agent's backends and score every answer.

Each question goes to the model as its frame and its prompt, with no hint of the key. Multiple-choice
answers are scored by the one letter they name (several letters: wrong); open answers by the sign and
action vocabulary, or, with `judge`, by the same backend asked to compare the answer with the key
(marked in every result). Results: OUT/answers.jsonl (one line per question) and OUT/summary.json.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Mapping

from roadtest.errors import UserError
from roadtest.exam.compare import read_jsonl
from roadtest.exam.scoring import accuracy_by, extract_letter, follows_format, score_open

__all__ = ["take_exam", "run_command", "SYSTEM", "JUDGE"]

SYSTEM = "You are taking a driving-theory exam. Each question shows a driver's view of the road."
JUDGE = ("You grade an answer to a driving-theory question. Reference answer: {key}\nCandidate answer: {answer}\n"
         "Does the candidate name the same signs and the same required action? Reply with one word: CORRECT or INCORRECT.")
GROUPS = ("kind", "level", "rules", "country", "weather", "light")


def _image(exam_dir: Path, rel: str):
    import cv2

    path = exam_dir / rel
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise UserError(f"{path}: exam image missing or unreadable")
    return img[:, :, ::-1].copy()  # BGR -> RGB, as the backends take it


def _exam_camera(exam_dir: Path) -> dict[str, Any]:
    """The camera the exam's frames were rendered with (exam_summary.json), for perception that needs its fov."""
    path = exam_dir / "exam_summary.json"
    return json.loads(path.read_text()).get("camera", {}) if path.exists() else {}


def _ask(backend, messages, images, timeout: float, retries: int, backoff: float):
    from roadtest.agents.vlm.backends import BackendCallError

    for attempt in range(retries + 1):
        try:
            return backend.complete(messages, images, None, timeout), None
        except BackendCallError as e:
            if not e.retryable or attempt == retries:
                return None, str(e)
            time.sleep(backoff * 2 ** attempt)
    return None, "no attempt made"


def take_exam(exam_dir: Path, config: Mapping[str, Any], out: Path, judge: bool = False, backend=None) -> dict[str, Any]:
    """Answer every question of EXAM_DIR/exam.jsonl; write answers and the summary under OUT."""
    from roadtest.agents.vlm.backends import make_backend

    exam_dir, out = Path(exam_dir), Path(out)
    questions = read_jsonl(exam_dir / "exam.jsonl")
    if not questions:
        raise UserError(f"{exam_dir / 'exam.jsonl'}: no questions")
    if backend is None and config.get("backend") == "builtin":
        from roadtest.exam.builtin_examinee import BuiltinExaminee

        backend = BuiltinExaminee(config, fov=_exam_camera(exam_dir).get("fov", 90.0))
    backend = backend or make_backend(config)
    timeout, retries, backoff = float(config["timeout_s"]), int(config["retries"]), float(config["backoff_s"])
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for q in questions:
            prompt = q["conversations"][0]["value"].replace("<image>\n", "", 1)
            messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
            ans, error = _ask(backend, messages, [_image(exam_dir, q["image"])], timeout, retries, backoff)
            text = ans.text if ans is not None else None
            row = {k: q.get(k) for k in ("id", "kind", "variant", "scenario", "seed", "tick", "country", "level",
                                         "weather", "light", "rules")}
            row.update(model=getattr(backend, "model", None), backend=getattr(backend, "name", None),
                       is_vlm=bool(getattr(backend, "is_vlm", True)), key=q["answer"], answer_text=text, error=error,
                       latency_s=round(ans.latency_s, 4) if ans is not None else None)
            if q["kind"] == "open":
                graded = score_open(text, q["justification"])
                row.update(open=graded, correct=graded["correct"], follows_format=text is not None)
                if judge and text is not None:
                    jtext = JUDGE.format(key=q["answer"], answer=text)
                    jans, jerr = _ask(backend, [{"role": "user", "content": jtext}], [], timeout, retries, backoff)
                    verdict = (jans.text or "").strip().upper() if jans is not None else ""
                    row.update(judge=True, judge_text=jans.text if jans else jerr,
                               correct=verdict.startswith("CORRECT"))
            else:
                letter = extract_letter(text)
                row.update(letter=letter, correct=letter == q["answer"], follows_format=follows_format(text))
            rows.append(row)
    finally:
        backend.close()
    (out / "answers.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    summary = summarise(rows)
    summary.update(exam=str(exam_dir), judge=judge, model=rows[0]["model"], backend=rows[0]["backend"],
                   is_vlm=rows[0]["is_vlm"])
    (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def summarise(rows) -> dict[str, Any]:
    """Accuracy overall and per kind, level, rule, country, weather and light; format and error rates."""
    mc = [r for r in rows if r["kind"] != "open"]
    return {
        "questions": len(rows),
        "accuracy": round(sum(r["correct"] for r in rows) / len(rows), 4),
        "multiple_choice_accuracy": round(sum(r["correct"] for r in mc) / len(mc), 4) if mc else None,
        "instruction_following": round(sum(r["follows_format"] for r in mc) / len(mc), 4) if mc else None,
        "errors": sum(r["error"] is not None for r in rows),
        **{f"by_{g}": accuracy_by(rows, g) for g in GROUPS},
    }


def run_command(exam: Path, agent_config: Path | None, out: Path, judge: bool = False) -> int:
    """`roadtest exam run EXAM [--agent-config CFG] -o OUT`; without a config, the default (builtin) backend."""
    from roadtest.agents.base import load_config
    from roadtest.agents.vlm.config import merge_config

    cfg = merge_config(load_config(agent_config) if agent_config else {}, agent_config)
    s = take_exam(exam, cfg, out, judge=judge)
    label = "" if s["is_vlm"] or "not a VLM" in s["model"] else " (not a VLM)"  # said once, not twice
    print(f"{s['model']}{label}: accuracy {s['accuracy']:.3f} over {s['questions']} questions; "
          f"multiple choice {s['multiple_choice_accuracy']}, instruction following {s['instruction_following']}, "
          f"errors {s['errors']}{'; open answers judged by the model' if judge else ''}")
    for kind, v in s["by_kind"].items():
        print(f"  {kind:7s} {v['accuracy']:.3f} (n={v['n']})")
    print(f"written {Path(out) / 'answers.jsonl'} and {Path(out) / 'summary.json'}")
    return 0
