"""Stand-in for the CARLA leaderboard package: the agent base class and the route helpers agents import."""
