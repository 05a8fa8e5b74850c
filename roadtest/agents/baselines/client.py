"""roadtest's side of the end-to-end model protocol: JSON over HTTP with a timeout on every call.

A server that refuses the connection, closes it, answers an error or stays silent past the timeout raises
ModelServerError with the server's own message, which ends the run as agent_error instead of hanging it.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Mapping

from roadtest.agents.baselines.e2e_server import PROTOCOL, TOKEN_HEADER
from roadtest.errors import BackendError

__all__ = ["ModelServerError", "ModelClient"]


class ModelServerError(BackendError):
    """The model server failed a call (down, stalled, error answer, wrong protocol)."""


class ModelClient:
    """Calls /health, /reset and /infer of one server; `timeout` (s) bounds each call, connect included."""

    def __init__(self, url: str, timeout: float = 60.0, token: str | None = None):
        self.url = url.rstrip("/")
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
        limit = self.timeout if timeout is None else timeout
        start = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=limit) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            try:
                msg = json.loads(e.read() or b"{}").get("error") or e.reason
            except (ValueError, OSError):
                msg = e.reason
            raise ModelServerError(f"model server {self.url}{path} answered {e.code}: {msg}") from None
        except (socket.timeout, TimeoutError):
            raise ModelServerError(f"model server {self.url}{path} gave no answer within {limit:g} s") from None
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise ModelServerError(f"model server {self.url}{path} gave no answer within {limit:g} s") from None
            raise ModelServerError(f"model server {self.url}{path} unreachable: {reason}") from None
        except (ConnectionError, OSError) as e:  # reset or closed mid-answer: the server died
            raise ModelServerError(f"model server {self.url}{path} dropped the connection after "
                                   f"{time.monotonic() - start:.1f} s: {type(e).__name__}: {e}") from None
        try:
            answer = json.loads(raw)
        except ValueError:
            raise ModelServerError(f"model server {self.url}{path} answered something that is not JSON: "
                                   f"{raw[:80]!r}") from None
        if not isinstance(answer, dict):
            raise ModelServerError(f"model server {self.url}{path} answered {type(answer).__name__}, expected an object")
        if answer.get("protocol", PROTOCOL) != PROTOCOL:
            raise ModelServerError(f"model server {self.url} speaks {answer.get('protocol')!r}, roadtest {PROTOCOL!r}")
        return answer

    def health(self, timeout: float | None = None) -> dict[str, Any]:
        return self._call("GET", "/health", timeout=timeout)

    def reset(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._call("POST", "/reset", body)

    def infer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._call("POST", "/infer", body)
