"""Stand-in `srunner` (scenario_runner) for leaderboard agents run without it: CarlaDataProvider and GameTime
over roadtest's built-in world (roadtest.agents.leaderboard_compat.world), nothing else."""
