"""scenario_runner controller module for the ego: drives it with roadtest's agent, tick-synchronously.

scenario_runner loads this file by path (a ControllerAction Property `module`), derives the class name from the
file name (roadtest_ego_control -> RoadtestEgoControl) and calls run_step() every tree tick from
UpdateAllActorControls. The simulation posts the agent's control for the coming tick into MAILBOXES[mailbox]
(Property `mailbox`, one per run) before ticking the tree; a tick with no posted control (no agent, or the
caller stepping with None) leaves the ego to scenario_runner's default vehicle controller, so the storyboard's
own ego actions still work. A module-level mailbox is the one channel: scenario_runner builds the controller
itself, from (actor, args) alone.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["RoadtestEgoControl", "MAILBOXES", "post"]

CANONICAL = "roadtest.sim.carla.roadtest_ego_control"
if __name__ == CANONICAL:
    MAILBOXES: dict[str, list[Any]] = {}

    def post(mailbox: str, control: Any) -> None:
        """Hand the ego's next carla.VehicleControl (None: the default controller drives) to the controller."""
        MAILBOXES.setdefault(mailbox, [None])[0] = control
else:  # scenario_runner imports this file by path, as a top-level module: share the package module's mailboxes
    from roadtest.sim.carla.roadtest_ego_control import MAILBOXES, post  # noqa: F401


class RoadtestEgoControl:
    """BasicControl's interface (duck-typed, so this file imports nothing of scenario_runner at load)."""

    def __init__(self, actor: Any, args: dict[str, Any] | None = None):
        args = args or {}
        self._actor = actor
        self.mailbox = str(args.get("mailbox", ""))
        MAILBOXES.setdefault(self.mailbox, [None])
        self._fallback = None
        self.applied: Any = None  # the control applied on the last run_step (for tests and the trace)
        self._init_pending = False  # an Init SpeedAction not yet given to the ego

    def _default(self):
        if self._fallback is None:
            npc = importlib.import_module("srunner.scenariomanager.actorcontrols.npc_vehicle_control")
            self._fallback = npc.NpcVehicleControl(self._actor)
        return self._fallback

    def update_target_speed(self, speed: float) -> None:
        self._default().update_target_speed(speed)

    def update_waypoints(self, waypoints: Any, times: Any = None, start_time: Any = None) -> None:
        self._default().update_waypoints(waypoints, times)

    def update_offset(self, offset: float, start_time: Any = None) -> None:
        self._default().update_offset(offset)

    def set_init_speed(self) -> None:
        self._default().set_init_speed()
        self._init_pending = True

    def check_reached_waypoint_goal(self) -> bool:
        return self._default().check_reached_waypoint_goal() if self._fallback is not None else False

    def reset(self) -> None:
        if self._fallback is not None:
            self._fallback.reset()

    def run_step(self) -> None:
        control = MAILBOXES.get(self.mailbox, [None])[0]
        if control is None:
            self._default().run_step()
            self.applied = None
            return
        if self._init_pending:  # the storyboard's initial speed, as the default controller would set it
            forward = self._actor.get_transform().get_forward_vector()
            speed = float(getattr(self._default(), "_target_speed", 0.0))
            self._actor.set_target_velocity(forward * speed)
            self._init_pending = False
        self._actor.apply_control(control)
        self.applied = control
