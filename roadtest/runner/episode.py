"""One run in a worker: load the bundle, drive the agent tick by tick, score, and write OUT/runs/<run id>/.

Failures are classified where they happen: the agent raising is `agent_error`, the simulator or a
broken bundle raising is `sim_error` (an infrastructure failure), the wall-clock limit is `timeout`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roadtest.names import disk_name
from roadtest.sim.api import SimSettings, Trace
from roadtest.sim.backends import BACKENDS, simulator_class, simulator_for
from roadtest.sim.loop import LoopError, drive, why

__all__ = ["Job", "BACKENDS", "simulator_class", "simulator_for", "agent_sensors", "check_agent_sensors", "EpisodeError",
           "run_episode", "reference_trace", "execute_run", "write_json_atomic", "STATUSES"]

STATUSES = ("completed", "failed", "agent_error", "sim_error", "timeout", "invalid")
REFERENCE_AGENT = "expert"
DERIVES = tuple(BACKENDS)  # backends whose bare .xosc runs get a derived route and default rules


@dataclass(frozen=True)
class Job:
    """One (variant, seed, agent) run; plain fields so it pickles into a spawned worker."""

    run_id: str
    bundle: str  # bundle folder or .xosc
    variant: str
    seed: int
    agent: str | None
    tick: float
    out: str  # results folder
    timeout: float  # s wall clock
    backend: str = "embedded"
    trace_csv: str | None = None
    agent_config: str | None = None  # the agent's config file (--agent-config)
    reference: bool = True  # compute (or reuse) the expert's reference trace for planning L2
    extra: dict[str, Any] = field(default_factory=dict)


class EpisodeError(Exception):
    """A run that could not finish; `status` says whose fault (agent_error, sim_error, timeout, invalid input)."""

    def __init__(self, status: str, reason: str, trace: Trace | None = None):
        super().__init__(reason)
        self.status, self.reason, self.trace = status, reason, trace


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to a unique temporary file, then rename over `path`."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False))
    os.replace(tmp, path)


def agent_sensors(agent, backend: str) -> list[dict[str, Any]]:
    """The agent's sensors() checked against what the backend provides (UserError listing the supported types)."""
    from roadtest.agents.base import check_sensors

    cls = simulator_class(backend)
    name = type(getattr(agent, "inner", agent)).__name__
    return check_sensors(agent.sensors(), cls.sensor_types(), f"the {backend!r} backend", name)


def check_agent_sensors(agent_name: str, backend: str, agent_config: Any = None) -> None:
    """Build the agent once and refuse (UserError), before any run starts, a sensor the backend cannot provide.

    An agent that raises anything else here is left to its runs, which report it as their agent_error."""
    from roadtest.agents.base import AutonomousAgent
    from roadtest.agents.registry import PREFIX, agent_class, load_agent
    from roadtest.errors import UserError

    if not agent_name.startswith(PREFIX) and not issubclass(agent_class(agent_name), AutonomousAgent):
        return  # a leaderboard agent is built once per run, never twice (save paths made with exist_ok=False, large models)
    agent = None
    try:
        agent = load_agent(agent_name, agent_config)
        agent_sensors(agent, backend)
    except UserError:
        raise
    except Exception:  # noqa: BLE001 - the agent's own failure: each run records it
        pass
    finally:
        if agent is not None:
            try:
                agent.destroy()
            except Exception:  # noqa: BLE001
                pass


_why = why  # an exception in one line, where it was raised


