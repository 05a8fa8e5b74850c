"""Variant -> bundle folder OUT/<id>/{road.xodr, scenario.xosc, meta.json}, written atomically."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from roadtest.dsl.roads_build import build_layout
from roadtest.dsl.signal_plan import junction_heads, light_phases
from roadtest.dsl.roads_scene import compute_route, place_scene, resolve_places
from roadtest.errors import FieldError, Problem, ScenarioError, UserError
from roadtest.names import disk_name

__all__ = ["write_bundle", "build_bundle_parts", "build_problems"]


def build_bundle_parts(variant):
    """(layout, spots, scene, route, lights) of a variant: everything the three files are written from."""
    sc = variant.scenario
    layout = build_layout(sc)
    scene = place_scene(sc, layout)
    spots = resolve_places(sc, layout)
    route = compute_route(sc, layout, spots["hero"])
    by_id = {h.light.id: h.light for h in junction_heads(sc.road)}
    lights = [{**light, "phases_rotated": light_phases(by_id[light["id"]])} for light in scene["lights"]]
    return layout, spots, scene, route, lights


def build_problems(doc, variants) -> list[Problem]:
    """What building each variant's road and scene finds (the checks convert runs beyond the loader), located in doc."""
    from roadtest.dsl.loader import path_exists

    problems: list[Problem] = []
    for v in variants:
        try:
            build_bundle_parts(v)
        except FieldError as e:
            path, _ = path_exists(e.field, doc.data)
            prefix = "" if not v.sweep else "with " + ", ".join(f"{k}={val!r}" for k, val in v.sweep.items()) + ": "
            problems.append(doc.problem(path or (), prefix + e.message) if path is not None
                            else Problem(doc.file, 1, 1, e.field, prefix + e.message))
        except UserError as e:
            problems.append(Problem(doc.file, 1, 1, "", str(e)))
    return sorted(set(problems), key=lambda p: (p.line, p.col, p.field, p.message))


def write_bundle(variant, out_dir: Path) -> Path:
    """Write the bundle of one variant; an existing bundle of the same id is replaced only on success.

    What the build refuses is raised as a ScenarioError located in the variant's source file.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / disk_name(variant.id)  # a long id: cut and hashed; meta.json keeps the whole name
    try:
        layout, spots, scene, route, lights = build_bundle_parts(variant)
    except FieldError:
        from roadtest.dsl.loader import parse_file

        raise ScenarioError(build_problems(parse_file(variant.source), [variant])) from None
    from roadtest.dsl.emit_xodr import write_xodr  # scenariogeneration: only once there is a file to write
    from roadtest.dsl.emit_xosc import write_xosc
    from roadtest.dsl.meta import build_meta

    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".tmp", dir=out_dir))
    try:
        write_xodr(layout, variant.scenario.name, variant.scenario.country, tmp / "road.xodr")
        write_xosc(variant, layout, spots, lights, tmp / "scenario.xosc")
        meta = build_meta(variant, layout, spots, scene, route)
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        old = None
        if final.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".old", dir=out_dir))
            os.rename(final, old / "bundle")
        try:
            os.rename(tmp, final)
        except OSError:
            if old is not None:
                os.rename(old / "bundle", final)
            raise
        os.chmod(final, 0o755)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final
