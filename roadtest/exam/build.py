"""`roadtest exam build`: drive each variant with the privileged expert, pick frames, render them, ask questions.

Per variant and seed: one sign question per sign that comes into view by IDKB's geometry (frames.py);
one action question and one open question at each tick where a listed rule first comes into force, and
for scenes with conflicting rules at the tick where the governing rule and the rule it outranks are both
in force. The exam is JSONL in the LLaVA / ShareGPT conversation layout plus PNG frames, so fine-tuning
tools read it; the same suite and seed give the same exam, byte for byte.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from roadtest.errors import UserError
from roadtest.exam.frames import SignPose, sign_frames, sign_poses
from roadtest.exam.questions import Question, action_question, open_question, sign_question

__all__ = ["EXAM_CAMERA", "build_exam", "build_command", "MIN_SIGN_PIXELS", "LOOKAHEAD_S", "question_record"]

# The exam's camera: IDKB's CARLA front camera, 800x600 with a 90 degree field of view.
EXAM_CAMERA = {"type": "sensor.camera.rgb", "id": "front", "x": 1.5, "y": 0.0, "z": 1.6, "roll": 0.0, "pitch": 0.0,
               "yaw": 0.0, "width": 800, "height": 600, "fov": 90.0}
MIN_SIGN_PIXELS = 40  # a 0.6 m face at 30 m covers about 16 x 16 px at 800 px / 90 deg; 40 px is a readable minimum
LOOKAHEAD_S = 5.0  # an action question asks about the rules in force now and in the next seconds
MIN_DECISION_GAP_S = 1.0  # decision ticks closer than this share one question


def _scene_signs(meta: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """meta.scene.signs by their OpenDRIVE signal id (and by name, which the map keeps too)."""
    out = {}
    for s in (meta.get("scene") or {}).get("signs") or []:
        for key in (s.get("signal_id"), s.get("name")):
            if key is not None:
                out[str(key)] = s
    return out


def _sign_pixels(cameras, state, pose: SignPose) -> int:
    """Traffic-sign pixels of the semantic mask around the sign's projected centre."""
    from roadtest.sim.embedded.render.camera import camera_pose, project
    from roadtest.sim.embedded.render.formats import TAGS

    spec = {**EXAM_CAMERA, "type": "sensor.camera.semantic_segmentation", "id": "exam_semantic"}
    _, img = cameras.observe(state, [spec])["exam_semantic"]
    cam = cameras.spec(spec)
    ego = state.ego
    px = project(cam, camera_pose(cam, ego.x, ego.y, ego.z, ego.h), np.array([[pose.x, pose.y, pose.z]]))[0]
    if not np.all(np.isfinite(px)):
        return 0
    dist = math.hypot(pose.x - ego.x, pose.y - ego.y)
    r = int(max(6.0, 1.2 * cam.focal / max(dist, 1.0)))
    u, v = int(round(px[0])), int(round(px[1]))
    h, w = img.shape[:2]
    win = img[max(0, v - r):min(h, v + r + 1), max(0, u - r):min(w, u + r + 1), 2]  # BGRA: the tag is in red
    return int(np.count_nonzero(win == TAGS["traffic_sign"]))


def _decision_ticks(trace, meta: Mapping[str, Any], catalogue, sign_ticks: Mapping[str, int]
                    ) -> tuple[list[tuple[int, str]], dict[str, list[bool]], list[int]]:
    """(state index, why) of each listed rule's first tick in force, and of the conflict's meeting tick.

    A rule already in force at the first tick whose context is a sign is asked when that sign is in view
    (`sign_ticks`: sign id -> the sign frame's state index), since the first tick may not show it yet.
    Also returns each rule's in-force series and the state index of each series entry."""
    from roadtest.rules.evaluate import in_force_ticks
    from roadtest.rules.signals import extract_signals

    sig = extract_signals(trace, meta)
    index = [i for i, st in enumerate(trace.states) if st.ego is not None]
    country = meta.get("country")
    first: dict[str, int] = {}
    series: dict[str, list[bool]] = {}
    for ref in meta.get("rules") or []:
        rid = ref["id"]
        rule = catalogue[rid]
        on = in_force_ticks(rule, rule.params_for(country, ref.get("params") or {}), sig)
        series[rid] = on
        hit = next((k for k, yes in enumerate(on) if yes), None)
        if hit is None:
            continue
        first[rid] = index[hit]
        seen = [sign_ticks[sg] for sg in (rule.context.signs or []) if sg in sign_ticks]
        if hit == 0 and seen:
            first[rid] = min(seen)
    ticks = [(i, f"{rid} comes into force") for rid, i in first.items()]
    gov = meta.get("governing")
    if gov and gov in series:
        for rid, on in series.items():
            if rid == gov or (rid not in catalogue[gov].conflicts_with and gov not in catalogue[rid].conflicts_with):
                continue
            both = next((k for k, (a, b) in enumerate(zip(series[gov], on)) if a and b), None)
            if both is not None:
                ticks.append((index[both], f"{gov} meets {rid}"))
    ticks.sort()
    kept: list[tuple[int, str]] = []
    for i, why in ticks:
        if kept and trace.states[i].time - trace.states[kept[-1][0]].time < MIN_DECISION_GAP_S:
            kept[-1] = (kept[-1][0], kept[-1][1] + "; " + why)
        else:
            kept.append((i, why))
    return [(i, why) for i, why in kept], series, index


