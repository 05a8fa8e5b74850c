"""roadtest's side of the end-to-end model protocol: JSON over HTTP with a whole-call deadline on every call.

A server that refuses the connection, closes it, answers an error, answers what is not a JSON object, or has not
finished its answer when the deadline (connect + send + receive, not per read) passes raises ModelServerError
naming the server, which ends the run as agent_error instead of hanging it.
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Mapping

from roadtest.agents.baselines.e2e_server import PROTOCOL, TOKEN_HEADER
from roadtest.errors import BackendError
from roadtest.urls import redact_url

__all__ = ["ModelServerError", "ModelClient", "MAX_ANSWER"]

MAX_ANSWER = 16 * 1024 * 1024  # bytes: an answer past this is refused (a trajectory and boxes are a few kB)


class ModelServerError(BackendError):
    """The model server failed a call (down, stalled, error answer, wrong protocol)."""


class _Sockets:
    """The sockets one call opened; `kill()` shuts them down so a blocked read returns at once."""

    def __init__(self) -> None:
        self.socks: list[socket.socket] = []
        self.killed = False
        self.lock = threading.Lock()

    def add(self, sock: socket.socket) -> None:
        with self.lock:
            self.socks.append(sock)
            if self.killed:
                _shutdown(sock)

    def kill(self) -> None:
        with self.lock:
            self.killed = True
            for s in self.socks:
                _shutdown(s)


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _opener(socks: _Sockets) -> urllib.request.OpenerDirector:
    """urllib's usual opener (proxies from the environment included) whose connections report their sockets."""

    class Conn(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            socks.add(self.sock)

    class TLSConn(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            socks.add(self.sock)

    class Handler(urllib.request.HTTPHandler):
        def http_open(self, req):  # type: ignore[no-untyped-def]
            return self.do_open(Conn, req)

    class TLSHandler(urllib.request.HTTPSHandler):
        def https_open(self, req):  # type: ignore[no-untyped-def]
            return self.do_open(TLSConn, req, context=self._context)

    return urllib.request.build_opener(Handler, TLSHandler)


class ModelClient:
    """Calls /health, /reset and /infer of one server; `timeout` (s) bounds each whole call, connect included."""

    def __init__(self, url: str, timeout: float = 60.0, token: str | None = None):
        self.url, self.basic_auth = _split_userinfo(url.rstrip("/"))  # user:password@ goes as Basic auth
        self.shown = redact_url(url.rstrip("/"))  # what messages and records name: no credentials
        self.timeout = float(timeout)
        self.token = token
        self.last_request_bytes = 0  # size of the last request body (the images dominate)

    def _call(self, method: str, path: str, body: Mapping[str, Any] | None = None,
              timeout: float | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps({"protocol": PROTOCOL, **body}).encode()
        self.last_request_bytes = len(data or b"")
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header(TOKEN_HEADER, self.token)
        if self.basic_auth:
            req.add_header("Authorization", "Basic " + self.basic_auth)
        limit = self.timeout if timeout is None else timeout
        where = f"model server {self.shown}{path}"
        late = f"{where} gave no answer within {limit:g} s"
        socks = _Sockets()
        watchdog = threading.Timer(limit, socks.kill)
        watchdog.daemon = True
        start = time.monotonic()
        watchdog.start()
        try:
            with _opener(socks).open(req, timeout=limit) as resp:
                raw = resp.read(MAX_ANSWER + 1)
                if len(raw) <= MAX_ANSWER and resp.length:  # fewer bytes than its Content-Length: hung up
                    raise http.client.IncompleteRead(raw, resp.length)
        except urllib.error.HTTPError as e:
            try:
                msg = json.loads(e.read(64 * 1024) or b"{}").get("error") or e.reason
            except (ValueError, OSError, AttributeError, http.client.HTTPException):
                msg = e.reason
            if socks.killed:
                raise ModelServerError(late) from None
            raise ModelServerError(f"{where} answered {e.code}: {_one_line(msg)}") from None
        except (socket.timeout, TimeoutError):
            raise ModelServerError(late) from None
        except urllib.error.URLError as e:
            reason = e.reason
            if socks.killed or isinstance(reason, (socket.timeout, TimeoutError)):
                raise ModelServerError(late) from None
            raise ModelServerError(f"{where} unreachable: {reason}") from None
        except (ConnectionError, OSError, http.client.HTTPException) as e:  # reset or closed mid-answer
            if socks.killed:
                raise ModelServerError(late) from None
            raise ModelServerError(f"{where} dropped the connection after "
                                   f"{time.monotonic() - start:.1f} s: {type(e).__name__}: {e}") from None
        finally:
            watchdog.cancel()
        if socks.killed:  # the watchdog fired while the last bytes came in: the call was late all the same
            raise ModelServerError(late)
        if len(raw) > MAX_ANSWER:
            raise ModelServerError(f"{where} answered more than {MAX_ANSWER} bytes")
        try:
            answer = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise ModelServerError(f"{where} answered something that is not JSON: {raw[:80]!r}") from None
        if not isinstance(answer, dict):
            raise ModelServerError(f"{where} answered {type(answer).__name__}, expected an object")
        if answer.get("protocol", PROTOCOL) != PROTOCOL:
            raise ModelServerError(f"model server {self.shown} speaks {answer.get('protocol')!r}, roadtest {PROTOCOL!r}")
        return answer

    def health(self, timeout: float | None = None) -> dict[str, Any]:
        return self._call("GET", "/health", timeout=timeout)

    def reset(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._call("POST", "/reset", body)

    def infer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._call("POST", "/infer", body)


def _split_userinfo(url: str) -> tuple[str, str | None]:
    """The URL without user:password@, and those credentials as a Basic-auth token (None when there are none)."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    cred = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}".encode()
    return urllib.parse.urlunsplit(parts._replace(netloc=host)), base64.b64encode(cred).decode("ascii")


def _one_line(msg: Any) -> str:
    text = " ".join(str(msg).split())
    return text if len(text) <= 300 else text[:297] + "..."
