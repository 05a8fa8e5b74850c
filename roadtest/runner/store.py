"""The results store: OUT/results.jsonl, append-only, one whole JSON line per run written with one fsynced write.

A torn last line (a kill or power loss mid-write) is cut off before the next append, and kept in
results.jsonl.torn, so a new record never lands on a fragment. `check_writable` opens the store for appending
before the first run, so an unwritable store is refused up front rather than after the runs. URL credentials
(user:password@) in any string of a record are redacted before it is written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from roadtest.errors import UserError
from roadtest.urls import redact_urls

__all__ = ["RESULTS", "TORN", "append_record", "read_records", "done_ids", "check_writable"]

RESULTS = "results.jsonl"
TORN = "results.jsonl.torn"  # fragments cut from the end of the store, for forensics
_TAIL_CHUNK = 64 * 1024


def check_writable(out: Path) -> None:
    """UserError (one line) unless OUT/results.jsonl can be created or opened for appending; writes nothing."""
    path = Path(out) / RESULTS
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as e:
        raise UserError(f"{path}: cannot append results ({e.strerror or e}); choose another --out") from None
    os.close(fd)


def _repair_tail(fd: int, out: Path) -> None:
    """Cut a last line that has no newline (a torn write) off the store, keeping it in OUT/results.jsonl.torn."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return
    end = size
    cut = 0
    while end > 0:
        start = max(0, end - _TAIL_CHUNK)
        chunk = os.pread(fd, end - start, start)
        i = chunk.rfind(b"\n")
        if i >= 0:
            cut = start + i + 1
            break
        end = start
    fragment = os.pread(fd, size - cut, cut)
    tfd = os.open(Path(out) / TORN, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(tfd, fragment + b"\n")
        os.fsync(tfd)
    finally:
        os.close(tfd)
    os.ftruncate(fd, cut)
    os.fsync(fd)


def append_record(out: Path, record: dict[str, Any]) -> None:
    """Append one record as a single write of a full line, then fsync, so a kill leaves whole lines only."""
    line = (json.dumps(redact_urls(record), separators=(",", ":"), sort_keys=False) + "\n").encode()
    fd = os.open(Path(out) / RESULTS, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _repair_tail(fd, out)
        written = os.write(fd, line)
        while written < len(line):  # a short write leaves a broken line: finish it so the next one starts clean
            written += os.write(fd, line[written:])
        os.fsync(fd)
    finally:
        os.close(fd)


def read_records(out: Path) -> Iterator[dict[str, Any]]:
    """Every whole record in OUT/results.jsonl; a torn last line (power loss) is skipped."""
    path = Path(out) / RESULTS
    if not path.exists():
        return
    with open(path, "rb") as f:
        for raw in f:
            if not raw.endswith(b"\n"):
                continue
            try:
                rec = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(rec, dict) and "run_id" in rec:
                yield rec


def done_ids(out: Path) -> set[str]:
    """Run ids already recorded."""
    return {r["run_id"] for r in read_records(out)}
