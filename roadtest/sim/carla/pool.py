"""Several CARLA servers behind one `roadtest run`: `--carla-port 2000,2003` lists them, and each worker process
leases one for its run through an exclusive lock file, so N workers (`-j N`, or Ray tasks on one node) drive N
servers, never two on one. Server i uses the Traffic Manager port tm_port + (port_i - port_0)."""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
import time
from pathlib import Path

from roadtest.errors import BackendError, UserError

__all__ = ["server_ports", "Lease", "lease"]

POLL = 0.5  # s between attempts while every server is taken


def server_ports(port: int | str | None, default: int = 2000) -> list[int]:
    """[2000] for None, [p] for an int, the listed ports for "2000,2003" (distinct, >= 3 apart: CARLA takes port,
    port+1 and port+2)."""
    if port is None:
        return [default]
    if isinstance(port, int):
        return [port]
    parts = [p for p in re.split(r"[,\s]+", str(port).strip()) if p]
    try:
        ports = [int(p) for p in parts]
    except ValueError:
        raise UserError(f"--carla-port {port!r}: expected PORT or PORT,PORT,... (integers)") from None
    if not ports:
        raise UserError("--carla-port: expected at least one port")
    ordered = sorted(ports)
    if any(b - a < 3 for a, b in zip(ordered, ordered[1:])):
        raise UserError(f"--carla-port {port!r}: servers must be at least 3 ports apart (each uses port..port+2)")
    return ports


class Lease:
    """The right to use one server until release() (or the process ends: the kernel drops the lock)."""

    def __init__(self, index: int, port: int, fd: int):
        self.index, self.port, self._fd = index, port, fd

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _lock_path(host: str, port: int) -> Path:
    return Path(tempfile.gettempdir()) / f"roadtest-carla-{re.sub(r'[^A-Za-z0-9.-]', '_', host)}-{port}.lock"


def lease(host: str, ports: list[int], wait: float = 3600.0) -> Lease:
    """The first free server of `ports`, waiting up to `wait` s for one (BackendError after that)."""
    deadline = time.monotonic() + wait
    while True:
        for i, port in enumerate(ports):
            fd = os.open(_lock_path(host, port), os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            return Lease(i, port, fd)
        if time.monotonic() >= deadline:
            raise BackendError(f"every CARLA server ({host}: {', '.join(map(str, ports))}) stayed busy for {wait:.0f} s")
        time.sleep(POLL)
