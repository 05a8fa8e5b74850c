"""Catalogs: find entries by catalog folder and name, apply ParameterAssignments, return a resolved copy."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from roadtest.errors import UserError
from roadtest.sim.xosc.params import ParamScope, resolve_value

__all__ = ["CatalogSet"]


class CatalogSet:
    """The catalogs a scenario's CatalogLocations name; files are read once, on first use."""

    def __init__(self, locations: Any, base: Path):
        self.dirs: dict[str, Path] = {}
        if locations is not None:
            for loc in locations:
                if not isinstance(loc.tag, str):
                    continue
                d = loc.find("Directory")
                if d is not None and d.get("path"):
                    self.dirs[loc.tag] = (base / d.get("path")).resolve()
        self._catalogs: dict[str, tuple[Any, str]] | None = None  # catalog name -> (<Catalog>, file)
        self.warnings: list[str] = []  # what the scenario's reading went past, with the rule applied

    def _load(self) -> dict[str, tuple[Any, str]]:
        from roadtest.sim.xosc.parser import parse_xml

        if self._catalogs is None:
            self._catalogs = {}
            for d in self.dirs.values():
                files = sorted(d.glob("*.xosc")) if d.is_dir() else ([d] if d.is_file() else [])
                for f in files:
                    root = parse_xml(f)
                    for cat in root.findall("Catalog"):
                        name = cat.get("name", "")
                        if name in self._catalogs:
                            # several files may hold one catalog name: merge their entries
                            prev, pf = self._catalogs[name]
                            for e in cat:
                                if isinstance(e.tag, str):
                                    e.set("_rtfile", str(f))
                                    prev.append(e)
                        else:
                            for e in cat:
                                if isinstance(e.tag, str):
                                    e.set("_rtfile", str(f))
                            self._catalogs[name] = (cat, str(f))
        return self._catalogs

    def _find(self, cat_name: str, entry_name: str) -> tuple[Any, str]:
        """The entry in the named catalog; players also accept it from another catalog file when names disagree."""
        cats = self._load()
        order = ([cats[cat_name]] if cat_name in cats else []) + [c for n, c in sorted(cats.items()) if n != cat_name]
        for cat, f in order:
            for e in cat:
                if isinstance(e.tag, str) and e.get("name") == entry_name:
                    return e, f
        return None, ""

    def resolve(self, ref: Any, scope: ParamScope, file: str) -> Any:
        """A deep copy of the entry `ref` (a CatalogReference) names, its parameters substituted."""
        from roadtest.sim.xosc.parser import declare, fail, substitute, where

        cat_name = resolve_value(ref.get("catalogName", ""), scope)
        entry_name = resolve_value(ref.get("entryName", ""), scope)
        cats = self._load()
        entry, cat_file = self._find(cat_name, entry_name)
        if entry is None:
            if cat_name not in cats:
                known = ", ".join(sorted(cats)) or "none (no CatalogLocations directory found)"
                raise fail(ref, "CatalogReference.catalogName", f"catalog {cat_name!r} not found; known: {known}", file)
            cat = cats[cat_name][0]
            names = [e.get("name") for e in cat if isinstance(e.tag, str)]
            raise fail(ref, "CatalogReference.entryName",
                       f"entry {entry_name!r} not in catalog {cat_name!r} (has: {', '.join(names[:20])})", file)
        assigned: dict[str, str] = {}
        for a in ref.findall("ParameterAssignments/ParameterAssignment"):
            try:
                assigned[a.get("parameterRef", "").lstrip("$")] = resolve_value(a.get("value", ""), scope)
            except UserError as e:
                raise fail(a, "ParameterAssignment.value", str(e), file) from None
        out = copy.deepcopy(entry)
        efile = out.get("_rtfile") or cat_file
        decls = out.find("ParameterDeclarations")
        declared = {d.get("name") for d in decls.findall("ParameterDeclaration")} if decls is not None else set()
        unknown = sorted(set(assigned) - declared)
        if unknown:
            # esmini's rule (the standard requires a declared name but says nothing of a player's response):
            # an assignment to a parameter the entry does not declare is ignored
            f, line = where(ref, file)
            self.warnings.append(f"{f}:{line}: ParameterAssignment to {', '.join(unknown)} ignored: not declared by "
                                 f"catalog entry {entry_name!r}")
            for n in unknown:
                del assigned[n]
        inner = ParamScope(scope)  # entry parameters shadow the scenario's; unknown names fall back to it
        declare(decls, inner, efile, assigned)
        if decls is not None:
            out.remove(decls)
        substitute(out, inner, efile, self, self.warnings)
        if out.sourceline is None:
            out.sourceline = entry.sourceline
        return out
