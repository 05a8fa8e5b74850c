"""Simulation: backend-neutral API (api.py), the layer every backend shares (loop, environment, events, signals,
sensors, frames), road model (road/), OpenSCENARIO runtime (xosc/), and the backends registered in backends.py:
built-in simulator (embedded/), CARLA bridge (carla/)."""
