"""Agents: the leaderboard-shaped API (base.py), the rule-aware expert, the lane-follower and idle baselines."""

from roadtest.agents.base import AutonomousAgent, sensor_data, sensor_spec
from roadtest.agents.registry import known_agents, load_agent

__all__ = ["AutonomousAgent", "sensor_spec", "sensor_data", "load_agent", "known_agents"]