def run_episode(bundle, seed: int, agent_name: str | None, settings: SimSettings, backend: str = "embedded",
                deadline: float | None = None, trace_csv: str | None = None, sensors: list | None = None,
                save_sensors: str | Path | None = None, agent_config: str | None = None,
                backend_options: dict[str, Any] | None = None) -> Trace:
    """Drive one run to its end and return the Trace; raise EpisodeError classifying any failure.

    `sensors` are attached beside the agent's own (its input_data gets them too); `save_sensors` is a folder
    that receives every image reading as PNG (FrameSaver); `agent_config` is the agent's config (file or mapping);
    `backend_options` build the Simulator."""
    from roadtest.errors import UserError

    try:
        simulator = simulator_for(backend, backend_options)
    except UserError as e:
        raise EpisodeError("invalid", str(e)) from e
    try:
        sim = simulator.load(bundle, seed, settings)
    except UserError as e:  # the scenario file is wrong (located message): the user's to fix, not a crash
        simulator.close()
        raise EpisodeError("invalid", str(e)) from e
    except Exception as e:  # noqa: BLE001 - a broken bundle or simulator is the infrastructure's failure
        simulator.close()
        raise EpisodeError("sim_error", f"loading the bundle failed: {_why(e)}") from e
    agent = None
    specs: list = []
    try:
        meta = getattr(bundle, "meta", None) or {}
        if agent_name:
            try:
                from roadtest.agents.registry import load_agent

                agent = load_agent(agent_name, agent_config, sim=sim)
                if hasattr(agent, "set_country"):  # the country a driver knows it is driving in
                    agent.set_country(meta.get("country"), meta.get("driving_side"))
                from roadtest.agents.leaderboard_compat.adapter import LeaderboardAgent

                route = meta.get("route") or {}
                wps = route.get("waypoints")
                if isinstance(agent, LeaderboardAgent):
                    agent.tick = settings.tick  # its timestamps run on the leaderboard's clock, one tick ahead
                if wps and (isinstance(agent, LeaderboardAgent) or getattr(agent, "takes_route", False)):
                    agent.set_global_plan(wps, route)  # GPS and world plans with RoadOptions, as the leaderboard
                elif wps and hasattr(agent, "set_global_plan"):
                    agent.set_global_plan(wps)
                specs = agent_sensors(agent, backend)
            except UserError as e:  # a sensor the backend cannot provide, or a malformed spec: the user's to fix
                raise EpisodeError("invalid", str(e)) from e
            except Exception as e:  # noqa: BLE001
                raise EpisodeError("agent_error", f"agent setup failed: {_why(e)}") from e
        clash = sorted({str(s.get("id")) for s in specs} & {str(s.get("id")) for s in sensors or []})
        if clash:
            raise EpisodeError("invalid", f"--camera: sensor id(s) {', '.join(clash)} already used by the agent")
        specs += list(sensors or [])
        saver = None
        if save_sensors is not None:
            from roadtest.runner.sensor_frames import FrameSaver

            saver = FrameSaver(save_sensors)

        def decide(data: dict, t: float):
            control = agent(data, t)  # AutonomousAgent.__call__: a checked Control, plan and text in last_output
            return control, agent.last_output

        try:
            drive(sim, decide if agent is not None else None, specs, on_sensors=saver, deadline=deadline)
        except LoopError as e:
            if e.phase == "deadline":
                raise EpisodeError("timeout", "wall-clock limit reached", sim.trace) from e
            if e.phase == "observe" and isinstance(e.cause, UserError):  # a sensor spec the simulator cannot serve
                raise EpisodeError("invalid", f"sensors: {e.cause}") from e.cause
            if e.phase == "observe":
                raise EpisodeError("sim_error", f"observe failed: {_why(e.cause)}") from e.cause
            if e.phase == "agent":
                raise EpisodeError("agent_error", f"agent raised: {_why(e.cause)}", sim.trace) from e.cause
            raise EpisodeError("sim_error", f"simulation step failed: {_why(e.cause)}", sim.trace) from e.cause
    finally:
        calls = agent.carla_calls() if agent is not None and hasattr(agent, "carla_calls") else None
        if calls is not None:
            sim.trace.info["carla_calls"] = calls  # the privileged calls a leaderboard agent made
        if agent is not None:
            try:
                agent.destroy()
            except Exception:  # noqa: BLE001 - a failing destroy must not hide the run's own outcome
                pass
        try:
            sim.close()
        except Exception:  # noqa: BLE001
            pass
        try:
            simulator.close()
        except Exception:  # noqa: BLE001
            pass
    trace = sim.trace
    trace.info.setdefault("seed", seed)
    trace.info["agent"] = agent_name
    if trace_csv:
        trace.write_csv(trace_csv, getattr(sim, "network", None))
    return trace


def reference_trace(job: Job, bundle) -> tuple[Trace | None, str | None]:
    """The expert's trace for (variant, seed), computed once and cached under OUT/reference/."""
    if not job.reference or job.agent in (None, REFERENCE_AGENT):
        return None, None
    folder = Path(job.out) / "reference"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{disk_name(job.variant)}__s{job.seed}__t{job.tick:g}.trace.json.gz"
    if path.exists():
        try:
            return Trace.load(path), None
        except Exception:  # noqa: BLE001 - a damaged cache entry is recomputed
            pass
    try:
        from roadtest.agents.registry import AGENTS

        if REFERENCE_AGENT not in AGENTS:
            return None, "no expert agent registered: no reference trace"
        trace = run_episode(bundle, job.seed, REFERENCE_AGENT, SimSettings(tick=job.tick), job.backend,
                            backend_options=job.extra.get("backend_options"))
    except Exception as e:  # noqa: BLE001 - the reference is optional; the run still scores without it
        return None, f"reference (expert) run failed: {e}"
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.gz")
    trace.save(tmp)
    os.replace(tmp, path)
    return trace, None


