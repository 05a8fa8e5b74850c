"""Shared servers: at most `max_concurrency` runs use one model or simulator server at once, under any executor.

A run names its server in `Job.extra["server"]` (a URL or host:port) and the limit in
`Job.extra["max_concurrency"]`; both come from the agent config (`server_limit`). The driver, which
alone starts runs, asks `ServerLimits` before starting one, so the limit holds for the local pool and
for Ray alike without any lock shared between machines.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from roadtest.errors import UserError

__all__ = ["ServerLimits", "server_limit", "SERVER_KEYS"]

SERVER_KEYS = ("base_url", "url", "server")  # where an agent config names its server, in this order


def server_limit(agent_config: Mapping[str, Any] | None) -> dict[str, Any]:
    """{"server": url, "max_concurrency": n} from an agent config, or {} when it sets no limit.

    The server is the first of `base_url`, `url`, `server` (a string, or a mapping with `url`), at the top
    level or under `backend:`; a limit without a server applies to every run of that config together.
    """
    if not agent_config:
        return {}
    scopes = [agent_config] + [agent_config[k] for k in ("backend",) if isinstance(agent_config.get(k), Mapping)]
    limit = next((s["max_concurrency"] for s in scopes if "max_concurrency" in s), None)
    if limit is None:
        return {}
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise UserError(f"agent config: max_concurrency: expected a whole number of at least 1, got {limit!r}")
    server = "agent-config"
    for scope in scopes:
        for key in SERVER_KEYS:
            value = scope.get(key)
            if isinstance(value, Mapping):
                value = value.get("url")
            if isinstance(value, str) and value:
                server = value
                break
        else:
            continue
        break
    return {"server": server, "max_concurrency": limit}


class ServerLimits:
    """How many running jobs hold each server; which pending job may start next."""

    def __init__(self) -> None:
        self.busy: Counter[str] = Counter()

    @staticmethod
    def _key(job: Any) -> tuple[str, int] | None:
        extra = getattr(job, "extra", None) or {}
        if "server" not in extra or "max_concurrency" not in extra:
            return None
        return str(extra["server"]), int(extra["max_concurrency"])

    def can_start(self, job: Any) -> bool:
        key = self._key(job)
        return key is None or self.busy[key[0]] < key[1]

    def next_index(self, pending: Sequence[Any]) -> int | None:
        """Index of the first pending job whose server has room (plan order otherwise kept)."""
        return next((i for i, job in enumerate(pending) if self.can_start(job)), None)

    def start(self, job: Any) -> None:
        key = self._key(job)
        if key is not None:
            self.busy[key[0]] += 1

    def end(self, job: Any) -> None:
        key = self._key(job)
        if key is not None and self.busy[key[0]] > 0:
            self.busy[key[0]] -= 1
