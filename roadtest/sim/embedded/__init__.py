"""The built-in simulator: EmbeddedSimulator/EmbeddedSimulation and run_bundle for agent-less runs."""

from roadtest.sim.embedded.simulator import EmbeddedSimulation, EmbeddedSimulator, run_bundle

__all__ = ["EmbeddedSimulator", "EmbeddedSimulation", "run_bundle"]
