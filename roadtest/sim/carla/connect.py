"""Reaching a CARLA server: the real `carla` client module, the endpoint, a fast reachability probe and the
health check (client and server versions equal) that runs before a suite's first scenario.

A missing `carla` package, roadtest's own stand-in `carla` (roadtest.agents.leaderboard_compat) or a closed
port is the user's to fix (UserError, exit 2, before any run); a server that answers but misbehaves is a
BackendError, an infrastructure failure.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any

from roadtest.errors import BackendError, DependencyMissing, UserError

__all__ = ["Endpoint", "parse_endpoint", "import_carla", "probe", "health_check", "CLIENT_TIMEOUT"]

CLIENT_TIMEOUT = 60.0  # s: CARLA's first map load (load_world, generate_opendrive_world) takes minutes at worst
PROBE_TIMEOUT = 3.0  # s for the TCP reachability probe


@dataclass(frozen=True)
class Endpoint:
    """Where the server listens. CARLA uses port (RPC), port+1 (streaming) and port+2 (secondary)."""

    host: str = "localhost"
    port: int = 2000
    tm_port: int = 8000  # Traffic Manager
    timeout: float = CLIENT_TIMEOUT  # s, client RPC timeout


def parse_endpoint(host: str | None = None, port: int | None = None, tm_port: int | None = None,
                   timeout: float | None = None) -> Endpoint:
    """An Endpoint from CLI values; `host` may be HOST:PORT. Out-of-range values are a UserError."""
    d = Endpoint()
    h = host or d.host
    if ":" in h:
        h, _, p = h.rpartition(":")
        if port is None:
            try:
                port = int(p)
            except ValueError:
                raise UserError(f"--carla-host {host!r}: expected HOST or HOST:PORT with an integer port") from None
    ep = Endpoint(h, d.port if port is None else int(port), d.tm_port if tm_port is None else int(tm_port),
                  d.timeout if timeout is None else float(timeout))
    for name, value in (("--carla-port", ep.port), ("--carla-tm-port", ep.tm_port)):
        if not 1 <= value <= 65535:
            raise UserError(f"{name}: expected a TCP port 1..65535, got {value}")
    if ep.tm_port in (ep.port, ep.port + 1, ep.port + 2):
        raise UserError(f"--carla-tm-port {ep.tm_port}: collides with the server's ports {ep.port}..{ep.port + 2}")
    if not ep.timeout > 0:
        raise UserError(f"CARLA client timeout: expected a positive number of seconds, got {ep.timeout}")
    return ep


def import_carla() -> Any:
    """The real `carla` client module; refuses roadtest's stand-in, which has value types but no client."""
    try:
        import carla
    except ImportError as e:
        raise DependencyMissing("carla (CARLA's Python client, 0.9.16)", "carla") from e
    from roadtest.agents.leaderboard_compat import is_compat

    if is_compat(carla) or not hasattr(carla, "Client"):
        raise UserError(f"the `carla` module found ({getattr(carla, '__file__', '?')}) is roadtest's stand-in for "
                        "leaderboard agents, not CARLA's client: pip install 'roadtest[carla]'")
    return carla


def probe(ep: Endpoint, timeout: float = PROBE_TIMEOUT) -> None:
    """Fail at once (UserError) when nothing accepts TCP connections at the server's RPC port."""
    try:
        with socket.create_connection((ep.host, ep.port), timeout=timeout):
            pass
    except OSError as e:
        raise UserError(f"no CARLA server at {ep.host}:{ep.port} ({e.strerror or e}); start one "
                        "(CarlaUE4.sh -RenderOffScreen -carla-rpc-port=PORT, or docker/compose.yaml; README: Running on "
                        "CARLA) or pass --carla-host/--carla-port") from None


def health_check(client: Any) -> str:
    """The server's version, after checking it equals the client's (a mismatch breaks the RPC protocol)."""
    try:
        server, mine = client.get_server_version(), client.get_client_version()
    except RuntimeError as e:  # LibCarla raises RuntimeError on an RPC timeout
        raise BackendError(f"CARLA server did not answer the version query: {e}") from e
    if server.split("-")[0] != mine.split("-")[0]:
        raise UserError(f"CARLA server {server} and client {mine} differ: install carla=={server.split('-')[0]} "
                        "or run a matching server")
    return server
