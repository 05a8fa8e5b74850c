"""The enumerations of the OpenSCENARIO 1.0-1.3 XSDs, read mechanically, and where a document uses them.

`enum_attributes()` gives {(complexType, attribute): [values]} over the union of the four schemas
(scenariogeneration's copies, the ones `roadtest validate` uses); `typed_elements(root)` walks a
document from <OpenSCENARIO> and yields (element, complexType) by following the schemas' element
declarations (sequences, choices, groups, all), so an attribute is found by its declared type,
not guessed from its name.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

from lxml import etree

__all__ = ["enum_attributes", "attribute_types", "typed_elements", "schema_versions"]

XS = "{http://www.w3.org/2001/XMLSchema}"


def schema_versions() -> list[int]:
    return [0, 1, 2, 3]


@lru_cache(maxsize=None)
def _schema(rev_minor: int) -> Any:
    from roadtest.dsl.validate import xsd_path

    return etree.parse(str(xsd_path("xosc", rev_minor))).getroot()


def _enum_types(root: Any) -> dict[str, list[str]]:
    out = {}
    for st in root.iter(XS + "simpleType"):
        vals = [e.get("value") for e in st.iter(XS + "enumeration")]
        if st.get("name") and vals:
            out[st.get("name")] = vals
    return out


def _children(node: Any, groups: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(element name, type) declared under a complexType or group, groups expanded."""
    for x in node.iter(XS + "element", XS + "group"):
        if x.tag == XS + "group" and x.get("ref"):
            g = groups.get(x.get("ref"))
            if g is not None:
                yield from _children(g, groups)
        elif x.tag == XS + "element" and x.get("name") and x.get("type"):
            yield x.get("name"), x.get("type")


@lru_cache(maxsize=None)
def _model(rev_minor: int) -> tuple[dict, dict, dict]:
    """(child types {(type, child name): type}, attributes {type: {attr: type}}, enums {type: values})."""
    root = _schema(rev_minor)
    groups = {g.get("name"): g for g in root.findall(XS + "group")}
    child, attrs = {}, {}
    for ct in root.findall(XS + "complexType"):
        name = ct.get("name")
        for n, t in _children(ct, groups):
            child[(name, n)] = t
        attrs[name] = {a.get("name"): a.get("type") for a in ct.iter(XS + "attribute") if a.get("name")}
    return child, attrs, _enum_types(root)


def enum_attributes() -> dict[tuple[str, str], list[str]]:
    """{(complexType, attribute): values} for every enumeration-typed attribute of 1.0-1.3 (values unioned)."""
    out: dict[tuple[str, str], list[str]] = {}
    for v in schema_versions():
        _, attrs, enums = _model(v)
        for ct, aa in attrs.items():
            for a, t in aa.items():
                for val in enums.get(t, []):
                    vals = out.setdefault((ct, a), [])
                    if val not in vals:
                        vals.append(val)
    return out


def typed_elements(root: Any, rev_minor: int = 3) -> Iterator[tuple[Any, str]]:
    """(element, its complexType) for every element of an OpenSCENARIO document, by the schema's declarations."""
    child, _, _ = _model(min(max(rev_minor, 0), 3))
    stack = [(root, "OpenScenario")]
    while stack:
        el, t = stack.pop()
        yield el, t
        for k in el:
            if isinstance(k.tag, str):
                kt = child.get((t, k.tag))
                if kt is not None:
                    stack.append((k, kt))


def attribute_types() -> dict[tuple[str, str], str]:
    """{(complexType, attribute): declared XSD type name} over 1.0-1.3 (the newest declaration wins)."""
    out: dict[tuple[str, str], str] = {}
    for v in schema_versions():
        _, attrs, _ = _model(v)
        for ct, aa in attrs.items():
            for a, t in aa.items():
                out[(ct, a)] = t
    return out
