"""URLs as roadtest records them: credentials in a URL's userinfo never reach a record, a summary or a trace."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["redact_url", "redact_urls"]

_URL_WITH_USERINFO = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://)([^/?#@\s]*)@")


def redact_url(url: str) -> str:
    """`url` with any user:password@ replaced by `***@` (the host, port and path kept, so the server is named)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _URL_WITH_USERINFO.sub(r"\1***@", url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, "***@" + host, parts.path, parts.query, parts.fragment))


def redact_urls(value: Any) -> Any:
    """A copy of `value` (str, list, dict, nested) with the userinfo of every URL inside a string redacted."""
    if isinstance(value, str):
        return _URL_WITH_USERINFO.sub(r"\1***@", value) if "@" in value else value
    if isinstance(value, dict):
        return {k: redact_urls(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_urls(v) for v in value)
    return value
