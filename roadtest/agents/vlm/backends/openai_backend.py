"""Any OpenAI-compatible chat server (vLLM, SGLang, Ollama, LM Studio, hosted APIs) through the `openai` client.

Images go as base64 data URLs before the text of the last user message (the one form every server takes);
temperature 0 and an explicit max_tokens; structured output by `response_format` json_schema, or vLLM's
`structured_outputs` / older `guided_json` in the body, or json_object, or none. The client's own retries
are off (the agent retries with its stated backoff) and every call has a whole-call deadline: the client's
timeouts bound each read, so the call runs in a worker thread and one still unfinished at the deadline is
abandoned (its client closed, a fresh one built) and counts as a timeout. An answer that is not a JSON chat
completion (random bytes, a text/plain body, no choices) is one retryable BackendCallError naming the server.
"""

from __future__ import annotations

import base64
import os
import threading
import time
from typing import Any, Mapping, Sequence

from roadtest.agents.vlm.backends import Answer, BackendCallError
from roadtest.errors import DependencyMissing
from roadtest.urls import redact_url

__all__ = ["OpenAIBackend", "encode_image", "data_url"]


def encode_image(image: Any, fmt: str = "jpeg", quality: int = 90) -> bytes:
    """JPEG or PNG bytes of an H x W x 3 RGB uint8 array (OpenCV, which roadtest already needs)."""
    import cv2
    import numpy as np

    bgr = cv2.cvtColor(np.asarray(image, dtype=np.uint8), cv2.COLOR_RGB2BGR)
    if fmt == "png":
        ok, buf = cv2.imencode(".png", bgr)
    else:
        ok, buf = cv2.imencode(".jpg", bgr, [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:
        raise ValueError("image encoding failed")
    return buf.tobytes()


def data_url(image: Any, fmt: str = "jpeg", quality: int = 90) -> str:
    mime = "png" if fmt == "png" else "jpeg"
    return f"data:image/{mime};base64," + base64.b64encode(encode_image(image, fmt, quality)).decode()


class OpenAIBackend:
    """The `openai` section of the agent config: base_url, model (None: the server's first), api_key_env,
    max_tokens, temperature, seed, structured."""

    name = "openai"
    is_vlm = True

    def __init__(self, config: Mapping[str, Any]):
        try:
            import openai
        except ImportError as e:
            raise DependencyMissing("openai", "vlm") from e
        self._openai = openai
        c = config["openai"]
        self.c = dict(c)
        self.image_fmt = config["image"]["format"]
        self.quality = int(config["image"]["quality"])
        self.key = os.environ.get(str(c["api_key_env"] or ""), "") or "EMPTY"  # local servers take any key
        self.shown = redact_url(str(c["base_url"]))  # what messages name: the server without its credentials
        self.timeout = float(config["timeout_s"])
        self.client = self._client()
        self.model = c["model"] or ""

    def _client(self) -> Any:
        return self._openai.OpenAI(base_url=self.c["base_url"], api_key=self.key, max_retries=0, timeout=self.timeout)

    def _within(self, timeout: float, call: Any, whole: float | None = None) -> Any:
        """`call(client)` finished within `timeout` s of wall clock (connect, send and receive together), or a
        retryable timeout; a late call's client is closed in the background and replaced."""
        box: dict[str, Any] = {}
        client = self.client

        def work() -> None:
            try:
                box["value"] = call(client)
            except BaseException as e:  # noqa: BLE001 - handed to the caller's thread as is
                box["error"] = e

        worker = threading.Thread(target=work, name="roadtest-vlm-call", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            self.client = self._client()
            threading.Thread(target=_close_quietly, args=(client,), daemon=True).start()
            raise BackendCallError(f"{self.shown}: timed out: no whole answer within {whole or timeout:g} s")
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _model(self, timeout: float) -> str:
        if not self.model:
            try:
                models = self._within(timeout, lambda cl: cl.with_options(timeout=timeout).models.list())
                self.model = next(iter(models)).id
            except StopIteration:
                raise BackendCallError(f"{self.shown}: the server lists no model; set openai.model") from None
            except self._openai.OpenAIError as e:
                raise self._error(e) from e
            except (ValueError, TypeError, AttributeError, KeyError) as e:
                raise self._not_completion(e, "model list") from e
        return self.model

    def _error(self, e: Exception) -> BackendCallError:
        o = self._openai
        if isinstance(e, o.APITimeoutError):
            return BackendCallError(f"{self.shown}: timed out ({e})")
        if isinstance(e, o.APIConnectionError):
            return BackendCallError(f"{self.shown}: cannot connect ({e})")
        if isinstance(e, o.APIStatusError):
            retry = e.status_code >= 500 or e.status_code in (408, 409, 429)
            return BackendCallError(f"{self.shown}: HTTP {e.status_code}: {e.message}", retryable=retry)
        return BackendCallError(f"{self.shown}: {type(e).__name__}: {e}")

    def _not_completion(self, what: Any, kind: str = "chat completion") -> BackendCallError:
        """The one message for an answer that is not a JSON `kind`: retryable, as a garbled answer may be."""
        if isinstance(what, BaseException):
            why = f"{type(what).__name__}: {str(what)[:120]}"
        else:
            why = f"{type(what).__name__} {str(what)[:80]!r}"
        return BackendCallError(f"{self.shown}: the answer is not a JSON {kind} ({why})")

    def request(self, messages: Sequence[Mapping[str, Any]], images: Sequence[Any], schema: Mapping[str, Any] | None,
                name: str = "answer") -> dict[str, Any]:
        """The keyword arguments of chat.completions.create (also what the benchmark times as encoding)."""
        msgs: list[dict[str, Any]] = [{"role": m["role"], "content": m["content"]} for m in messages]
        last = max(i for i, m in enumerate(msgs) if m["role"] == "user")
        parts: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": data_url(im, self.image_fmt, self.quality)}}
                                       for im in images]
        msgs[last] = {"role": "user", "content": parts + [{"type": "text", "text": msgs[last]["content"]}]}
        kw: dict[str, Any] = {"messages": msgs, "temperature": float(self.c["temperature"]),
                              "max_tokens": int(self.c["max_tokens"])}
        if self.c.get("seed") is not None:
            kw["seed"] = int(self.c["seed"])
        mode = self.c["structured"]
        if schema is not None and mode == "json_schema":
            kw["response_format"] = {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema), "strict": True}}
        elif schema is not None and mode == "structured_outputs":
            kw["extra_body"] = {"structured_outputs": {"json": dict(schema)}}
        elif schema is not None and mode == "guided_json":
            kw["extra_body"] = {"guided_json": dict(schema)}
        elif mode == "json_object":
            kw["response_format"] = {"type": "json_object"}
        return kw

    def complete(self, messages: Sequence[Mapping[str, Any]], images: Sequence[Any], schema: Mapping[str, Any] | None,
                 timeout: float) -> Answer:
        t0 = time.perf_counter()
        model = self._model(timeout)
        kw = self.request(messages, images, schema)
        left = max(timeout - (time.perf_counter() - t0), 0.001)
        try:
            resp = self._within(left, lambda cl: cl.with_options(timeout=left).chat.completions.create(model=model, **kw),
                                timeout)
        except self._openai.OpenAIError as e:
            raise self._error(e) from e
        except (ValueError, TypeError, AttributeError, KeyError) as e:  # UnicodeDecodeError, JSON errors included
            raise self._not_completion(e) from e
        choices = getattr(resp, "choices", None)
        if not isinstance(choices, list):
            raise self._not_completion(resp)
        if not choices:
            raise BackendCallError(f"{self.shown}: the answer holds no choice")
        text = getattr(getattr(choices[0], "message", None), "content", None)
        if text is not None and not isinstance(text, str):
            raise self._not_completion(choices[0])
        usage = getattr(resp, "usage", None)
        return Answer(text=text, tokens_in=_count(getattr(usage, "prompt_tokens", None)),
                      tokens_out=_count(getattr(usage, "completion_tokens", None)), latency_s=time.perf_counter() - t0,
                      model=getattr(resp, "model", None) or model)

    def close(self) -> None:
        _close_quietly(self.client)


def _close_quietly(client: Any) -> None:
    try:
        client.close()
    except Exception:  # noqa: BLE001 - closing a dead connection is not a failure
        pass


def _count(value: Any) -> int | None:
    """A token count as the server gave it, or None when it is not a whole number."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