def _posted_at(state, meta: Mapping[str, Any], side: str) -> float | None:
    """The posted limit (m/s) at the ego in this state, as the speed_limit monitor reads it (roadtest.limits)."""
    from roadtest.limits import scene_limits, travel_direction

    lp = state.ego.lane if state.ego is not None else None
    if lp is None:
        return scene_limits(meta).road_limit
    return scene_limits(meta).posted(str(lp.road), lp.s, travel_direction(lp.lane, side))[0]


def _in_force_at(i: int, trace, series: Mapping[str, list[bool]], index: Sequence[int]) -> list[str]:
    t0 = trace.states[i].time
    out = []
    for rid, on in series.items():
        for k, yes in enumerate(on):
            t = trace.states[index[k]].time
            if yes and t0 - 1e-9 <= t <= t0 + LOOKAHEAD_S:
                out.append(rid)
                break
    return out


def question_record(q: Question, image: str, variant: str, seed: int, tick: int, time: float,
                    meta: Mapping[str, Any]) -> dict[str, Any]:
    """One exam line: the conversation (LLaVA / ShareGPT layout) plus the key and the scene it came from."""
    env = meta.get("environment") or {}
    return {
        "id": q.id, "kind": q.kind, "image": image,
        "conversations": [{"from": "human", "value": "<image>\n" + q.prompt}, {"from": "gpt", "value": q.answer}],
        "options": [{"letter": "ABCD"[i], "text": o.text, "breaks": list(o.breaks)} for i, o in enumerate(q.options)],
        "answer": q.answer, "justification": q.justification,
        "variant": variant, "scenario": meta.get("scenario"), "seed": seed, "tick": tick, "time": round(time, 3),
        "country": meta.get("country"), "level": meta.get("level"),
        "weather": env.get("weather"), "light": "night" if (env.get("sun_elevation") or 0.0) <= 0 else "day",
        "rules": q.justification.get("rules", []),
    }


def _write_png(path: Path, bgra: np.ndarray) -> None:
    import cv2

    path.parent.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(".png", np.ascontiguousarray(bgra[:, :, :3]))
    if not ok:
        raise RuntimeError(f"could not encode {path}")
    path.write_bytes(buf.tobytes())


