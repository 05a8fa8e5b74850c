"""The openai backend against servers that misbehave at the byte level (raw socket stand-ins): every call ends
by its whole-call deadline, and each bad answer is one retryable BackendCallError naming the server."""

from __future__ import annotations

import json
import os
import time

import pytest

pytest.importorskip("openai")

from raw_http_standin import RawServer, answer, drip, http_head  # noqa: E402
from roadtest.agents.vlm.answers import read_plan  # noqa: E402
from roadtest.agents.vlm.backends import BackendCallError  # noqa: E402
from roadtest.agents.vlm.config import merge_config  # noqa: E402

COMPLETION = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"},
                                      "finish_reason": "stop"}]}).encode()
MSG = [{"role": "user", "content": "hello"}]


def _backend(url, timeout=5.0):
    from roadtest.agents.vlm.backends.openai_backend import OpenAIBackend

    return OpenAIBackend(merge_config({"backend": "openai", "timeout_s": timeout,
                                       "openai": {"base_url": url + "/v1", "model": "m"}}))


def test_a_server_dripping_its_answer_is_cut_at_the_whole_call_deadline():
    with RawServer(drip(http_head(length=len(COMPLETION)) + COMPLETION, every=0.05)) as srv:
        backend = _backend(srv.url)
        t0 = time.monotonic()
        with pytest.raises(BackendCallError) as info:
            backend.complete(MSG, [], None, timeout=0.5)
        took = time.monotonic() - t0
        backend.close()
    assert took < 6.0, took  # the whole answer would take ~12 s, each read 0.05 s (a busy machine adds seconds)
    assert str(info.value) == f"{srv.url}/v1: timed out: no whole answer within 0.5 s" and info.value.retryable


def test_the_backend_answers_again_after_a_late_call():
    calls = []

    def script(conn):
        calls.append(1)
        (drip(http_head(length=len(COMPLETION)) + COMPLETION, every=0.05) if len(calls) == 1
         else answer(COMPLETION))(conn)

    with RawServer(script) as srv:
        backend = _backend(srv.url)
        with pytest.raises(BackendCallError, match="timed out"):
            backend.complete(MSG, [], None, timeout=0.3)
        assert backend.complete(MSG, [], None, timeout=5).text == "{}"
        backend.close()


def test_ten_megabytes_of_random_bytes_are_not_a_completion():
    with RawServer(answer(os.urandom(10 * 1024 * 1024))) as srv:
        backend = _backend(srv.url)
        with pytest.raises(BackendCallError) as info:
            backend.complete(MSG, [], None, timeout=20)
    msg = str(info.value)
    assert msg.startswith(f"{srv.url}/v1: the answer is not a JSON chat completion (") and info.value.retryable
    assert "UnicodeDecodeError" in msg or "JSONDecodeError" in msg


def test_a_text_plain_body_is_not_a_completion():
    with RawServer(answer(b"Bad gateway, try later", "text/plain")) as srv:
        backend = _backend(srv.url)
        with pytest.raises(BackendCallError) as info:
            backend.complete(MSG, [], None, timeout=5)
    assert str(info.value) == f"{srv.url}/v1: the answer is not a JSON chat completion (str 'Bad gateway, try later')"


def test_json_without_choices_is_not_a_completion():
    with RawServer(answer(b'{"detail": "overloaded"}')) as srv:
        backend = _backend(srv.url)
        with pytest.raises(BackendCallError, match=r"/v1: the answer is not a JSON chat completion \("):
            backend.complete(MSG, [], None, timeout=5)


def test_credentials_in_base_url_are_not_in_the_message():
    with RawServer(answer(b"nope", "text/plain")) as srv:
        backend = _backend(srv.url.replace("http://", "http://bob:hunter2@"))
        with pytest.raises(BackendCallError) as info:
            backend.complete(MSG, [], None, timeout=5)
    assert "hunter2" not in str(info.value) and str(info.value).startswith("http://***@127.0.0.1:")


@pytest.mark.parametrize("waypoints, why", [
    ([[1e308, 0.0]] * 6, "waypoints.0: (1e+308, 0) is more than 1000 m from the car"),
    ([[1.0, 0.0]] * 5 + [[2.0, -1500.0]], "waypoints.5: (2, -1500) is more than 1000 m from the car"),
])
def test_waypoints_absurdly_far_are_invalid(waypoints, why):
    assert read_plan({"waypoints": waypoints, "target_speed": 30, "reason": ""}, []) == (None, why)


def test_an_absurd_target_speed_is_invalid():
    plan = {"waypoints": [[float(i), 0.0] for i in range(1, 7)], "target_speed": 1e308, "reason": ""}
    assert read_plan(plan, []) == (None, "target_speed: 1e+308 is over 1000 (the prompt's unit)")


def test_a_run_with_credentials_in_base_url_never_records_them(smoke_bundles):
    from fake_openai import FakeOpenAIServer, FakeReply
    from roadtest.bundle import load_bundle
    from roadtest.runner.episode import EpisodeError, run_episode
    from roadtest.sim.api import SimSettings

    with FakeOpenAIServer(lambda req: FakeReply(status=500)) as srv:
        url = srv.base_url.replace("http://", "http://alice:hunter2@")
        config = {"cameras": [{"id": "front", "width": 64, "height": 36, "fov": 60.0}], "backend": "openai",
                  "openai": {"base_url": url}, "retries": 0, "max_consecutive_failures": 2}
        with pytest.raises(EpisodeError) as err:
            run_episode(load_bundle(smoke_bundles["straight-speed-limit"]), 0, "vlm", SimSettings(max_time=5.0),
                        agent_config=config)
    texts = [err.value.reason] + [json.dumps(a.record) + str(a.text) for a in err.value.trace.agent]
    assert all("hunter2" not in t and "alice" not in t for t in texts)
    assert "http://***@127.0.0.1:" in err.value.reason and "HTTP 500" in err.value.reason


def test_a_vlm_run_against_a_dripping_server_ends_within_its_deadlines(smoke_bundles):
    from roadtest.bundle import load_bundle
    from roadtest.runner.episode import EpisodeError, run_episode
    from roadtest.sim.api import SimSettings

    with RawServer(drip(http_head(length=len(COMPLETION)) + COMPLETION, every=0.2)) as srv:
        config = {"cameras": [{"id": "front", "width": 64, "height": 36, "fov": 60.0}], "backend": "openai",
                  "openai": {"base_url": srv.url + "/v1", "model": "m"}, "timeout_s": 0.3, "retries": 0,
                  "max_consecutive_failures": 2}
        t0 = time.monotonic()
        with pytest.raises(EpisodeError) as err:
            run_episode(load_bundle(smoke_bundles["straight-speed-limit"]), 0, "vlm", SimSettings(max_time=20.0),
                        agent_config=config)
        took = time.monotonic() - t0
    assert err.value.status == "agent_error"
    assert "2 decisions in a row failed" in err.value.reason and "no whole answer within 0.3 s" in err.value.reason
    assert took < 20.0, took  # two 0.3 s deadlines plus the episode's set-up; one dripped answer takes ~50 s
