"""roadtest: a closed-loop road test for driving agents under traffic rules.

Kept import-light on purpose: `roadtest --help` must stay fast, so nothing heavy is imported here.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
