"""Warnings about a scenario's rules that `validate` can give before anything runs.

Two mistakes make a rule scenario useless while every field is valid:
- a listed rule whose context (Monitor.context(), when it is in force) the scene can never create,
  e.g. a school-zone sign without a school_zone section: every run gets not_applicable;
- a listed rule that the starting state already violates, e.g. the ego starting at 60 km/h into
  fog that limits it to 30 km/h: no agent can pass it.
The first is judged from the scene (what can make each context signal true at best); the second by
running the real monitors on the one-tick trace of the starting state.
"""

from __future__ import annotations

from typing import Any, Callable

from roadtest.dsl.model import ACTOR_DIMENSIONS
from roadtest.kinds import MOTOR_VEHICLES, scenario_kinds
from roadtest.errors import Problem

__all__ = ["rule_warnings", "never_in_force", "fails_at_start"]

_JUNCTIONS = frozenset({"intersection", "t_junction", "roundabout"})


def _signs(sc, *ids: str) -> bool:
    return any(s.id in ids for s in sc.road.signs)


def _section(kind: str) -> Callable[[Any], bool]:
    return lambda sc: any(z.kind == kind for z in sc.road.sections)


def _actors(kinds: frozenset[str] | set[str]) -> Callable[[Any], bool]:
    return lambda sc: any(a.kind in kinds for a in sc.actors)


_VEHICLES = scenario_kinds(MOTOR_VEHICLES)  # a broken-down car is a lead

def _officer(state: str) -> Callable[[Any], bool]:
    return lambda sc: any(a.kind == "police_officer" and any(p.state == state for p in a.signal) for a in sc.actors)


def _own_light(sc: Any) -> bool:
    """A head faces the ego's approach: one of road.traffic_lights without an arm, or the signal plan's."""
    return sc.road.signal_plan is not None or any(t.arm is None for t in sc.road.traffic_lights)


# context signal -> (can the scene make it true, what the scene needs for that)
SCENE_CAN: dict[str, tuple[Callable[[Any], bool], str]] = {
    "in_school_zone": (_section("school_zone"), "a school_zone section in road.sections"),
    "in_work_zone": (_section("work_zone"), "a work_zone section in road.sections"),
    "in_tunnel": (_section("tunnel"), "a tunnel section in road.sections"),
    "night": (lambda sc: sc.environment.sun_elevation < 0.0, "environment.time at night (sun below the horizon)"),
    "lane_change": (lambda sc: sc.road.kind == "highway_merge" or max(sc.road.lanes.forward, sc.road.lanes.backward) >= 2,
                    "a merge (road.kind highway_merge) or two lanes in one direction"),
    "light_ahead": (lambda sc: _own_light(sc), "a traffic light in road.traffic_lights or a road.signal_plan"),
    "light_yellow": (lambda sc: sc.road.signal_plan is not None or any(
        p.state == "yellow" for t in sc.road.traffic_lights if t.arm is None for p in t.phases),
                     "a traffic light with a yellow phase"),
    "light_red": (lambda sc: _own_light(sc), "a traffic light in road.traffic_lights or a road.signal_plan"),
    "light_crossed": (lambda sc: _own_light(sc), "a traffic light in road.traffic_lights or a road.signal_plan"),
    "stop_sign_ahead": (lambda sc: _signs(sc, "stop"), "a stop sign in road.signs"),
    "stop_crossed": (lambda sc: _signs(sc, "stop"), "a stop sign in road.signs"),
    "no_entry_ahead": (lambda sc: _signs(sc, "no_entry"), "a no_entry sign in road.signs"),
    "entered_no_entry": (lambda sc: _signs(sc, "no_entry"), "a no_entry sign in road.signs"),
    "officer_go": (_officer("go"), "a police_officer actor whose signal has a go phase"),
    "officer_stop": (_officer("stop"), "a police_officer actor whose signal has a stop phase"),
    "ev_behind": (lambda sc: any(a.kind == "emergency" and a.siren_on for a in sc.actors),
                  "an emergency actor with its siren on"),
    "ped_on_crosswalk": (lambda sc: bool(sc.road.crosswalks) and (_actors({"pedestrian"})(sc) or sc.traffic.pedestrians > 0),
                         "a crosswalk and a pedestrian (actor or traffic.pedestrians)"),
    "vru_alongside": (lambda sc: _actors({"pedestrian", "bicycle"})(sc) or sc.traffic.pedestrians > 0,
                      "a pedestrian or cyclist (actor or traffic.pedestrians)"),
    "has_lead": (lambda sc: _actors(_VEHICLES)(sc) or sc.traffic.density > 0, "another vehicle (actor or traffic.density)"),
    "junction_entered": (lambda sc: sc.road.kind in _JUNCTIONS or bool(sc.road.stop_lines) or _signs(sc, "yield", "stop"),
                         "a junction, a stop line or a give-way sign"),
}


