"""CarlaSimulator: the connection to one CARLA server and the settings that outlive runs.

Construction only checks the options; preflight() (before a suite) and load() connect: a fast TCP probe, the
real `carla` client (never roadtest's stand-in), the client timeout (60 s, around map loads), the version check,
scenario_runner's code. The runner builds one CarlaSimulator per run, so every run starts on a fresh connection
(after a server crash too, once the server is back: compose restarts it); a server that dies mid-run is a
BackendError, recorded by the runner as sim_error (infrastructure), never as the agent's failure.
"""

from __future__ import annotations

from typing import Any

from roadtest.errors import BackendError, UserError
from roadtest.sim.api import SimSettings, Simulator

__all__ = ["CarlaSimulator"]


class CarlaSimulator(Simulator):
    """CARLA 0.9.16 through scenario_runner; `weather` picks the Environment mapping (see sim/carla/weather.py)."""

    name = "carla"

    def __init__(self, host: str | None = None, port: int | str | None = None, tm_port: int | None = None,
                 weather: str = "roadtest", timeout: float | None = None, record_dir: str | None = None):
        from roadtest.sim.carla.connect import parse_endpoint
        from roadtest.sim.carla.pool import server_ports
        from roadtest.sim.carla.weather import MAPPINGS

        first = parse_endpoint(host, None, tm_port, timeout)
        if ":" in (host or "") and port is None:
            port = first.port
        ports = server_ports(port, first.port)
        self.endpoints = [parse_endpoint(first.host, p, first.tm_port + (p - ports[0]), first.timeout) for p in ports]
        self.endpoint = self.endpoints[0]  # the leased one once connected
        self._lease = None
        if weather not in MAPPINGS:
            raise UserError(f"--carla-weather {weather!r}: expected one of {', '.join(MAPPINGS)}")
        self.weather, self.record_dir = weather, record_dir
        self._client: Any = None
        self._carla: Any = None
        self.server_version: str | None = None

    @classmethod
    def sensor_types(cls) -> frozenset[str]:
        from roadtest.sim.carla.sensors import SENSOR_TYPES

        return SENSOR_TYPES

    @classmethod
    def preflight(cls, **options: Any) -> None:
        """Refuse, before any run, an unreachable server, a missing or stand-in `carla`, a version mismatch, a
        missing scenario_runner (all UserErrors: exit 2)."""
        sim = cls(**options)
        for ep in sim.endpoints:
            sim.endpoint = ep
            try:
                sim._open()
            except BackendError as e:
                raise UserError(f"CARLA server at {ep.host}:{ep.port} is not usable: {e}") from e
            finally:
                sim._client = None
        from roadtest.sim.carla.storyboard import load_srunner

        load_srunner()

    def connect(self) -> Any:
        """The client of a leased server, connected and checked (reused by this simulator's later runs)."""
        from roadtest.sim.carla.pool import lease

        if self._client is not None:
            return self._client
        if self._lease is None:
            self._lease = lease(self.endpoints[0].host, [ep.port for ep in self.endpoints])
            self.endpoint = self.endpoints[self._lease.index]
        return self._open()

    def _open(self) -> Any:
        from roadtest.sim.carla.connect import health_check, import_carla, probe

        self._client = None
        probe(self.endpoint)
        carla = import_carla()
        client = carla.Client(self.endpoint.host, self.endpoint.port)
        client.set_timeout(self.endpoint.timeout)
        self.server_version = health_check(client)
        self._carla, self._client = carla, client
        return client

    def load(self, bundle: Any, seed: int = 0, settings: SimSettings | None = None):
        from roadtest.sim.carla.simulation import CarlaSimulation
        from roadtest.sim.carla.storyboard import load_srunner

        sr = load_srunner()
        client = self.connect()
        try:
            return CarlaSimulation(self, self._carla, sr, client, bundle, seed, settings or SimSettings())
        except RuntimeError as e:  # LibCarla: timeout, lost connection, a map the server rejects
            self._client = None
            raise BackendError(f"CARLA server {self.endpoint.host}:{self.endpoint.port}: {e}") from e

    def close(self) -> None:
        self._client = None
        if self._lease is not None:
            self._lease.release()
            self._lease = None
