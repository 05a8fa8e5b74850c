"""The VLM agent's configuration: defaults, then the user's file merged key by key; an unknown key or a wrong
type is a UserError that names the file and the dotted path.

Speeds here are SI (m/s) like everywhere inside roadtest; the prompts speak the country's unit.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Mapping

from roadtest.errors import UserError

__all__ = ["DEFAULTS", "merge_config", "BACKENDS", "MODES", "LATENCY_MODES", "STRUCTURED"]

BACKENDS = ("builtin", "openai", "transformers")
MODES = ("two_stage", "end_to_end")
LATENCY_MODES = ("sync", "realtime")
STRUCTURED = ("json_schema", "structured_outputs", "guided_json", "json_object", "none")

DEFAULTS: dict[str, Any] = {
    "backend": "builtin",  # builtin (offline, not a VLM) | openai | transformers
    "mode": "two_stage",  # two_stage (perception then planning) | end_to_end (one prompt, one answer)
    "decision_hz": 2.0,  # decisions per simulated second
    "latency": "sync",  # sync: the world waits; realtime: a plan takes effect after the call's measured latency
    "country": "auto",  # ISO alpha-2, or auto: the scenario's country as the runner hands it
    "privileged_hints": False,  # true: the scene's ground truth goes into the prompt (marked in every result)
    "cameras": [{"id": "front", "x": 1.5, "y": 0.0, "z": 1.6, "roll": 0.0, "pitch": 0.0, "yaw": 0.0,
                 "width": 1024, "height": 576, "fov": 60.0}],
    "image": {"format": "jpeg", "quality": 90, "stitch": False},  # stitch: several cameras side by side in one image
    "prompts": {"perception": None, "planning": None, "end_to_end": None},  # None: the packaged file; else a path
    "timeout_s": 30.0,  # per model call
    "max_concurrency": None,  # runs that may use the model server at once (None: as many as --workers)
    "retries": 2,  # extra attempts after a failed call
    "backoff_s": 0.5,  # first retry delay; doubles per attempt
    "backoff_max_s": 4.0,
    "max_consecutive_failures": 5,  # failed decisions in a row (after retries) that end the run as agent_error
    "plan_hold_s": 1.5,  # how long the last valid plan is followed when a decision fails, before braking
    "controller": {"lookahead_m": 3.0, "lookahead_s": 0.4,  # pure pursuit: lookahead = m + s * speed
                   "kp": 0.8, "ki": 0.2, "kd": 0.05,  # PID on speed, m/s^2 per m/s (and per m, per m/s^2)
                   "stop_decel": 2.5, "max_accel": 2.0, "wheelbase": 2.7, "max_wheel_angle": 0.6},
    "openai": {"base_url": "http://127.0.0.1:8000/v1", "model": None,  # None: the server's first model
               "api_key_env": "OPENAI_API_KEY",  # the NAME of the variable holding the key, never the key
               "max_tokens": 512, "temperature": 0.0, "seed": 0,
               "structured": "json_schema"},  # json_schema | structured_outputs (vLLM >= 0.12) | guided_json (older vLLM) | json_object | none
    "transformers": {"model_path": None, "dtype": "auto", "device": "auto", "max_new_tokens": 256},
    "builtin": {"checkpoint": None},  # None: the shipped sign classifier beside scripts/train_sign_classifier.py
}

_FREE = {"cameras"}  # list values taken as given (checked by the agent)


def _merge(base: dict[str, Any], given: Mapping[str, Any], path: str, where: str) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in given.items():
        dotted = f"{path}{key}"
        if key not in base:
            raise UserError(f"{where}: {dotted}: unknown key; expected one of {sorted(base)}")
        default = base[key]
        if isinstance(default, dict) and key not in _FREE:
            if not isinstance(value, Mapping):
                raise UserError(f"{where}: {dotted}: expected a mapping, got {value!r}")
            out[key] = _merge(default, value, dotted + ".", where)
        else:
            out[key] = _check_type(default, value, dotted, where)
    return out


def _check_type(default: Any, value: Any, dotted: str, where: str) -> Any:
    if default is None or value is None:
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise UserError(f"{where}: {dotted}: expected true or false, got {value!r}")
    elif isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UserError(f"{where}: {dotted}: expected a number, got {value!r}")
    elif isinstance(default, str) and not isinstance(value, str):
        raise UserError(f"{where}: {dotted}: expected a string, got {value!r}")
    elif isinstance(default, list) and not isinstance(value, list):
        raise UserError(f"{where}: {dotted}: expected a list, got {value!r}")
    return value


def _choice(cfg: Mapping[str, Any], key: str, options: tuple[str, ...], where: str, prefix: str = "") -> None:
    if cfg[key] not in options:
        raise UserError(f"{where}: {prefix}{key}: expected one of {list(options)}, got {cfg[key]!r}")


def merge_config(given: Mapping[str, Any], source: str | Path | None = None) -> dict[str, Any]:
    """DEFAULTS updated by `given`; raises UserError naming `source` and the dotted key for anything wrong."""
    where = str(source) if source else "agent config"
    cfg = _merge(DEFAULTS, given, "", where)
    _choice(cfg, "backend", BACKENDS, where)
    _choice(cfg, "mode", MODES, where)
    _choice(cfg, "latency", LATENCY_MODES, where)
    _choice(cfg["openai"], "structured", STRUCTURED, where, "openai.")
    for key in ("decision_hz", "timeout_s"):
        if not cfg[key] > 0:
            raise UserError(f"{where}: {key}: expected a positive number, got {cfg[key]!r}")
    for key in ("retries", "max_consecutive_failures"):
        if int(cfg[key]) != cfg[key] or cfg[key] < (1 if key == "max_consecutive_failures" else 0):
            raise UserError(f"{where}: {key}: expected a whole number >= {1 if key == 'max_consecutive_failures' else 0}, "
                            f"got {cfg[key]!r}")
    if not cfg["cameras"]:
        raise UserError(f"{where}: cameras: expected at least one camera")
    for i, cam in enumerate(cfg["cameras"]):
        if not isinstance(cam, Mapping) or not cam.get("id"):
            raise UserError(f"{where}: cameras.{i}: expected a mapping with an id (and x, y, z, yaw, width, height, fov)")
    if cfg["backend"] == "transformers" and not cfg["transformers"]["model_path"]:
        raise UserError(f"{where}: transformers.model_path: the transformers backend needs a local checkpoint folder")
    if cfg["country"] != "auto" and (not isinstance(cfg["country"], str) or len(cfg["country"]) != 2):
        raise UserError(f"{where}: country: expected auto or an ISO 3166 alpha-2 code, got {cfg['country']!r}")
    return cfg
