"""The simulator backends by name: one line per backend, imported only when a run asks for it."""

from __future__ import annotations

import importlib

from roadtest.sim.api import Simulator

__all__ = ["BACKENDS", "simulator_class", "simulator_for"]

BACKENDS = {
    "embedded": "roadtest.sim.embedded:EmbeddedSimulator",
    "carla": "roadtest.sim.carla:CarlaSimulator",
}


def simulator_class(backend: str) -> type[Simulator]:
    """A Simulator class by registry name ("embedded", "carla") or, for tests and plug-ins, "module:Class"."""
    from roadtest.errors import UserError

    spec = BACKENDS.get(backend, backend)
    if ":" not in spec:
        raise UserError(f"unknown backend {backend!r}; expected one of {sorted(BACKENDS)}")
    module, _, name = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise UserError(f"backend {backend!r} is not available ({e})") from e


def simulator_for(backend: str, options: dict | None = None) -> Simulator:
    """A Simulator instance for `backend` (see simulator_class), built with the backend's options."""
    return simulator_class(backend)(**(options or {}))
