"""The model server on a shared machine: cross-origin pages, DNS rebinding, wrong content types, malformed and
oversized bodies and idle sockets are refused with a status code and one line, never a traceback, and never
reach the model (stand-in model; raw socket requests so every header is exactly what the test says)."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from e2e_standin_models import FixedCurveStandInModel
from roadtest.agents.baselines.client import ModelClient
from roadtest.agents.baselines.e2e_server import PROTOCOL, make_server

RESET = json.dumps({"protocol": PROTOCOL, "session": "intruder"}).encode()


@pytest.fixture
def server():
    model = FixedCurveStandInModel()
    srv = make_server(model, "127.0.0.1", 0, None, name="standin", body_seconds=0.5, idle_seconds=1.0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    srv.model = model
    srv.port = srv.server_address[1]
    yield srv
    srv.shutdown()
    srv.server_close()


def _raw(port, data, wait=5.0):
    """Send raw bytes, return (status, body dict, elapsed s) of the answer, read until the server closes."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(data)
        got = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            got += chunk
            if b"\r\n\r\n" in got:
                head, _, body = got.partition(b"\r\n\r\n")
                length = [int(v) for k, _, v in (ln.partition(b":") for ln in head.split(b"\r\n")[1:])
                          if k.strip().lower() == b"content-length"]
                if length and len(body) >= length[0]:
                    break
    head, _, body = got.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body), time.monotonic() - t0


def _post(port, body=RESET, path="/reset", host=None, extra="", ctype="application/json", length=None):
    head = (f"POST {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n"
            + (f"Content-Type: {ctype}\r\n" if ctype else "")
            + f"Content-Length: {len(body) if length is None else length}\r\n{extra}\r\n")
    return head.encode() + body


def test_a_cross_origin_page_cannot_take_over_the_session(server):
    ModelClient(f"http://127.0.0.1:{server.port}", 2).reset({"session": "the-run"})
    status, body, _ = _raw(server.port, _post(server.port, extra="Origin: http://evil.example\r\n"))
    assert status == 403 and body == {"error": "cross-origin request from 'http://evil.example' refused"}
    assert ModelClient(f"http://127.0.0.1:{server.port}", 2).health()["session"] == "the-run"
    assert len(server.model.resets) == 1


def test_a_page_on_the_same_machine_sends_text_plain_which_is_refused(server):
    # a browser's "simple" cross-site POST needs no preflight only as text/plain or a form
    status, body, _ = _raw(server.port, _post(server.port, ctype="text/plain"))
    assert status == 415 and body == {"error": "Content-Type 'text/plain': expected application/json"}
    assert server.model.resets == []


def test_a_dns_rebinding_request_names_another_host_and_is_refused(server):
    status, body, _ = _raw(server.port, f"GET /health HTTP/1.1\r\nHost: attacker.example:{server.port}\r\n\r\n".encode())
    assert status == 403
    assert body == {"error": f"Host 'attacker.example:{server.port}' is not this loopback server (a DNS-rebinding request?)"}
    status, _, _ = _raw(server.port, _post(server.port, host=f"rebind.attacker.example:{server.port}"))
    assert status == 403 and server.model.resets == []


def test_loopback_names_and_same_origin_are_served(server):
    for host in (f"localhost:{server.port}", f"[::1]:{server.port}", "127.0.0.1"):
        status, body, _ = _raw(server.port, f"GET /health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        assert status == 200 and body["protocol"] == PROTOCOL
    status, _, _ = _raw(server.port, _post(server.port, extra=f"Origin: http://127.0.0.1:{server.port}\r\nConnection: close\r\n"))
    assert status == 200


@pytest.mark.parametrize("body, length, status, error", [
    (b'{"protocol": ', None, 400, "body is not JSON: Expecting value: line 1 column 14 (char 13)"),
    (b"[1, 2]", None, 400, "body is a JSON list, expected an object"),
    (b'"text"', None, 400, "body is a JSON str, expected an object"),
    (b"\xff\xfe", None, 400, "body is not JSON: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
    (b"{}", "abc", 400, "Content-Length 'abc' is not a number of bytes"),
    (b"{}", "-5", 400, "Content-Length -5 is negative"),
    (b"{}", str(65 * 1024 * 1024), 413, "request of 68157440 bytes is over the 67108864-byte limit"),
])
def test_malformed_bodies_get_a_status_and_one_line(server, body, length, status, error):
    got, answer, took = _raw(server.port, _post(server.port, body, length=length))
    assert (got, answer) == (status, {"error": error})
    assert took < 5.0  # the 65 MB body is refused from its header, never read (the 413, not a 408, says so)
    assert server.model.resets == []


def test_a_content_length_larger_than_the_body_is_refused_within_the_read_bound(server):
    got, answer, took = _raw(server.port, _post(server.port, b"{}", length=100))
    assert got == 408 and answer == {"error": "body of 100 bytes not received within 0.5 s (2 came)"}
    assert took < 5.0  # bounded: without the read bound the handler waits forever


def test_a_post_without_content_length_is_411(server):
    req = f"POST /reset HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n\r\n"
    got, answer, _ = _raw(server.port, req.encode())
    assert got == 411 and answer == {"error": "a Content-Length header is required"}


def test_idle_connections_are_closed(server):
    socks = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(50)]
    try:
        t0 = time.monotonic()
        for s in socks:
            s.settimeout(5)
            assert s.recv(1) == b""  # closed by the server, not by this 5 s timeout
        assert time.monotonic() - t0 < 3.0
    finally:
        for s in socks:
            s.close()


def test_a_model_failure_is_500_with_one_line_and_no_traceback():
    class Broken(FixedCurveStandInModel):
        def reset(self, request):
            raise RuntimeError("weights missing\nsecond line")

    srv = make_server(Broken(), "127.0.0.1", 0, None)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        got, answer, _ = _raw(srv.server_address[1], _post(srv.server_address[1], extra="Connection: close\r\n"))
    finally:
        srv.shutdown()
        srv.server_close()
    assert got == 500 and answer == {"error": "RuntimeError: weights missing second line"}
