"""Falsification: search a scene's `search:` parameters for rule violations, write counterexamples, map boundaries."""
