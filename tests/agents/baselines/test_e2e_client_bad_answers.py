"""The e2e client against servers that misbehave at the byte level: every call ends by its whole-call deadline,
and each bad answer is one ModelServerError naming the server (never a bare library exception)."""

from __future__ import annotations

import json
import os
import time

import pytest

from raw_http_standin import RawServer, answer, drip, http_head
from roadtest.agents.baselines.client import ModelClient, ModelServerError
from roadtest.agents.baselines.e2e_server import PROTOCOL

OK = json.dumps({"protocol": PROTOCOL, "trajectory": [[0, 1], [0, 2]]}).encode()


def test_a_server_dripping_one_byte_per_read_is_cut_at_the_whole_call_deadline():
    # 0.1 s per byte: every read is far inside the 0.5 s timeout, the whole answer takes ~13 s
    with RawServer(drip(http_head(length=len(OK)) + OK, every=0.1)) as srv:
        t0 = time.monotonic()
        with pytest.raises(ModelServerError) as info:
            ModelClient(srv.url, timeout=0.5).health()
        took = time.monotonic() - t0
    assert took < 6.0, took  # half the ~13 s the whole answer takes: room for a busy machine
    assert str(info.value) == f"model server {srv.url}/health gave no answer within 0.5 s"


def test_a_body_that_drips_after_a_prompt_head_is_cut_too():
    def script(conn):
        conn.sendall(http_head(length=len(OK)))
        drip(OK, every=0.1)(conn)

    with RawServer(script) as srv:
        t0 = time.monotonic()
        with pytest.raises(ModelServerError, match="gave no answer within 0.4 s"):
            ModelClient(srv.url, timeout=0.4).infer({"session": "s"})
        assert time.monotonic() - t0 < 1.4


def test_ten_megabytes_of_random_bytes_are_not_json():
    body = os.urandom(10 * 1024 * 1024)
    with RawServer(answer(body)) as srv:
        with pytest.raises(ModelServerError) as info:
            ModelClient(srv.url, timeout=10).infer({})
    assert str(info.value).startswith(f"model server {srv.url}/infer answered something that is not JSON: b")


def test_a_text_plain_body_is_not_json():
    with RawServer(answer(b"Service temporarily overloaded", "text/plain")) as srv:
        with pytest.raises(ModelServerError) as info:
            ModelClient(srv.url, timeout=5).infer({})
    assert str(info.value) == (f"model server {srv.url}/infer answered something that is not JSON: "
                               f"b'Service temporarily overloaded'")


def test_a_connection_closed_mid_answer_names_the_server():
    with RawServer(lambda conn: conn.sendall(http_head(length=1000) + OK[:10])) as srv:
        with pytest.raises(ModelServerError) as info:
            ModelClient(srv.url, timeout=5).infer({})
    msg = str(info.value)
    assert msg.startswith(f"model server {srv.url}/infer dropped the connection after ") and "IncompleteRead" in msg


def test_an_answer_past_the_size_limit_is_refused(monkeypatch):
    import roadtest.agents.baselines.client as client

    monkeypatch.setattr(client, "MAX_ANSWER", 1000)
    body = json.dumps({"protocol": PROTOCOL, "pad": "x" * 2000}).encode()
    with RawServer(answer(body)) as srv:
        with pytest.raises(ModelServerError, match=f"{srv.url}/infer answered more than 1000 bytes"):
            client.ModelClient(srv.url, timeout=5).infer({})


def test_credentials_in_the_url_never_reach_a_message():
    with RawServer(answer(b"nope", "text/plain")) as srv:
        url = srv.url.replace("http://", "http://alice:s3cret@")
        with pytest.raises(ModelServerError) as info:
            ModelClient(url, timeout=5).infer({})
    assert "s3cret" not in str(info.value) and "alice" not in str(info.value)
    assert f"model server {srv.url.replace('http://', 'http://***@')}/infer answered" in str(info.value)


@pytest.mark.parametrize("points, why", [
    ([[1e308, 1.0], [1e308, 2.0]], "trajectory point 0 [1e+308, 1.0] is more than 1000 m from the car"),
    ([[0.0, 1.0], [0.0, -2000.0]], "trajectory point 1 [0.0, -2000.0] is more than 1000 m from the car"),
    ([[0.0, float("nan")], [0.0, 2.0]], "trajectory must be N >= 2 finite [x, y] points"),
])
def test_absurd_trajectories_are_refused_naming_the_server(points, why):
    from roadtest.agents.baselines.agent import E2EServerAgent

    with pytest.raises(ModelServerError) as info:
        E2EServerAgent._trajectory({"trajectory": points}, "http://127.0.0.1:8765")
    assert str(info.value).startswith("model server http://127.0.0.1:8765 ") and why in str(info.value)
