"""The VLM agent's figures, per run and per suite, from the decision records in a trace and the scene's ground truth.

A metric of the scoring room (registry.py): it reads the agent's decision records as data and imports nothing of
the agent.

Ground truth at each decision is the state the decision saw and the scene in meta.json (the agent never
reads either). A sign instance is one scene sign inside the field of view of a camera the decision sent (its
bearing within the half angle, less 2 degrees for the board's width) at one decision, in a distance class
from that camera (near 5-15 m, mid 15-30 m, far 30-60 m); it is recognised when the answer names the same
sign id (and, for signs with a value, the value its face prints); a named sign with no scene sign of that
id in view or within 80 m is a false positive. Lights and the rules in force come from the privileged
objects view of the same state. Light
accuracy compares the answered state with the light governing the ego within 60 m ("none" when there is
none). A plan obeys the rules in force when its target speed keeps the limit (5 % + 0.3 m/s slack) and,
with a red light or a stop sign not yet stopped at within 40 m, no waypoint passes the stop line.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["figures", "run_figures", "suite_figures", "vlm_lines", "DIST_CLASSES", "percentile"]

DIST_CLASSES = (("near", 5.0, 15.0), ("mid", 15.0, 30.0), ("far", 30.0, 60.0))
LIGHT_RANGE = 60.0  # m
STOP_RANGE = 40.0  # m
_MPH = {"US", "GB"}


def percentile(xs: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100) by linear interpolation between closest ranks (numpy's default)."""
    if not xs:
        return None
    v = sorted(xs)
    pos = (len(v) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def _rate(k: int, n: int) -> float | None:
    return round(k / n, 6) if n else None


def _dist_class(d: float) -> str | None:
    for name, lo, hi in DIST_CLASSES:
        if lo < d <= hi:
            return name
    return None


def _same_value(sign_id: str, truth: Any, said: Any, country: str) -> bool:
    """Whether the answered value is the one the face prints (the catalogue's km/h; mph to the nearest 5 in the
    US and GB); an end-of-limit sign is recognised without its value."""
    if truth is None or sign_id.startswith("end_"):
        return True
    try:
        want = float(truth)
        if country in _MPH and sign_id in ("speed_limit", "minimum_speed"):
            want = 5 * round(want / 1.609344 / 5)
        return said is not None and abs(want - float(said)) < 0.5
    except (TypeError, ValueError):
        return False


def _labels(meta: Mapping[str, Any], trace: Any) -> dict[str, str]:
    env = meta.get("environment") or {}
    sun = trace.states[0].environment.sun_intensity if trace.states else 1.0
    return {"country": str(meta.get("country") or "?"), "weather": str(env.get("weather") or "?"),
            "light": "night" if sun < 0.2 else "day"}


def _network(bundle: Any) -> Any:
    xodr = getattr(bundle, "xodr", None)
    if xodr is None:
        return None
    from roadtest.sim.road import load_map

    return load_map(xodr)


def _scene_signs(network: Any, meta: Mapping[str, Any]) -> list[tuple[str, Any, float, float]]:
    """(sign id, value, x, y) of every scene sign the map can place."""
    out = []
    for sg in (meta.get("scene") or {}).get("signs") or []:
        try:
            p = network.road_to_world(str(sg.get("road")), float(sg.get("s", 0.0)), float(sg.get("t", 0.0)))
        except Exception:  # noqa: BLE001 - a sign on a road the map lacks is not in anyone's view
            continue
        out.append((str(sg.get("id") or sg.get("kind")), sg.get("value"), float(p.x), float(p.y)))
    return out


def _signs_in_view(signs: list[tuple[str, Any, float, float]], ego: Any, frames: list[Mapping[str, Any]]) -> list[tuple[str, Any, float]]:
    """(sign id, value, distance from the camera) of the scene signs some sent camera saw."""
    seen: dict[int, tuple[str, Any, float]] = {}
    for fr in frames:
        mx, my, myaw = (list(fr.get("mount") or [1.5, 0.0, 0.0]) + [0.0, 0.0, 0.0])[:3]
        half = math.radians(float(fr.get("fov", 60.0))) / 2.0 - math.radians(2.0)
        c, s = math.cos(ego.h), math.sin(ego.h)
        cx, cy = ego.x + c * mx - s * my, ego.y + s * mx + c * my
        heading = ego.h + math.radians(myaw)
        for i, (sid, value, x, y) in enumerate(signs):
            dx, dy = x - cx, y - cy
            fwd = dx * math.cos(heading) + dy * math.sin(heading)
            lat = -dx * math.sin(heading) + dy * math.cos(heading)
            d = math.hypot(fwd, lat)
            if fwd > 0.0 and abs(math.atan2(lat, fwd)) <= half and (i not in seen or d < seen[i][2]):
                seen[i] = (sid, value, d)
    return list(seen.values())


def _views(trace: Any, meta: Mapping[str, Any], network: Any, times: Iterable[float]) -> dict[float, tuple[Any, dict[str, Any]]]:
    """(ego state, objects view) of the state each decision saw (the first recorded state for the decision at t = 0)."""
    from roadtest.sim.objects_sensor import ObjectsSensor

    sensor = ObjectsSensor(network, meta)
    by_time = {round(s.time, 6): s for s in trace.states}
    out = {}
    for t in times:
        st = by_time.get(round(t, 6))
        if st is None:
            st = next((s for s in trace.states if s.time >= t - 1e-9), trace.states[-1] if trace.states else None)
        ego = st.ego if st is not None else None
        if ego is not None:
            out[t] = (ego, sensor(st, ego.id))
    return out


def _obeys(plan: Mapping[str, Any], view: Mapping[str, Any], speed: float) -> tuple[bool, list[str]]:
    checks, ok = [], True
    limit = view.get("speed_limit")
    if limit is not None:
        checks.append("speed_limit")
        ok &= plan["target_speed"] <= 1.05 * float(limit) + 0.3
    half = float((view.get("ego") or {}).get("length", 4.5)) / 2.0
    reach = max(float(p[0]) for p in plan["waypoints"])
    for lt in view.get("lights") or []:
        d = float(lt["stop_distance"])
        if str(lt.get("state")) == "red" and 0.0 < d <= STOP_RANGE:
            checks.append("red_light")
            ok &= reach <= d - half + 1.0
    for sl in view.get("stop_lines") or []:
        d = float(sl["distance"])
        if sl.get("stop_sign") and 0.0 < d <= STOP_RANGE and speed > 0.5:
            checks.append("stop_sign")
            ok &= reach <= d - half + 1.0
    return bool(ok), checks


def run_figures(trace: Any, meta: Mapping[str, Any], bundle: Any = None) -> dict[str, Any]:
    """One run's figures (see the module docstring); `_samples` keeps latencies for the suite's percentiles."""
    recs = [a.record for a in trace.agent if a.record and a.record.get("kind") == "vlm_decision"]
    network = _network(bundle) if recs else None
    views = _views(trace, meta, network, [r["t"] for r in recs]) if recs else {}
    scene_signs = _scene_signs(network, meta) if network is not None else []
    country = str(meta.get("country") or "")
    signs = {name: [0, 0] for name, _, _ in DIST_CLASSES}
    false_pos = 0
    light_n = light_k = light_all_k = light_all_n = 0
    answers = failures = repaired = failed_calls = 0
    follow_n = follow_k = 0
    lat: dict[str, list[float]] = {}
    overhead: list[float] = []
    for r in recs:
        ego, view = views.get(r["t"], (None, None))
        for st in r["stages"]:
            lat.setdefault(st["stage"], []).append(float(st["latency_s"]))
            if st["raw"] is None and st["error"]:
                failed_calls += 1
                continue
            answers += 1
            failures += st["parsed"] is None
            repaired += bool(st["repairs"]) and st["parsed"] is not None
        lat.setdefault("decision", []).append(float(r.get("latency_s", 0.0)))
        if r.get("agent_overhead_s") is not None:
            overhead.append(float(r["agent_overhead_s"]))
        per = r.get("perception")
        if view is None or per is None:
            continue
        said = list(per.get("signs") or [])
        used = [False] * len(said)
        in_view = _signs_in_view(scene_signs, ego, r.get("frames") or [])
        for sid, value, dist in sorted(in_view, key=lambda v: v[2]):
            cls = _dist_class(dist)
            if cls is None:
                continue
            signs[cls][0] += 1
            for i, s in enumerate(said):
                if not used[i] and s.get("id") == sid and _same_value(sid, value, s.get("value"), country):
                    used[i] = True
                    signs[cls][1] += 1
                    break
        nearby = {v[0] for v in in_view} | {str(sg.get("id") or sg.get("kind")) for sg in view.get("signs") or []
                                            if -5.0 < float(sg["distance"]) <= 80.0}
        false_pos += sum(1 for i, s in enumerate(said) if not used[i] and s.get("id") not in nearby)
        ahead = [lt for lt in view.get("lights") or [] if 0.0 < float(lt["stop_distance"]) <= LIGHT_RANGE]
        truth = str(ahead[0]["state"]) if ahead else "none"
        truth = "yellow" if truth == "amber" else truth
        light_all_n += 1
        light_all_k += per.get("light") == truth
        if ahead:
            light_n += 1
            light_k += per.get("light") == truth
        if r.get("plan") is not None:
            ok, checks = _obeys(r["plan"], view, float(r.get("speed", 0.0)))
            if checks:
                follow_n += 1
                follow_k += ok
    n_all = sum(v[0] for v in signs.values())
    k_all = sum(v[1] for v in signs.values())
    n30, k30 = signs["near"][0] + signs["mid"][0], signs["near"][1] + signs["mid"][1]
    first = recs[0] if recs else {}
    sim_span = (recs[-1]["t"] - recs[0]["t"]) if len(recs) > 1 else 0.0
    wall_span = (recs[-1]["wall_s"] - recs[0]["wall_s"]) if len(recs) > 1 else 0.0
    return {
        "backend": first.get("backend"), "model": first.get("model"), "not_a_vlm": bool(first.get("not_a_vlm")),
        "mode": first.get("mode"), "latency_mode": first.get("latency_mode"),
        "privileged_hints": any(r.get("privileged_hints") for r in recs), "decisions": len(recs),
        "labels": _labels(meta, trace),
        "signs": {"instances": n_all, "recognised": k_all, "accuracy": _rate(k_all, n_all),
                  "within_30m": {"instances": n30, "recognised": k30, "accuracy": _rate(k30, n30)},
                  "by_distance": {c: {"instances": v[0], "recognised": v[1], "accuracy": _rate(v[1], v[0])} for c, v in signs.items()},
                  "false_positives": false_pos},
        "lights": {"decisions_with_light": light_n, "correct": light_k, "accuracy": _rate(light_k, light_n),
                   "all_decisions_accuracy": _rate(light_all_k, light_all_n)},
        "parse": {"answers": answers, "failures": failures, "failure_rate": _rate(failures, answers),
                  "repaired": repaired, "repair_rate": _rate(repaired, answers), "failed_calls": failed_calls},
        "instruction_following": {"decisions": follow_n, "obeyed": follow_k, "rate": _rate(follow_k, follow_n)},
        "latency_s": {k: {"p50": percentile(v, 50), "p95": percentile(v, 95), "n": len(v)} for k, v in lat.items()},
        "agent_overhead_s": {"p50": percentile(overhead, 50), "p95": percentile(overhead, 95)},
        "sim_to_wall": round(sim_span / wall_span, 4) if wall_span > 0 else None,
        "_samples": {"latency_s": {k: [round(x, 6) for x in v] for k, v in lat.items()}},
    }


def figures(trace: Any, meta: Mapping[str, Any], bundle: Any = None) -> dict[str, Any] | None:
    """run_figures of a run whose agent left records, scored with its bundle (the figures need its map); None, so the
    record has no "vlm" key, for any other run."""
    return run_figures(trace, meta, bundle) if bundle is not None and any(a.record for a in trace.agent) else None


def suite_figures(runs: Sequence[Mapping[str, Any] | None], planned: int | None = None) -> dict[str, Any] | None:
    """Sums over the runs' figures; sign recognition within 30 m by country, weather, light, and by country in clear
    daylight; latency percentiles (over the runs that have figures: `planned` is not used)."""
    runs = [r for r in runs if r]
    if not runs:
        return None

    def add(path: Sequence[str]) -> int:
        total = 0
        for r in runs:
            v: Any = r
            for p in path:
                v = (v or {}).get(p)
            total += int(v or 0)
        return total

    groups: dict[str, dict[str, list[int]]] = {"country": {}, "weather": {}, "light": {}, "country_clear_day": {}}
    for r in runs:
        w = (r.get("signs") or {}).get("within_30m") or {}  # a record from elsewhere may hold only some figures
        w = {"instances": int(w.get("instances") or 0), "recognised": int(w.get("recognised") or 0)}
        lab = r.get("labels") or {}
        keys = {k: str(lab.get(k)) for k in ("country", "weather", "light")}
        if lab.get("weather") == "clear" and lab.get("light") == "day":
            keys["country_clear_day"] = str(lab.get("country"))
        for key, name in keys.items():
            g = groups[key].setdefault(name, [0, 0])
            g[0] += w["instances"]
            g[1] += w["recognised"]
    lat: dict[str, list[float]] = {}
    for r in runs:
        for k, v in ((r.get("_samples") or {}).get("latency_s") or {}).items():
            lat.setdefault(k, []).extend(v)
    n30, k30 = add(["signs", "within_30m", "instances"]), add(["signs", "within_30m", "recognised"])
    ans, fail, rep = add(["parse", "answers"]), add(["parse", "failures"]), add(["parse", "repaired"])
    ln, lk = add(["lights", "decisions_with_light"]), add(["lights", "correct"])
    fn, fk = add(["instruction_following", "decisions"]), add(["instruction_following", "obeyed"])
    return {
        "runs": len(runs), "backends": sorted({str(r.get("backend")) for r in runs}),
        "not_a_vlm": any(r.get("not_a_vlm") for r in runs), "privileged_hints": any(r.get("privileged_hints") for r in runs),
        "decisions": add(["decisions"]),
        "sign_accuracy_30m": _rate(k30, n30), "sign_instances_30m": n30,
        "sign_accuracy_30m_by": {key: {name: {"instances": v[0], "accuracy": _rate(v[1], v[0])} for name, v in sorted(g.items())}
                                 for key, g in groups.items()},
        "light_accuracy": _rate(lk, ln), "light_decisions": ln,
        "parse_failure_rate": _rate(fail, ans), "repair_rate": _rate(rep, ans), "failed_calls": add(["parse", "failed_calls"]),
        "instruction_following": _rate(fk, fn),
        "latency_s": {k: {"p50": percentile(v, 50), "p95": percentile(v, 95), "n": len(v)} for k, v in lat.items()},
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def _secs(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f} s"


def vlm_lines(fig: Mapping[str, Any]) -> list[str]:
    """Plain lines for the console (suite_figures' dict)."""
    tag = " -- NOT A VLM: the builtin rule-based baseline" if fig.get("not_a_vlm") else ""
    if fig.get("privileged_hints"):
        tag += " -- PRIVILEGED HINTS: ground truth in the prompt"
    by = fig.get("sign_accuracy_30m_by") or {}
    weather = ", ".join(f"{k} {_pct(v['accuracy'])} ({v['instances']})" for k, v in (by.get("weather") or {}).items())
    lat = fig.get("latency_s") or {}
    lat_text = "  ".join(f"{k} p50 {_secs(v['p50'])} p95 {_secs(v['p95'])}" for k, v in lat.items())
    return [
        f"vlm agent ({', '.join(fig.get('backends') or [])}){tag}: {fig.get('decisions', 0)} decisions in {fig.get('runs', 0)} run(s)",
        f"  signs within 30 m recognised {_pct(fig.get('sign_accuracy_30m'))} of {fig.get('sign_instances_30m', 0)}"
        + (f"; by weather: {weather}" if weather else ""),
        f"  light state {_pct(fig.get('light_accuracy'))} of {fig.get('light_decisions', 0)}  parse failures "
        f"{_pct(fig.get('parse_failure_rate'))}  repaired {_pct(fig.get('repair_rate'))}  failed calls {fig.get('failed_calls', 0)}  "
        f"instruction following {_pct(fig.get('instruction_following'))}",
        f"  latency {lat_text}",
    ]