def never_in_force(sc, rule, params: dict[str, float]) -> str | None:
    """Why the scene can never put a rule in force, or None when it can (or when that cannot be judged).

    The rule's context is evaluated on one tick at its best case: each ±1 signal true where the scene
    can make it so, visibility as the scene sets it, every other value left undecided (+1).
    """
    from roadtest.rules.monitor import identifiers, robustness
    from roadtest.rules.signals import VOCABULARY, Signals

    ctx = rule.monitor.context()
    if ctx is None:
        return None
    used = sorted(identifiers(ctx) & set(VOCABULARY))
    values, missing = {}, []
    for name in used:
        if name == "visibility":
            values[name] = [float(sc.environment.fog_visual_range)]
        elif name in SCENE_CAN:
            ok = SCENE_CAN[name][0](sc)
            values[name] = [1.0 if ok else -1.0]
            if not ok:
                missing.append(SCENE_CAN[name][1])
        else:
            values[name] = [1.0]
    _, overall = robustness(f"always({ctx})", params, Signals(time=[0.0], tick=0.05, values=values))
    if overall > 0:
        return None
    needs = "; ".join(dict.fromkeys(missing)) or ", ".join(
        f"{n} {'(the scene has ' + format(values[n][0], 'g') + ' m)' if n == 'visibility' else ''}".strip() for n in used)
    return f"never in force in this scene (in force when {ctx}; that needs {needs}): every run gets not_applicable"


def _start_trace(variant):
    """One-tick trace of the starting state (positions, speeds, weather) and the bundle's meta."""
    from roadtest.dsl.bundle_writer import build_bundle_parts
    from roadtest.dsl.meta import build_meta
    from roadtest.sim.api import ActorState, Environment, LanePos, Trace, WorldState

    sc = variant.scenario
    layout, spots, scene, route, _ = build_bundle_parts(variant)
    meta = build_meta(variant, layout, spots, scene, route)

    def state(aid: str, role: str, kind: str, speed: float) -> ActorState:
        sp = spots[aid]
        length, width, height = ACTOR_DIMENSIONS.get("ego" if role == "ego" else kind, (4.5, 1.8, 1.5))
        return ActorState(id=aid, role=role, kind="car" if role == "ego" else kind, x=sp.x, y=sp.y, z=0.0, h=sp.h,
                          speed=speed, length=length, width=width, height=height,
                          lane=LanePos(str(sp.road), sp.lane, sp.s, sp.t) if sp.lane is not None else None)

    actors = [state("hero", "ego", "car", sc.ego.speed)] + [state(a.id, "scenario", a.kind, a.speed) for a in sc.actors]
    env = meta["environment"]
    world = WorldState(time=0.0, frame=0, actors=tuple(actors),
                       environment=Environment(fog_visual_range=env["fog_visual_range"], sun_elevation=env["sun_elevation"]))
    return Trace(states=[world], tick=0.05), meta


def fails_at_start(variant) -> dict[str, str]:
    """Rule id -> why the starting state already violates it (no agent can pass the scenario)."""
    from roadtest.dsl.meta import cached_catalogue
    from roadtest.rules.evaluate import evaluate_rules
    from roadtest.rules.signals import NONE, VOCABULARY, extract_signals

    trace, meta = _start_trace(variant)
    sig = extract_signals(trace, meta)
    cat = cached_catalogue()
    out = {}
    for r in evaluate_rules(trace, meta, cat, sig):
        if r.verdict != "violated":
            continue
        shown = []
        for name in cat[r.id].monitor.signals:
            x, unit = sig[name][0], VOCABULARY[name][0]
            if unit == "±1" or x >= NONE:
                continue
            shown.append(f"{name} {x * 3.6:.0f} km/h" if unit == "m/s" else f"{name} {x:g} {unit}")
        limits = ", ".join(f"{k} {v * 3.6:.0f} km/h" if cat[r.id].params.get(k) and cat[r.id].params[k].unit in
                           ("km/h", "mph") else f"{k} {v:g}" for k, v in r.params.items())
        out[r.id] = (f"violated at t = 0 by the starting state ({', '.join(shown)}; {limits}): "
                     "no agent can pass this scenario")
    return out


def rule_warnings(doc, variants) -> list[Problem]:
    """Warnings at `rules.<i>` of a scenario file, for every variant (sweep values named when there are several)."""
    from roadtest.dsl.meta import cached_catalogue

    cat = cached_catalogue()
    found: list[Problem] = []
    for v in variants:
        sc = v.scenario
        tag = (" with " + ", ".join(f"{k}={val!r}" for k, val in v.sweep.items())) if v.sweep else ""
        try:
            at_start = fails_at_start(v)
        except Exception:  # noqa: BLE001 - what the build refuses is reported as a problem elsewhere
            at_start = {}
        for i, ref in enumerate(sc.rules):
            rule = cat.get(ref.id)
            if rule is None:
                continue
            why = never_in_force(sc, rule, rule.params_for(sc.country, ref.params))
            for msg in filter(None, (why, at_start.get(ref.id))):
                line, col = doc.where(("rules", i))
                found.append(Problem(doc.file, line, col, f"rules.{i}", f"warning: {ref.id}{tag}: {msg}"))
    return sorted(set(found), key=lambda p: (p.line, p.col, p.message))
