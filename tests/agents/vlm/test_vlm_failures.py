"""What the VLM agent sends, and what it does with bad answers, failing servers and slow models (fake server)."""

from __future__ import annotations

import base64
import json

import pytest

pytest.importorskip("openai")

from drive import drive
from roadtest.sim.embedded import EmbeddedSimulator
from fake_openai import FakeReply, prompt_text, stage_of
from oracle import route_following_reply
from roadtest.runner.episode import EpisodeError, run_episode
from roadtest.sim.api import SimSettings

CAM = {"cameras": [{"id": "front", "width": 64, "height": 36, "fov": 60.0}]}
ROAD = "straight-speed-limit"


def _run(smoke_bundles, reply, max_time=6.0, **cfg):
    return drive(smoke_bundles[ROAD], {**CAM, **cfg}, lambda sim: reply, EmbeddedSimulator, max_time=max_time)


def _records(trace):
    return [a.record for a in trace.agent if a.record]


def test_request_carries_image_first_temperature_zero_schema_and_key_from_named_variable(smoke_bundles, monkeypatch):
    monkeypatch.setenv("MY_VLM_KEY", "sk-test-123")
    trace, _, _, srv = _run(smoke_bundles, route_following_reply(), max_time=1.0, openai={"api_key_env": "MY_VLM_KEY"})
    first = srv.requests[0]
    assert first["model"] == "fake-vlm"  # discovered from GET /v1/models
    assert first["temperature"] == 0 and first["max_tokens"] == 512
    parts = first["messages"][-1]["content"]
    assert [p["type"] for p in parts] == ["image_url", "text"]
    url = parts[0]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    assert base64.b64decode(url.split(",", 1)[1])[:2] == b"\xff\xd8"  # a JPEG
    rf = first["response_format"]
    assert rf["type"] == "json_schema" and set(rf["json_schema"]["schema"]["properties"]) == {"signs", "light", "road_users"}
    assert srv.headers[0]["authorization"] == "Bearer sk-test-123"
    planning = srv.requests[1]
    assert stage_of(planning) == "planning" and "Germany" not in prompt_text(planning)  # the scenario is in China
    assert "China" in prompt_text(planning) and "km/h" in prompt_text(planning)
    assert json.loads(prompt_text(planning).split("What the car sees now (from its perception): ")[1].split("\n")[0]) \
        == {"signs": [], "light": "none", "road_users": []}
    rec = _records(trace)[0]
    assert rec["frames"][0]["camera"] == "front" and len(rec["frames"][0]["sha256"]) == 16
    assert [s["prompt_id"] for s in rec["stages"]] == ["perception/v1", "planning/v1"]
    assert all(len(s["prompt_sha256"]) == 64 for s in rec["stages"])
    assert rec["stages"][0]["tokens_in"] == 100 and rec["stages"][0]["tokens_out"] == 20


@pytest.mark.parametrize("mode,key", [("structured_outputs", "structured_outputs"), ("guided_json", "guided_json")])
def test_vllm_guided_decoding_switch(smoke_bundles, mode, key):
    _, _, _, srv = _run(smoke_bundles, route_following_reply(), max_time=0.5, openai={"structured": mode})
    body = srv.requests[0]
    assert "response_format" not in body
    schema = body[key]["json"] if mode == "structured_outputs" else body[key]
    assert "signs" in schema["properties"]


def test_no_ground_truth_in_prompts_unless_privileged_hints(smoke_bundles):
    _, _, fig, srv = _run(smoke_bundles, route_following_reply(), max_time=2.0)
    texts = [prompt_text(r) for r in srv.requests]
    assert not any("PRIVILEGED" in t or "stop_lines_m" in t for t in texts)
    assert fig["privileged_hints"] is False
    trace, _, fig, srv = _run(smoke_bundles, route_following_reply(), max_time=2.0, privileged_hints=True)
    texts = [prompt_text(r) for r in srv.requests]
    assert all("PRIVILEGED HINTS" in t for t in texts)
    assert '"value": 50' in texts[0]  # the 50 km/h sign 20 m ahead, from the ground truth
    assert fig["privileged_hints"] is True and all(r["privileged_hints"] for r in _records(trace))


def _then(good, bad, after: int):
    """`good` for the first `after` planning answers, then `bad` (a string or a FakeReply) for every call."""
    n = {"plans": 0}

    def reply(req):
        if n["plans"] >= after:
            return bad
        if stage_of(req) == "planning":
            n["plans"] += 1
        return good(req)
    return reply


def test_broken_json_keeps_the_last_plan_for_the_hold_time_then_brakes_to_a_stop(smoke_bundles):
    trace, _, fig, _ = _run(smoke_bundles, _then(route_following_reply(30.0), "I think we should {drive", 4),
                            max_time=12.0, plan_hold_s=1.0)
    recs = _records(trace)
    outcomes = [r["outcome"] for r in recs]
    assert outcomes[:4] == ["new_plan"] * 4
    last_plan_t = recs[3]["t"]
    for r in recs[4:]:  # expiry: the next decision's slot (0.5 s) plus the 1.0 s hold
        want = "kept_last_plan" if r["t"] <= last_plan_t + 0.5 + 1.0 + 1e-9 else "braking"
        assert r["outcome"] == want, (r["t"], r["outcome"])
    assert recs[4]["stages"][0]["error"].startswith("unreadable answer")
    braking_from = last_plan_t + 1.5
    late = [s.ego.speed for s in trace.states if s.time > braking_from + 4.0]
    assert late and max(late) < 0.05  # stopped (8.3 m/s at 2.5 m/s^2 takes 3.4 s)
    assert fig["parse"]["failures"] == fig["parse"]["answers"] - 8
    assert trace.termination.value == "timeout"  # never an agent_error: the server answered


