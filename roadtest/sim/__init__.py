"""Simulation: backend-neutral API (api.py), road model (road/), built-in simulator (embedded/), CARLA bridge (carla/)."""
