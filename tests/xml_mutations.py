"""Mutations shared by the parser fuzz tests (OpenDRIVE and OpenSCENARIO): XML-structural and byte-wise."""

from __future__ import annotations

import copy
import signal
from contextlib import contextmanager

from hypothesis import strategies as st
from lxml import etree

__all__ = ["Seeds", "emitted_bundles", "edit_strategy", "mutate_tree", "mutate_bytes", "BYTE_EDITS", "hang_guard"]

class Seeds(list):
    """Seed files, shown by count in hypothesis reports (the bytes would bury the falsifying edits)."""

    def __repr__(self) -> str:
        return f"<{len(self)} seeds>"


def emitted_bundles(repo_root, names, tmp_path_factory) -> list:
    """Bundle folders of roadtest's own example scenarios `names`, written by `roadtest convert`."""
    from roadtest.cli import main

    out = []
    for name in names:
        src = repo_root / "scenarios" / f"{name}.yaml"
        if src.is_file():
            folder = tmp_path_factory.mktemp(name)
            assert main(["convert", str(src), "-o", str(folder)]) == 0
            out += sorted(p for p in folder.iterdir() if p.is_dir())
    return out


BYTE_EDITS = st.lists(st.tuples(st.sampled_from(["truncate", "delete", "insert", "flip"]), st.integers(0, 10**7),
                                st.binary(max_size=6)), min_size=1, max_size=3)


def edit_strategy(ops: list[str], values: list[str]):
    """One structural edit: (op, element pick, attribute/element pick, value)."""
    return st.tuples(st.sampled_from(ops), st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(values))


def mutate_tree(data: bytes, edits) -> bytes:
    """Structural edits: attributes deleted/rewritten, elements dropped, duplicated, swapped, renamed, ids crossed."""
    root = etree.fromstring(data)
    for op, a, b, value in edits:
        els = [e for e in root.iter() if isinstance(e.tag, str) and e is not root]
        if not els:
            break
        el = els[a % len(els)]
        attrs = sorted(el.attrib)
        if op in ("del_attr", "set_attr") and attrs:
            name = attrs[b % len(attrs)]
            if op == "del_attr":
                del el.attrib[name]
            else:
                el.set(name, value)
        elif op == "drop":
            el.getparent().remove(el)
        elif op == "dup":
            el.addnext(copy.deepcopy(el))
        elif op == "retag":
            el.tag = els[b % len(els)].tag  # another element's name: a <line> becomes an <arc>, a <Story> an <Act>
        elif op == "swap" and el.getnext() is not None:
            nxt = el.getnext()
            el.getparent().remove(nxt)
            el.addprevious(nxt)
        elif op == "dup_id":
            # give this element the id of another element of its kind (duplicate ids, crossed links)
            same = [e for e in els if e.tag == el.tag and e.get("id") is not None]
            if same and el.get("id") is not None:
                el.set("id", same[b % len(same)].get("id"))
    return etree.tostring(root)


def mutate_bytes(data: bytes, edits) -> bytes:
    """Byte-wise edits: truncate, delete, insert or flip bytes at positions."""
    buf = bytearray(data)
    for op, at, chunk in edits:
        i = at % (len(buf) + 1)
        if op == "truncate":
            del buf[i:]
        elif op == "delete":
            del buf[i:i + 1 + len(chunk)]
        elif op == "insert":
            buf[i:i] = chunk
        elif buf:
            buf[i % len(buf)] ^= 1 << (len(chunk) % 8)
    return bytes(buf)


@contextmanager
def hang_guard(seconds: int, what: str):
    """Fail (instead of hanging the suite) when the body runs longer than `seconds`."""
    def boom(*_):
        raise AssertionError(f"example ran over {seconds} s: an infinite loop in {what}")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
