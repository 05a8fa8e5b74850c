"""meta.json of a bundle: what a run and its metrics need that the .xosc and .xodr cannot carry.

Keys follow roadtest/bundle.py's docstring (SI units). Additions written here, beyond that list:
  environment.weather is the preset name; environment.precipitation is none|rain|snow.
  ego.start also has x, y, h (world pose, rad) and user_lane (the YAML lane number);
  ego.default_act names the .xosc Act that drives the ego when no agent does (skip it when one does);
  route.lanes entries use OpenDRIVE road ids as strings and lane ids; s_end < s_start when the
    lane runs against s.
  scene.signs[*] also has signal_id (the OpenDRIVE <signal id>) and direction (forward|backward);
    country_code is "<country>:<type>:<subtype>" as written in the .xodr.
  scene.stop_lines[*].lanes are OpenDRIVE lane ids.
  scene.crosswalks[*] also has width (m, along s).
  scene.lights[*] also has signal_id and offset (s into the cycle at t = 0); phases are as written
    in the YAML (the .xosc's TrafficSignalController starts at the offset).
  scene.actors[*] also has start {road, lane, s, x, y, h} (lane null on the roadside).
  rules[*] carry what scoring needs (roadtest.rules.in_meta): params (the SI values in force for the
    scenario's country: catalogue defaults, the country's values, then the scenario's own), priority
    and priority_class, monitor {formula, signals, in_force}, conflicts_with, context.
  governing: the rule the expected behaviour follows where rules in force conflict (lowest
    priority index among conflicting pairs), else null.
  map: {kind, junction_roads [road ids inside junctions], main_roads [[main s start, road id]]}.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from roadtest import __version__
from roadtest.dsl.emit_xosc import EGO_DEFAULT_ACT
from roadtest.dsl.roads_build import Layout
from roadtest.dsl.roads_scene import Spot

__all__ = ["build_meta", "rules_meta", "cached_catalogue"]


def _spot(spot: Spot) -> dict[str, Any]:
    return {"road": str(spot.road), "lane": spot.lane, "s": spot.s, "x": spot.x, "y": spot.y, "h": spot.h}


@lru_cache(maxsize=1)
def cached_catalogue() -> dict:
    """The rule catalogue, parsed once per process (parsing 28 files with positions takes ~2 s)."""
    from roadtest.rules.catalogue_model import load_catalogue

    return load_catalogue()


def rules_meta(sc) -> tuple[list[dict[str, Any]], str | None]:
    """Rules in force as scoring needs them (formula, SI params for the country, priority, conflicts, context;
    roadtest.rules.in_meta), and the governing rule where they conflict."""
    from roadtest.rules.evaluate import governing_rule
    from roadtest.rules.in_meta import RuleInForce

    catalogue = cached_catalogue()
    rules = {ref.id: RuleInForce.from_rule(catalogue[ref.id], sc.country, ref.params) for ref in sc.rules}
    governing, _ = governing_rule(list(rules), rules)
    return [r.to_meta() for r in rules.values()], governing


def build_meta(variant, layout: Layout, spots: dict[str, Spot], scene: dict, route: dict) -> dict[str, Any]:
    """The meta.json dictionary of one variant."""
    sc = variant.scenario
    env = sc.environment
    rules, governing = rules_meta(sc)
    ego = spots["hero"]
    scene = dict(scene)
    scene["actors"] = [{**a, "start": _spot(spots[a["id"]])} for a in scene["actors"]]
    return {
        "roadtest_version": __version__,
        "id": variant.id,
        "scenario": sc.name,
        "source": str(variant.source),
        "description": sc.description,
        "country": sc.country,
        "driving_side": sc.driving_side,
        "level": sc.level,
        "tags": list(sc.tags),
        "seed": variant.seed,
        "sweep": dict(variant.sweep),
        "environment": {
            "weather": env.weather, "cloudiness": env.cloudiness, "precipitation": env.precipitation,
            "precipitation_intensity": env.precipitation_intensity, "fog_visual_range": env.fog_visual_range,
            "wetness": env.wetness, "friction": env.friction, "time_of_day": env.time_of_day,
            "sun_elevation": env.sun_elevation,
        },
        "ego": {"entity": "hero", "model": sc.ego.model, "speed": sc.ego.speed, "default_act": EGO_DEFAULT_ACT,
                "start": {**_spot(ego), "user_lane": sc.ego.lane}},
        "route": route,
        "rules": rules,
        "governing": governing,
        "expect": {"reach_goal": sc.expect.reach_goal, "timeout": sc.expect.timeout, "rules_hold": sc.expect.rules_hold},
        "traffic": {"density": sc.traffic.density, "pedestrians": sc.traffic.pedestrians,
                    "crossing_share": sc.traffic.crossing_share, "seed": sc.traffic.seed},
        "scene": scene,
        "map": {"kind": layout.kind,
                "junction_roads": [str(p.id) for p in layout.pieces.values() if p.junction >= 0],
                "main_roads": [[s, str(r)] for s, r in layout.main_split]},
    }
