"""An OpenSCENARIO file as a suite: a logical scenario (ParameterValueDistribution) is one variant per
concrete scenario, each written as a bundle whose scenario.xosc is the concrete file with the variant's
parameter values declared, so it runs (here or in another player) without the distribution."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from roadtest.errors import ScenarioError, UserError

__all__ = ["XoscVariant", "xosc_kind", "expand_xosc", "convert_xosc"]

_PATH_ATTRS = (("Directory", "path"), ("LogicFile", "filepath"), ("SceneGraphFile", "filepath"), ("File", "filepath"))


@dataclass(frozen=True)
class XoscVariant:
    """One concrete scenario of a distribution: its id, the scenario file and the parameter values it assigns."""

    id: str
    source: Path  # the distribution file
    scenario: Path  # the ScenarioFile it names
    params: dict[str, str] = field(default_factory=dict)
    index: int = 0

    def write(self, out: Path) -> Path:
        """OUT/<id>/{scenario.xosc, road.xodr (a copy of its map), meta.json}; returns the folder."""
        from roadtest.sim.xosc.parser import parse_xml

        root = parse_xml(self.scenario)
        decls = root.find("ParameterDeclarations")
        found = {d.get("name"): d for d in decls.findall("ParameterDeclaration")} if decls is not None else {}
        unknown = sorted(set(self.params) - set(found))
        if unknown:
            raise UserError(f"{self.source}: parameter(s) {', '.join(unknown)} not declared in {self.scenario} "
                            f"(declared: {', '.join(sorted(found)) or 'none'})")
        for name, value in self.params.items():
            found[name].set("value", str(value))
        folder = Path(out) / self.id
        folder.mkdir(parents=True, exist_ok=True)
        base = self.scenario.parent
        for tag, attr in _PATH_ATTRS:  # the concrete file moves: keep what it refers to where it is
            for el in root.iter(tag):
                v = el.get(attr)
                if not v or "$" in v or Path(v).is_absolute():
                    continue
                if tag == "LogicFile" and (base / v).is_file():
                    shutil.copyfile(base / v, folder / "road.xodr")
                    el.set(attr, "road.xodr")
                else:
                    el.set(attr, str((base / v).resolve()))
        root.getroottree().write(str(folder / "scenario.xosc"), xml_declaration=True, encoding="utf-8")
        meta = {"id": self.id, "scenario": self.scenario.stem, "source": str(self.source),
                "params": dict(self.params), "distribution": {"file": str(self.source), "index": self.index}}
        (folder / "meta.json").write_text(json.dumps(meta, indent=1))
        return folder


def xosc_kind(path: Path) -> str:
    """"scenario", "distribution" or "catalog" (UserError for anything else)."""
    from roadtest.sim.xosc.parser import parse_xml

    root = parse_xml(Path(path))
    if root.tag != "OpenSCENARIO":
        raise UserError(f"{path}: root element is <{root.tag}>, expected <OpenSCENARIO>")
    if root.find("ParameterValueDistribution") is not None:
        return "distribution"
    if root.find("Catalog") is not None:
        return "catalog"
    return "scenario"


def expand_xosc(path: Path) -> list[XoscVariant] | None:
    """The variants of a distribution file; None for a plain scenario; UserError for a catalog."""
    from roadtest.sim.xosc.distribution import expand_distribution

    kind = xosc_kind(path)
    if kind == "catalog":
        from roadtest.sim.xosc.parser import parse_xml

        cat = parse_xml(Path(path)).find("Catalog")
        raise UserError(f"{path}: a catalog ({cat.get('name') or 'unnamed'}, {len(cat)} entries), not a scenario: "
                        "run a scenario that refers to it through CatalogLocations")
    if kind == "scenario":
        return None
    runs = expand_distribution(path)
    missing = sorted({str(t) for t, _ in runs if not Path(t).is_file()})
    if missing:
        raise UserError(f"{path}: ScenarioFile {missing[0]} does not exist (the concrete scenario the distribution runs)")
    width = len(str(len(runs)))
    stem = Path(path).stem
    return [XoscVariant(f"{stem}-{i + 1:0{width}d}", Path(path).resolve(), Path(t), dict(p), i)
            for i, (t, p) in enumerate(runs)]


def convert_xosc(target: Path, out: Path) -> int:
    """`roadtest convert DIST.xosc`: one bundle per concrete scenario; 2 when the file is refused."""
    if Path(out).exists() and not Path(out).is_dir():
        raise UserError(f"-o {out}: is a file, expected a folder for the bundles")
    try:
        variants = expand_xosc(Path(target))
        if variants is None:
            raise UserError(f"{target}: a concrete scenario: it runs as it is (`roadtest run {target}`); "
                            "convert writes bundles for YAML scenarios and ParameterValueDistribution files")
        for v in variants:
            v.write(Path(out))
    except ScenarioError as e:
        for p in e.problems:
            print(str(p), file=sys.stderr)
        return 2
    print(f"converted {len(variants)} variant(s) from {target} into {out}")
    return 0

