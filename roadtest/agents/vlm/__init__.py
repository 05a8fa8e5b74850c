"""The VLM agent and its model backends (openai, transformers, builtin); see agent.py."""

from __future__ import annotations

__all__ = ["VLMAgent"]


def __getattr__(name: str):
    if name == "VLMAgent":
        from roadtest.agents.vlm.agent import VLMAgent

        return VLMAgent
    raise AttributeError(name)
