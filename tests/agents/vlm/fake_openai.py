"""A fake OpenAI-compatible chat server for tests (a stand-in, not a model): stdlib http.server on 127.0.0.1,
port 0, scripted per test by `reply(request_json) -> str | FakeReply`.

It records every request it receives so tests can check what roadtest sent.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

__all__ = ["FakeOpenAIServer", "FakeReply", "prompt_text", "stage_of"]


@dataclass
class FakeReply:
    """A scripted reply: content (None -> null), HTTP status, delay in seconds before answering."""

    content: str | None = ""
    status: int = 200
    delay: float = 0.0


def prompt_text(request: dict[str, Any]) -> str:
    """The text part of the last user message of a chat request."""
    content = [m for m in request["messages"] if m["role"] == "user"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in content if p.get("type") == "text")


def stage_of(request: dict[str, Any]) -> str:
    """Which of roadtest's prompts this is, by the schema sent (or the prompt's wording)."""
    schema = ((request.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    props = set((schema.get("properties") or {}))
    if "waypoints" in props and "signs" in props:
        return "end_to_end"
    if "waypoints" in props:
        return "planning"
    if "signs" in props:
        return "perception"
    text = prompt_text(request)
    return "planning" if "What the car sees now" in text else "end_to_end" if "waypoints" in text else "perception"


class FakeOpenAIServer:
    """Start with `with FakeOpenAIServer(reply) as srv:`; `srv.base_url` ends in /v1; `srv.requests` holds the bodies."""

    def __init__(self, reply: Callable[[dict[str, Any]], "str | FakeReply"], model: str = "fake-vlm"):
        self.reply, self.model = reply, model
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.handling_s: list[float] = []  # the server's own time per request, the scripted delay left out
        srv = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": srv.model, "object": "model", "created": 0,
                                                                  "owned_by": "test"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                t0 = time.perf_counter()
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                srv.requests.append(body)
                srv.headers.append({k.lower(): v for k, v in self.headers.items()})
                out = srv.reply(body)
                out = out if isinstance(out, FakeReply) else FakeReply(out)
                if out.delay:
                    time.sleep(out.delay)
                if out.status != 200:
                    self._send(out.status, {"error": {"message": f"scripted HTTP {out.status}", "type": "server_error"}})
                    srv.handling_s.append(time.perf_counter() - t0 - out.delay)
                    return
                self._send(200, {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": srv.model,
                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": out.content},
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
                srv.handling_s.append(time.perf_counter() - t0 - out.delay)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.disable_nagle_algorithm = True  # type: ignore[attr-defined]
        Handler.disable_nagle_algorithm = True  # type: ignore[attr-defined]
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "FakeOpenAIServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
