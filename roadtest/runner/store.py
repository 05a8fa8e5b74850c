"""The results store: OUT/results.jsonl, append-only, one whole JSON line per run written with one fsynced write."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

__all__ = ["RESULTS", "append_record", "read_records", "done_ids"]

RESULTS = "results.jsonl"


def append_record(out: Path, record: dict[str, Any]) -> None:
    """Append one record as a single write of a full line, then fsync, so a kill leaves whole lines only."""
    line = (json.dumps(record, separators=(",", ":"), sort_keys=False) + "\n").encode()
    fd = os.open(Path(out) / RESULTS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, line)
        if written != len(line):  # a short write leaves a broken line: finish it so the next one starts clean
            os.write(fd, line[written:])
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
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict) and "run_id" in rec:
                yield rec


def done_ids(out: Path) -> set[str]:
    """Run ids already recorded."""
    return {r["run_id"] for r in read_records(out)}
