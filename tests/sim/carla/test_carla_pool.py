"""Several servers behind one run command: each simulator leases a distinct one; the ports list is checked."""

from __future__ import annotations

import pytest

from roadtest.errors import BackendError, UserError
from roadtest.sim.carla.pool import lease, server_ports
from roadtest.sim.carla.simulator import CarlaSimulator


def test_ports_list():
    assert server_ports(None) == [2000] and server_ports(2010) == [2010]
    assert server_ports("2000,2003, 2006") == [2000, 2003, 2006]
    with pytest.raises(UserError, match="at least 3 ports apart"):
        server_ports("2000,2002")
    with pytest.raises(UserError, match="integers"):
        server_ports("2000,x")


def test_each_lease_takes_a_free_server_and_gives_it_back(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    a = lease("h", [2000, 2003], wait=0)
    b = lease("h", [2000, 2003], wait=0)
    assert (a.port, b.port) == (2000, 2003)
    with pytest.raises(BackendError, match="stayed busy"):
        lease("h", [2000, 2003], wait=0)
    a.release()
    c = lease("h", [2000, 2003], wait=0)
    assert c.port == 2000
    b.release()
    c.release()


def test_server_i_gets_its_own_traffic_manager_port():
    sim = CarlaSimulator(host="gpu1:2000", port=None, tm_port=8000)
    assert [(e.host, e.port, e.tm_port) for e in sim.endpoints] == [("gpu1", 2000, 8000)]
    sim = CarlaSimulator(host="gpu1", port="2000,2003", tm_port=8000)
    assert [(e.port, e.tm_port) for e in sim.endpoints] == [(2000, 8000), (2003, 8003)]