def build_exam(target: Path, out: Path, seeds: int = 1, seed: int = 0, tick: float = 0.05) -> dict[str, Any]:
    """Write OUT/exam.jsonl and OUT/images/; return counts per kind and the checks' outcome."""
    from roadtest.bundle import load_bundle
    from roadtest.signs.catalogue import load_signs
    from roadtest.rules.catalogue_model import load_catalogue
    from roadtest.runner.cli import resolve_target
    from roadtest.runner.episode import EpisodeError, run_episode
    from roadtest.sim.api import SimSettings
    from roadtest.sim.embedded.render.cameras import Cameras
    from roadtest.sim.road.network import load_map

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    catalogue = load_catalogue()
    conflicts = {rid: tuple(r.conflicts_with) for rid, r in catalogue.items()}
    sources = {rid: {"content": r.rule_content, "jurisdictions": {c: j.source for c, j in r.jurisdictions.items()}}
               for rid, r in catalogue.items()}
    signs_cat = load_signs()
    lines: list[dict[str, Any]] = []
    dropped: list[str] = []
    for variant, path in resolve_target(Path(target), out / ".bundles"):
        bundle = load_bundle(path)
        meta = dict(bundle.meta)
        if bundle.xodr is None:
            raise UserError(f"{path}: the exam needs the scene's OpenDRIVE road (no road.xodr)")
        net = load_map(bundle.xodr)
        poses = {p.signal_id: p for p in sign_poses(net)}
        scene_signs = _scene_signs(meta)
        country = str(meta.get("country") or "")
        side = str(meta.get("driving_side") or "right")
        src = {rid: {"content": v["content"], "source": v["jurisdictions"].get(country)} for rid, v in sources.items()}
        for s in range(seed, seed + seeds):
            try:
                trace = run_episode(bundle, s, "expert", SimSettings(tick=tick))
            except EpisodeError as e:
                raise UserError(f"{variant}: the expert's run failed ({e.status}: {e.reason}); no exam frames") from e
            cameras = Cameras(net)
            try:
                picked = sign_frames(trace.states, poses.values(), EXAM_CAMERA)
                for sid, (i, dist) in sorted(picked.items(), key=lambda kv: (kv[1][0], kv[0])):
                    entry = scene_signs.get(sid)
                    if entry is None or entry.get("id") not in signs_cat:
                        continue
                    state = trace.states[i]
                    pixels = _sign_pixels(cameras, state, poses[sid])
                    qid = f"{variant}__s{s}__f{state.frame}__sign_{sid}"
                    if pixels < MIN_SIGN_PIXELS:
                        dropped.append(f"{qid}: only {pixels} sign pixels in view")
                        continue
                    implied = [r for r, rr in catalogue.items() if entry["id"] in (rr.context.signs or [])]
                    q = sign_question(qid, entry["id"], entry.get("value"), country, signs_cat, implied)
                    image = f"images/{qid}.png"
                    _write_png(out / image, cameras.observe(state, [EXAM_CAMERA])["front"][1])
                    rec = question_record(q, image, variant, s, state.frame, state.time, meta)
                    rec["justification"]["distance_m"] = round(dist, 2)
                    rec["justification"]["sign_pixels"] = pixels
                    lines.append(rec)
                sign_ticks: dict[str, int] = {}
                for sid, (j, _) in picked.items():
                    if sid in scene_signs:
                        name = scene_signs[sid]["id"]
                        sign_ticks[name] = min(j, sign_ticks.get(name, j))
                decisions, series, index = _decision_ticks(trace, meta, catalogue, sign_ticks)
                for i, why in decisions:
                    state = trace.states[i]
                    ids = _in_force_at(i, trace, series, index)
                    rules = [r for r in meta.get("rules") or [] if r["id"] in ids]
                    if not rules:
                        continue
                    limit = _posted_at(state, meta, side)
                    qid = f"{variant}__s{s}__f{state.frame}__action"
                    q = action_question(qid, rules, meta.get("governing"), conflicts, country, side,
                                        {"limit": limit}, meta.get("level"), src)
                    q.justification["why_this_frame"] = why
                    image = f"images/{qid}.png"
                    _write_png(out / image, cameras.observe(state, [EXAM_CAMERA])["front"][1])
                    lines.append(question_record(q, image, variant, s, state.frame, state.time, meta))
                    in_view = [(scene_signs[sid]["id"], scene_signs[sid].get("value"))
                               for sid, (j, _) in picked.items() if sid in scene_signs and abs(j - i) * tick <= LOOKAHEAD_S]
                    oq = open_question(f"{qid}__open", in_view, q, country, signs_cat)
                    lines.append(question_record(oq, image, variant, s, state.frame, state.time, meta))
            finally:
                cameras.release()
    _check(lines)
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in lines)
    (out / "exam.jsonl").write_text(text, encoding="utf-8")
    counts = {k: sum(1 for r in lines if r["kind"] == k) for k in ("sign", "action", "open")}
    summary = {"questions": len(lines), "by_kind": counts, "dropped": dropped, "camera": EXAM_CAMERA}
    (out / "exam_summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def _check(lines: Sequence[Mapping[str, Any]]) -> None:
    """Every multiple-choice question: four distinct options, exactly one that breaks nothing unexcused."""
    for r in lines:
        if r["kind"] == "open":
            continue
        texts = [o["text"] for o in r["options"]]
        if len(texts) != 4 or len(set(texts)) != 4:
            raise AssertionError(f"exam question {r['id']}: options are not four distinct texts")
        excused = set(r["justification"].get("excused") or [])
        ok = [o["letter"] for o in r["options"] if set(o["breaks"]) <= excused] if r["kind"] == "action" else \
            [o["letter"] for o in r["options"] if not o["breaks"]]
        if ok != [r["answer"]]:
            raise AssertionError(f"exam question {r['id']}: compliant options {ok}, key {r['answer']}")


def build_command(target: Path, out: Path, seeds: int = 1, seed: int = 0) -> int:
    """`roadtest exam build TARGET -o EXAM`."""
    summary = build_exam(target, out, seeds=seeds, seed=seed)
    k = summary["by_kind"]
    print(f"{summary['questions']} questions ({k['sign']} sign, {k['action']} action, {k['open']} open) "
          f"in {Path(out) / 'exam.jsonl'}; {len(summary['dropped'])} sign frame(s) dropped as not visible")
    return 0
