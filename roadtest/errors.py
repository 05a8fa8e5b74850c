"""One exception root for roadtest, so the CLI can tell a user's mistake (exit 2) from a bug."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "RoadtestError",
    "UserError",
    "ScenarioError",
    "FieldError",
    "Problem",
    "ProblemList",
    "MapError",
    "UnsupportedError",
    "BackendError",
    "DependencyMissing",
]


class RoadtestError(Exception):
    """Root of every error roadtest raises on purpose."""


class UserError(RoadtestError):
    """Bad input from the user: the CLI prints the message and exits 2, with no traceback."""


@dataclass(frozen=True)
class Problem:
    """One problem in a user's file: where it is and what was expected."""

    file: str
    line: int  # 1-based; 0 when unknown
    col: int  # 1-based; 0 when unknown
    field: str  # dotted path, e.g. "actors.0.speed"; "" for the whole file
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class ScenarioError(UserError):
    """One or more problems in a scenario, suite or rule file; str() gives one line per problem."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class FieldError(UserError):
    """A problem found while building a scenario's road or scene, at a dotted field path of the scenario.

    The builders know the field but not the file; the caller that has the file turns it into a Problem
    (roadtest.dsl.bundle_writer.build_problems).
    """

    def __init__(self, field: str, message: str):
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}")


ProblemList = list[Problem]


class MapError(UserError):
    """A malformed or unsupported OpenDRIVE file (names the element and its line)."""


class UnsupportedError(UserError):
    """An OpenSCENARIO/OpenDRIVE feature roadtest refuses by name: 'unsupported: <Element> at <file>:<line>'."""

    def __init__(self, element: str, file: str = "", line: int = 0, detail: str = ""):
        self.element, self.file, self.line = element, file, line
        where = f" at {file}:{line}" if file else ""
        super().__init__(f"unsupported: {element}{where}" + (f" ({detail})" if detail else ""))


class BackendError(RoadtestError):
    """A simulator backend failed (server gone, protocol error): an infrastructure failure, not the agent's."""


class DependencyMissing(UserError):
    """An optional dependency is not installed; the message names the pip extra that brings it."""

    def __init__(self, module: str, extra: str):
        super().__init__(f"{module} is not installed: pip install 'roadtest[{extra}]'")