def test_fenced_answers_are_repaired_and_counted(smoke_bundles):
    base = route_following_reply()
    reply = lambda req: "Here you go:\n```json\n" + base(req) + "\n```"  # noqa: E731
    trace, _, fig, _ = _run(smoke_bundles, reply, max_time=2.0)
    assert all(r["outcome"] == "new_plan" for r in _records(trace))
    assert fig["parse"]["failures"] == 0 and fig["parse"]["repair_rate"] == 1.0
    assert _records(trace)[0]["stages"][0]["repairs"] == ["extracted JSON object from surrounding text"]


def _plan_reply(plan_body):
    def reply(req):
        if stage_of(req) == "perception":
            return json.dumps({"signs": [], "light": "none", "road_users": []})
        return json.dumps(plan_body) if not isinstance(plan_body, str) else plan_body
    return reply


@pytest.mark.parametrize("body,outcome,why", [
    ({"waypoints": [[2, 0], [4, 0], [6, 0], [8, 0], [10, 0]], "target_speed": 15, "reason": "x"}, "braking",
     "waypoints: expected 6, got 5"),
    ({"waypoints": [[2 * k, 0] for k in range(1, 9)], "target_speed": 15, "reason": "x"}, "new_plan", None),
    ('{"waypoints": [[2, 0], [4, 0], [NaN, 0], [8, 0], [10, 0], [12, 0]], "target_speed": 15, "reason": "x"}', "braking",
     "waypoints.2: not finite"),
    ({"waypoints": [[-3, 0], [-6, 0], [-9, 0], [-12, 0], [-15, 0], [-18, 0]], "target_speed": 15, "reason": "x"}, "braking",
     "waypoints.0: behind the car"),
    ({"waypoints": [[2, 0]] * 6, "target_speed": -4, "reason": "x"}, "braking", "target_speed: negative"),
])
def test_plan_validation(smoke_bundles, body, outcome, why):
    trace, _, _, _ = _run(smoke_bundles, _plan_reply(body), max_time=0.5)
    rec = _records(trace)[0]
    assert rec["outcome"] == outcome
    if why is None:
        assert rec["stages"][1]["repairs"] == ["8 waypoints: kept the first 6"]
        assert len(rec["plan"]["waypoints"]) == 6
    else:
        assert why in rec["stages"][1]["error"]


def test_http_500_is_retried_with_backoff(smoke_bundles):
    calls = {"n": 0}
    good = route_following_reply()

    def reply(req):
        calls["n"] += 1
        return FakeReply(status=500) if calls["n"] == 1 else good(req)

    trace, _, fig, srv = _run(smoke_bundles, reply, max_time=1.0, backoff_s=0.01)
    rec = _records(trace)[0]
    assert rec["stages"][0]["attempts"] == 2 and rec["outcome"] == "new_plan"
    assert fig["parse"]["failed_calls"] == 0


def _episode(smoke_bundles, reply, **cfg):
    from fake_openai import FakeOpenAIServer
    from roadtest.bundle import load_bundle

    with FakeOpenAIServer(reply) as srv:
        config = {**CAM, "backend": "openai", "openai": {"base_url": srv.base_url}, **cfg}
        with pytest.raises(EpisodeError) as err:
            run_episode(load_bundle(smoke_bundles[ROAD]), 0, "vlm", SimSettings(max_time=20.0),
                        agent_config=config)
    return err.value, srv


def test_a_server_that_keeps_failing_ends_the_run_as_agent_error_with_its_message(smoke_bundles):
    err, srv = _episode(smoke_bundles, lambda req: FakeReply(status=500), retries=1, backoff_s=0.01,
                        max_consecutive_failures=3)
    assert err.status == "agent_error"
    assert "3 decisions in a row failed" in err.reason and "HTTP 500" in err.reason
    assert len(srv.requests) == 3 * 2  # three decisions, each one call and one retry
    assert err.trace.termination.value == "agent_error"


def test_a_slow_server_times_out_and_never_hangs_the_run(smoke_bundles):
    err, srv = _episode(smoke_bundles, lambda req: FakeReply(content="{}", delay=1.0), timeout_s=0.2, retries=0,
                        max_consecutive_failures=2)
    assert err.status == "agent_error" and "timed out" in err.reason
    assert len(srv.requests) == 2


def test_realtime_mode_applies_a_plan_after_the_measured_latency(smoke_bundles):
    good = route_following_reply()
    reply = lambda req: FakeReply(content=good(req), delay=0.4)  # noqa: E731 - 0.8 s per two-stage decision
    trace, _, fig, _ = _run(smoke_bundles, reply, max_time=4.0, latency="realtime")
    recs = _records(trace)
    for a, b in zip(recs, recs[1:]):
        assert a["latency_s"] >= 0.8
        assert a["plan"]["effective_at"] == pytest.approx(a["t"] + a["latency_s"])
        assert b["t"] >= a["t"] + a["latency_s"] - 1e-9  # no new question while the last is in flight
    assert fig["latency_mode"] == "realtime"
    # sync mode on the same server: every 0.5 s of simulated time, whatever the wall time
    trace, _, _, _ = _run(smoke_bundles, reply, max_time=2.0)
    assert [round(r["t"], 2) for r in _records(trace)] == [0.0, 0.5, 1.0, 1.5]
