"""Names on disk: a scenario, variant or run name longer than a file system takes is cut and given a hash of the
whole name, so it stays unique and stable; the records keep the full name."""

from __future__ import annotations

import hashlib

__all__ = ["MAX_NAME_BYTES", "disk_name"]

MAX_NAME_BYTES = 200  # bytes of a name roadtest writes; its prefixes and suffixes (30 at most) stay under NAME_MAX 255
_HASH = 16  # hex digits of sha256 that replace the tail of a longer name


def disk_name(name: str, limit: int = MAX_NAME_BYTES) -> str:
    """`name` itself when it fits in `limit` UTF-8 bytes, else its head, '-', and 16 hex digits of its sha256."""
    raw = name.encode("utf-8")
    if len(raw) <= limit:
        return name
    digest = hashlib.sha256(raw).hexdigest()[:_HASH]
    head = raw[:limit - _HASH - 1].decode("utf-8", "ignore")
    return f"{head}-{digest}"