def _expectations(meta: dict, score: dict) -> list[str]:
    """Why a run that ended normally still fails what meta.expect asks."""
    exp = meta.get("expect") or {}
    why = []
    own = score.get("roadtest") or {}
    if exp.get("reach_goal") and not own.get("goal_reached"):
        why.append(f"goal not reached (route completion {own.get('route_completion') or 0.0:.1f} %)")
    if exp.get("rules_hold") and score.get("rules_error"):
        why.append(f"rules not checked: the rule monitors raised {score['rules_error']}")
    elif exp.get("rules_hold"):
        broken = [str(r.get("id") or r.get("rule")) for r in score.get("rules") or []
                  if str(r.get("verdict", "")).lower() in ("violated", "fail", "failed", "false")]
        if broken:
            why.append(f"rules violated: {', '.join(broken)}")
    return why


def execute_run(job: Job) -> dict[str, Any]:
    """Run, score and store one job; return its results.jsonl record (never raises for a run's own failure)."""
    from roadtest.bundle import load_bundle
    from roadtest.errors import UserError
    from roadtest.scoring.record import jsonable, record_fields
    from roadtest.scoring.score import score_run
    from roadtest.runner.derived_meta import (derived_for_run, meta_from_run, needs_derivation, scenario_map,
                                              store_derived)

    start = time.monotonic()
    run_dir = Path(job.out) / "runs" / job.run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {"run_id": job.run_id, "variant": job.variant, "seed": job.seed, "agent": job.agent,
                              "backend": job.backend, "tick": job.tick, "bundle": job.bundle}
    trace: Trace | None = None
    meta: dict[str, Any] = {}
    try:
        bundle = load_bundle(job.bundle)
        meta = dict(bundle.meta)
        derive_after = job.backend in DERIVES and needs_derivation(meta) and job.agent is None
        if job.backend in DERIVES and needs_derivation(meta) and job.agent is not None:
            try:  # a third-party file: score the agent on what the file implies (one run of the file's own ego)
                meta = derived_for_run(bundle, Path(job.out), job.variant, job.tick)
                bundle = dataclasses.replace(bundle, meta=meta)
                record["derived"] = meta.get("derived")
            except UserError:
                pass  # the file's own mistake: the run below reports it as invalid
            except Exception as e:  # noqa: BLE001 - the run still goes ahead, scored as before
                record["derived"] = {"error": f"deriving route and rules failed: {_why(e)}"}
        record["scenario"] = meta.get("scenario") or bundle.id
        options = dict(job.extra.get("backend_options") or {})
        if job.backend == "carla":
            options["record_dir"] = str(run_dir)  # CARLA's recorder file beside the trace
        if isinstance(meta.get("params"), dict):
            record["params"] = dict(meta["params"])  # a distribution's variant: the parameter values it ran with
        settings = SimSettings(tick=job.tick, stop_on_collision=bool(job.extra.get("stop_on_collision")))
        trace = run_episode(bundle, job.seed, job.agent, settings, job.backend,
                            deadline=start + job.timeout, trace_csv=job.trace_csv,
                            sensors=job.extra.get("sensors"),
                            save_sensors=run_dir / "sensors" if job.extra.get("save_sensors") else None,
                            agent_config=job.agent_config, backend_options=options)
        status, reason = "completed", ""
        if derive_after:  # this run is the file's own ego: derive from it, without a second run
            try:
                meta = meta_from_run(bundle, trace, scenario_map(bundle))
                store_derived(Path(job.out), job.variant, job.tick, meta)
                record["derived"] = meta.get("derived")
            except Exception as e:  # noqa: BLE001 - the run is still scored, on the file's bare meta
                record["derived"] = {"error": f"deriving route and rules failed: {_why(e)}"}
    except EpisodeError as e:
        status, reason, trace = e.status, e.reason, e.trace
    except Exception as e:  # noqa: BLE001 - load_bundle and anything unforeseen is the infrastructure's
        status, reason = "sim_error", _why(e)
    (run_dir / "meta.json").write_text(json.dumps(meta, indent=1))
    if trace is not None:
        trace.save(run_dir / "trace.json.gz")
        record["termination"] = trace.termination.value if trace.termination else None
        record["sim_time"] = trace.states[-1].time if trace.states else 0.0
        record["ticks"] = len(trace.states)
        if trace.info.get("carla_calls") is not None:
            record["carla_calls"] = trace.info["carla_calls"]
    if trace is not None and status in ("completed", "timeout"):
        try:
            ref, note = reference_trace(job, bundle) if status == "completed" else (None, None)
            score = score_run(trace, meta, ref, bundle)
            if note:
                score.setdefault("notes", []).append(note)
            write_json_atomic(run_dir / "score.json", score)
            record.update(record_fields(score))
            if status == "completed":
                why = _expectations(meta, score)
                if why:
                    status, reason = "failed", "; ".join(why)
        except Exception as e:  # noqa: BLE001 - a scoring bug is ours, not the agent's
            status, reason = "sim_error", f"scoring failed: {_why(e)}"
    record["status"] = status
    record["reason"] = reason
    record["infrastructure"] = status == "sim_error"
    record["wall_s"] = round(time.monotonic() - start, 3)
    return jsonable(record)
