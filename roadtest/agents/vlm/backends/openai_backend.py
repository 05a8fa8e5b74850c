"""Any OpenAI-compatible chat server (vLLM, SGLang, Ollama, LM Studio, hosted APIs) through the `openai` client.

Images go as base64 data URLs before the text of the last user message (the one form every server takes);
temperature 0 and an explicit max_tokens; structured output by `response_format` json_schema, or vLLM's
`structured_outputs` / older `guided_json` in the body, or json_object, or none. The client's own retries
are off (the agent retries with its stated backoff) and every call has a timeout.
"""

from __future__ import annotations

import base64
import os
import time
from typing import Any, Mapping, Sequence

from roadtest.agents.vlm.backends import Answer, BackendCallError
from roadtest.errors import DependencyMissing

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
        key = os.environ.get(str(c["api_key_env"] or ""), "") or "EMPTY"  # local servers take any key
        self.client = openai.OpenAI(base_url=c["base_url"], api_key=key, max_retries=0, timeout=float(config["timeout_s"]))
        self.model = c["model"] or ""

    def _model(self, timeout: float) -> str:
        if not self.model:
            try:
                models = self.client.with_options(timeout=timeout).models.list()
                self.model = next(iter(models)).id
            except StopIteration:
                raise BackendCallError(f"{self.c['base_url']}: the server lists no model; set openai.model") from None
            except self._openai.OpenAIError as e:
                raise self._error(e) from e
        return self.model

    def _error(self, e: Exception) -> BackendCallError:
        o = self._openai
        if isinstance(e, o.APITimeoutError):
            return BackendCallError(f"{self.c['base_url']}: timed out ({e})")
        if isinstance(e, o.APIConnectionError):
            return BackendCallError(f"{self.c['base_url']}: cannot connect ({e})")
        if isinstance(e, o.APIStatusError):
            retry = e.status_code >= 500 or e.status_code in (408, 409, 429)
            return BackendCallError(f"{self.c['base_url']}: HTTP {e.status_code}: {e.message}", retryable=retry)
        return BackendCallError(f"{self.c['base_url']}: {type(e).__name__}: {e}")

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
        try:
            resp = self.client.with_options(timeout=timeout).chat.completions.create(model=model, **kw)
        except self._openai.OpenAIError as e:
            raise self._error(e) from e
        if not resp.choices:
            raise BackendCallError(f"{self.c['base_url']}: the answer holds no choice")
        usage = resp.usage
        return Answer(text=resp.choices[0].message.content, tokens_in=getattr(usage, "prompt_tokens", None),
                      tokens_out=getattr(usage, "completion_tokens", None), latency_s=time.perf_counter() - t0,
                      model=getattr(resp, "model", None) or model)

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # noqa: BLE001 - closing a dead connection is not a failure
            pass
