"""The agent's prompts: versioned text files in the package (prompts/<stage>_v<N>.txt), one per stage,
overridable by path from the config, filled in with the country's driving side and speed unit.

A prompt's id is its first line (`# roadtest prompt perception/v1`); its hash is the SHA-256 of the
template, so a record says exactly which text the model saw.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from roadtest.errors import UserError

__all__ = ["Prompt", "load_prompt", "load_prompts", "STAGES", "country_info", "speed_unit_factor"]

STAGES = ("perception", "planning", "end_to_end")
VERSION = {"perception": 1, "planning": 1, "end_to_end": 1}

_NAMES = {"CN": "China", "DE": "Germany", "US": "the United States", "JP": "Japan", "GB": "the United Kingdom",
          "FR": "France", "IT": "Italy", "ES": "Spain", "NL": "the Netherlands", "KR": "South Korea",
          "AU": "Australia", "IN": "India", "CA": "Canada", "SE": "Sweden", "CH": "Switzerland", "AT": "Austria"}
_LEFT = {"JP", "GB", "AU", "IN", "NZ", "IE", "ZA", "SG", "HK", "MY", "TH", "ID"}
_MPH = {"US", "GB"}


def country_info(country: str | None, driving_side: str | None = None) -> dict[str, str]:
    """Name, driving side and speed unit of a country (ISO alpha-2); unknown codes keep the code as the name."""
    code = (country or "").upper() or "unknown"
    side = driving_side or ("left" if code in _LEFT else "right")
    return {"country": code, "country_name": _NAMES.get(code, code), "driving_side": side,
            "speed_unit": "mph" if code in _MPH else "km/h"}


def speed_unit_factor(unit: str) -> float:
    """m/s per one of the unit's speed."""
    return 0.44704 if unit == "mph" else 1 / 3.6


@dataclass(frozen=True)
class Prompt:
    """One stage's template, with where it came from."""

    stage: str
    id: str  # "perception/v1", or the override file's own first-line id
    sha256: str
    template: str
    source: str  # "package" or the override path

    def render(self, **fields: Any) -> str:
        """The template's text with {fields} filled in (the id line dropped)."""
        body = self.template.split("\n", 1)[1] if self.template.startswith("#") else self.template
        try:
            return body.format(**fields).strip() + "\n"
        except (KeyError, IndexError, ValueError) as e:
            raise UserError(f"{self.source}: prompt {self.id}: cannot fill in the template ({type(e).__name__}: {e}); "
                            f"fields are {sorted(fields)}, literal braces must be doubled") from e


def load_prompt(stage: str, override: str | Path | None = None) -> Prompt:
    """The packaged prompt of a stage, or the user's file when `override` names one."""
    if stage not in STAGES:
        raise ValueError(f"unknown prompt stage {stage!r}")
    if override:
        path = Path(override)
        if not path.is_file():
            raise UserError(f"prompts.{stage}: prompt file {path} not found")
        text, source = path.read_text(), str(path)
    else:
        name = f"{stage}_v{VERSION[stage]}.txt"
        text, source = resources.files("roadtest.agents.vlm").joinpath("prompts", name).read_text(), "package"
    first = text.split("\n", 1)[0]
    pid = first.split("prompt", 1)[1].strip() if first.startswith("#") and "prompt" in first else \
        (f"{stage}/{Path(source).stem}" if override else f"{stage}/v{VERSION[stage]}")
    return Prompt(stage=stage, id=pid, sha256=hashlib.sha256(text.encode()).hexdigest(), template=text, source=source)


def load_prompts(overrides: Mapping[str, Any]) -> dict[str, Prompt]:
    """Every stage's prompt with the config's overrides applied."""
    return {stage: load_prompt(stage, overrides.get(stage)) for stage in STAGES}

