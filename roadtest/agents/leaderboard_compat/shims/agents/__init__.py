"""Stand-in for CARLA's `agents` package (PythonAPI/carla/agents): only what leaderboard agents import from it."""
