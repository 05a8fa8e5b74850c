"""Storyboard element tree and its state machine: standby, running, complete; start, end, stop, skip."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["STANDBY", "RUNNING", "COMPLETE", "TRANSITIONS", "Element", "build_tree"]

STANDBY, RUNNING, COMPLETE = "standbyState", "runningState", "completeState"
TRANSITIONS = ("startTransition", "endTransition", "stopTransition", "skipTransition")


@dataclass(eq=False)
class Element:
    """One storyboard element (story, act, maneuverGroup, maneuver, event, action) and its runtime state."""

    kind: str
    name: str
    xml: Any
    parent: "Element | None" = None
    children: list["Element"] = field(default_factory=list)
    state: str = STANDBY
    max_exec: int = 1
    exec_count: int = 0
    priority: str = "parallel"  # events: overwrite (override in 1.2+), skip, parallel
    start_trigger: Any = None  # conditions.Trigger or None
    stop_trigger: Any = None
    transitions: dict[str, float] = field(default_factory=dict)  # transition -> time it last happened
    runtime: list[Any] = field(default_factory=list)  # actions: one runtime action per actor

    def path(self) -> str:
        parts, e = [], self
        while e is not None:
            parts.append(e.name)
            e = e.parent
        return "::".join(reversed(parts))

    def _mark(self, transition: str, time: float) -> None:
        self.transitions[transition] = time

    def start(self, time: float) -> None:
        """standby -> running; children that have no trigger of their own start with it."""
        if self.state != STANDBY:
            return
        self.state = RUNNING
        self.exec_count += 1
        self._mark("startTransition", time)
        if self.kind in ("story", "act", "maneuverGroup", "maneuver"):
            for c in self.children:
                c.state, c.exec_count = STANDBY, c.exec_count if c.kind == "event" else 0
                if c.kind in ("maneuverGroup", "maneuver", "act") and (c.kind != "act" or c.start_trigger is None):
                    c.start(time)

    def end(self, time: float, on_done: Callable[["Element"], None] | None = None) -> None:
        """running -> complete (or back to standby while executions remain); parents end when all children have."""
        if self.state != RUNNING:
            return
        self._mark("endTransition", time)
        if self.kind in ("event", "maneuverGroup") and self.exec_count < self.max_exec:
            self.state = STANDBY
            if self.kind == "maneuverGroup":
                self.start(time)  # a maneuver group runs its maneuvers again right away
            return
        self.state = COMPLETE
        if on_done:
            on_done(self)
        p = self.parent
        if p is not None and p.state == RUNNING and all(c.state == COMPLETE for c in p.children):
            p.end(time, on_done)

    def stop(self, time: float, on_done: Callable[["Element"], None] | None = None) -> None:
        """Any state -> complete, with every running descendant stopped (stopTrigger, overwrite)."""
        for c in self.children:
            c.stop(time, on_done)
        if self.state == COMPLETE:
            return
        was_running = self.state == RUNNING
        self.state = COMPLETE
        self._mark("stopTransition", time)
        if was_running and on_done:
            on_done(self)

    def skip(self, time: float) -> None:
        """An event whose priority is skip found a sibling running: it stays in standby."""
        self._mark("skipTransition", time)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


def build_tree(storyboard_xml: Any, make_trigger: Callable[[Any], Any], int_attr: Callable[[Any, str, int], int]) -> list[Element]:
    """Stories of a <Storyboard> as Element trees; triggers built by `make_trigger`."""
    stories = []
    for sx in storyboard_xml.findall("Story"):
        story = Element("story", sx.get("name", ""), sx)
        for ax in sx.findall("Act"):
            act = Element("act", ax.get("name", ""), ax, story)
            st = ax.find("StartTrigger")
            act.start_trigger = make_trigger(st) if st is not None and len(st) else None
            sp = ax.find("StopTrigger")
            act.stop_trigger = make_trigger(sp) if sp is not None and len(sp) else None
            story.children.append(act)
            for gx in ax.findall("ManeuverGroup"):
                grp = Element("maneuverGroup", gx.get("name", ""), gx, act, max_exec=int_attr(gx, "maximumExecutionCount", 1))
                act.children.append(grp)
                for mx in gx.findall("Maneuver"):
                    man = Element("maneuver", mx.get("name", ""), mx, grp)
                    grp.children.append(man)
                    for ex in mx.findall("Event"):
                        ev = Element("event", ex.get("name", ""), ex, man, max_exec=int_attr(ex, "maximumExecutionCount", 1),
                                     priority=ex.get("priority", "parallel"))
                        tx = ex.find("StartTrigger")
                        ev.start_trigger = make_trigger(tx) if tx is not None and len(tx) else None
                        man.children.append(ev)
                        for acx in ex.findall("Action"):
                            ev.children.append(Element("action", acx.get("name", ""), acx, ev))
        stories.append(story)
    return stories
