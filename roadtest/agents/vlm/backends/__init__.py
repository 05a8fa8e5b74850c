"""Model backends: one small protocol, `complete(messages, images, schema, timeout) -> Answer`, one module each.

`messages` are chat messages [{"role", "content": str}]; `images` are H x W x 3 RGB uint8 arrays that go with
the last user message, before its text; `schema` is the JSON schema the answer should follow (a backend uses
it for structured output where it can; the agent validates every answer anyway).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

from roadtest.errors import RoadtestError

__all__ = ["Answer", "Backend", "BackendCallError", "make_backend", "BACKEND_MODULES"]

BACKEND_MODULES = {"openai": "roadtest.agents.vlm.backends.openai_backend:OpenAIBackend",
                   "transformers": "roadtest.agents.vlm.backends.transformers_backend:TransformersBackend",
                   "builtin": "roadtest.agents.vlm.backends.builtin:BuiltinBackend"}


@dataclass(frozen=True)
class Answer:
    """A model's reply: its text and what it cost."""

    text: str | None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float = 0.0  # wall-clock seconds of the call
    model: str | None = None


class BackendCallError(RoadtestError):
    """A model call that failed (server error, timeout, refused connection); `retryable` says whether to try again."""

    def __init__(self, message: str, retryable: bool = True):
        super().__init__(message)
        self.retryable = retryable


class Backend(Protocol):
    name: str  # "openai", "transformers", "builtin"
    model: str  # what answered, for the records
    is_vlm: bool  # False for the builtin baseline, which is labelled "not a VLM" wherever it appears

    def complete(self, messages: Sequence[Mapping[str, Any]], images: Sequence[Any], schema: Mapping[str, Any] | None,
                 timeout: float) -> Answer:
        ...

    def close(self) -> None:
        ...


def make_backend(config: Mapping[str, Any]) -> Backend:
    """The backend the agent config names, built from its own section of the config."""
    module, _, cls = BACKEND_MODULES[config["backend"]].partition(":")
    return getattr(importlib.import_module(module), cls)(config)
