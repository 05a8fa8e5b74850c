"""The one run loop: observe, let the agent decide, step, until the run ends; every caller drives a Simulation
with it (the runner's episodes, agent-less runs of a bundle, the scripted run that derives a route).

Failures are raised as LoopError with the phase they happened in, so the caller classifies them (the agent's
fault, the simulator's, the wall clock's) without its own copy of the loop. The run loop's time cap is
SimSettings.time_cap: it ends a run that neither max_time nor the scenario's timeout limits and no stop trigger
ends.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from roadtest.sim.api import AgentOutput, Control, Termination, Trace, WorldState

if TYPE_CHECKING:
    from roadtest.sim.api import Simulation

__all__ = ["LoopError", "drive", "limited", "why", "Decide"]

# (sensor data, simulated time) -> the control (None: the ego's own controller drives) and what the agent said
Decide = Callable[[dict, float], "tuple[Control | None, AgentOutput | None]"]


class LoopError(Exception):
    """The loop stopped on a failure in `phase`: "deadline" (the wall clock), "observe", "agent" or "step";
    `cause` is the exception raised there (None for the deadline)."""

    def __init__(self, phase: str, cause: BaseException | None = None):
        super().__init__(f"{phase}: {cause}" if cause is not None else phase)
        self.phase, self.cause = phase, cause


def why(e: BaseException) -> str:
    """An exception in one line, with the file and line it was raised at."""
    tb = traceback.extract_tb(e.__traceback__)
    where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
    return f"{type(e).__name__}: {e}{where}"


def limited(sim: Simulation) -> bool:
    """Whether the settings (max_time) or the scenario (meta expect.timeout) limit the run's simulated time."""
    meta = getattr(sim, "meta", None) or {}
    return sim.settings.max_time is not None or (meta.get("expect") or {}).get("timeout") is not None


def drive(sim: Simulation, decide: Decide | None = None, specs: Sequence[Mapping[str, Any]] = (), *,
          on_sensors: Callable[[dict], None] | None = None, on_step: Callable[[WorldState], None] | None = None,
          deadline: float | None = None) -> Trace:
    """Step `sim` until its run ends and return its Trace; the caller closes it.

    Each tick: the sensors in `specs` are read (and handed to `on_sensors`), `decide` turns them into a control
    (without one the ego's own controller drives), the simulation steps, `on_step` sees the new state. `deadline`
    is a time.monotonic() limit. An agent or step failure ends the run (AGENT_ERROR, SIM_ERROR) before LoopError
    is raised; the wall-clock limit ends it as STOPPED."""
    specs = list(specs)
    cap = sim.settings.time_cap
    capped = not limited(sim)
    while not sim.done:
        if deadline is not None and time.monotonic() > deadline:
            sim.end(Termination.STOPPED, "wall-clock limit reached")
            raise LoopError("deadline")
        control = output = None
        data: dict = {}
        if specs:
            try:
                data = sim.observe(specs)
            except Exception as e:  # noqa: BLE001 - the caller says whose fault
                raise LoopError("observe", e) from e
            if on_sensors is not None:
                on_sensors(data)
        if decide is not None:
            t = sim.state.time if sim.state is not None else 0.0
            try:
                control, output = decide(data, t)
            except Exception as e:  # noqa: BLE001
                sim.end(Termination.AGENT_ERROR, why(e))
                raise LoopError("agent", e) from e
        try:
            state = sim.step(control, output)
        except Exception as e:  # noqa: BLE001
            sim.end(Termination.SIM_ERROR, why(e))
            raise LoopError("step", e) from e
        if on_step is not None:
            on_step(state)
        if capped and not sim.done and state.time >= cap - 1e-9:
            sim.end(Termination.TIMEOUT, f"no stop trigger fired within {cap:.0f} s")
    return sim.trace
