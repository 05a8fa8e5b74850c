"""Stand-ins for `carla`, `leaderboard` and CARLA's `agents`, imported under those names only when the real ones are absent."""
