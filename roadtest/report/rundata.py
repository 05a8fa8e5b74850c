"""One run folder read back for the views: trace, meta, results line, map, reference, rule series.

Every view (clip, Rerun recording, report page) reads a run through `load_run`, so they agree on
what happened. The rules' robustness series are recomputed from the trace and meta (a pure
function), since results.jsonl keeps only verdicts and episodes.
"""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roadtest.errors import UserError
from roadtest.sim.api import Trace, WorldState

if TYPE_CHECKING:
    from roadtest.sim.road.network import RoadNetwork

__all__ = ["RunData", "load_run", "find_record", "read_results"]


@dataclass
class RunData:
    """Everything the views draw for one run; `rules` and `signals` are None when the monitors could not run."""

    run_dir: Path
    run_id: str
    trace: Trace
    meta: dict[str, Any]
    record: dict[str, Any]  # its results.jsonl line, {} when the run folder stands alone
    agent_records: list[dict[str, Any] | None]  # per agent output: the VLM agent's record (signs, reason, raw)
    network: RoadNetwork | None = None  # RoadNetwork or None without a map
    reference: Trace | None = None  # the expert's trace for the same variant and seed
    rules: list[Any] | None = None  # RuleResult per rule of meta.rules
    signals: Any = None  # rules.signals.Signals
    rules_error: str | None = None
    in_force: dict[str, list[bool]] = field(default_factory=dict)  # rule id -> per signal tick, its context holds
    _time_index: dict[float, int] = field(default_factory=dict, repr=False)
    _agent_times: list[float] = field(default_factory=list, repr=False)

    @property
    def states(self) -> list[WorldState]:
        return self.trace.states

    def ego_id(self) -> str | None:
        for st in self.trace.states:
            if st.ego is not None:
                return st.ego.id
        return None

    def signal_index(self, i: int) -> int | None:
        """Index into the signal/robustness series for state i (the series skip states without an ego)."""
        if self.signals is None:
            return None
        if not self._time_index:
            self._time_index = {round(t, 6): k for k, t in enumerate(self.signals.time)}
        return self._time_index.get(round(self.trace.states[i].time, 6))

    def agent_at(self, t: float) -> int | None:
        """Index of the last agent output at or before time t."""
        import bisect

        if len(self._agent_times) != len(self.trace.agent):
            self._agent_times = [a.time for a in self.trace.agent]
        k = bisect.bisect_right(self._agent_times, t + 1e-9) - 1
        return k if k >= 0 else None

    def limit_series(self) -> list[float]:
        """The limit in force (roadtest.limits: posted limit and the rules' fog, night and zone caps) per signal tick;
        signals extracted before it existed give their posted speed_limit."""
        return self.signals.values.get("limit_in_force") or self.signals["speed_limit"]

    def speed_limit_at(self, i: int) -> float | None:
        """Limit in force (m/s) at state i, None when unknown."""
        k = self.signal_index(i)
        if k is None:
            return None
        v = self.limit_series()[k]
        return None if v >= 999.0 or not math.isfinite(v) else v

    def violations(self) -> list[tuple[str, float, float]]:
        """(rule id, start s, duration s) of every violated stretch of a violated rule, in time order."""
        out = []
        for r in self.rules or []:
            if r.verdict == "violated":
                out += [(r.id, ep.start, ep.duration) for ep in r.episodes]
        return sorted(out, key=lambda v: v[1])

    def collisions(self) -> list[tuple[float, str, str]]:
        """(time, other actor, its kind) of every collision of the ego, in time order."""
        ego = self.ego_id()
        out = []
        for st in self.trace.states:
            for ev in st.events:
                if ev.kind == "collision" and ev.actor == ego:
                    out.append((st.time, str(ev.other), str(ev.data.get("other_kind", ""))))
        return out


def read_results(results_dir: Path) -> list[dict[str, Any]]:
    """Every whole line of RESULTS_DIR/results.jsonl."""
    from roadtest.runner.store import read_records

    return list(read_records(Path(results_dir)))


def find_record(run_dir: Path) -> dict[str, Any]:
    """The run's results.jsonl line, looked up in the results folder above runs/<id>/; {} if none."""
    results = run_dir.parent.parent
    for rec in read_results(results) if (results / "results.jsonl").exists() else []:
        if rec.get("run_id") == run_dir.name:
            return rec
    return {}


def _map_path(run_dir: Path, record: dict[str, Any], meta: dict[str, Any]) -> Path | None:
    candidates = [run_dir / "road.xodr"]
    if record.get("bundle"):
        b = Path(record["bundle"])
        candidates.append(b / "road.xodr" if b.suffix != ".xosc" else b.with_name("road.xodr"))
    variant = record.get("variant") or meta.get("id")
    if variant:
        candidates.append(run_dir.parent.parent / "bundles" / str(variant) / "road.xodr")
    return next((p for p in candidates if p.is_file()), None)


def _reference(run_dir: Path, record: dict[str, Any]) -> Trace | None:
    if not record.get("variant"):
        return None
    tick = record.get("tick", 0.05)
    path = run_dir.parent.parent / "reference" / f"{record['variant']}__s{record.get('seed', 0)}__t{tick:g}.trace.json.gz"
    if not path.is_file() or record.get("agent") == "expert":
        return None
    try:
        return Trace.load(path)
    except (OSError, ValueError, KeyError):
        return None


def load_run(run_dir: str | Path, with_map: bool = True, with_rules: bool = True) -> RunData:
    """Read OUT/runs/<id>/ (trace.json.gz, meta.json) plus what lies beside it; UserError for a folder that is not a run."""
    run_dir = Path(run_dir)
    trace_path = run_dir / "trace.json.gz"
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run folder (expected OUT/runs/<run id>/)")
    if not trace_path.is_file():
        raise UserError(f"{run_dir}: no trace.json.gz in it (expected a run folder written by `roadtest run`)")
    try:
        raw = json.loads(gzip.decompress(trace_path.read_bytes()))
        trace = Trace.from_dict(raw)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UserError(f"{trace_path}: not a readable trace ({type(e).__name__}: {e})") from e
    if not trace.states:
        raise UserError(f"{trace_path}: the trace holds no states (the run ended before its first tick)")
    meta_path = run_dir / "meta.json"
    try:
        meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    except ValueError as e:
        raise UserError(f"{meta_path}: not valid JSON ({e})") from e
    record = find_record(run_dir)
    agent_records = [a.get("record") if isinstance(a.get("record"), dict) else None for a in raw.get("agent", [])]
    run = RunData(run_dir=run_dir, run_id=record.get("run_id", run_dir.name), trace=trace, meta=meta, record=record,
                  agent_records=agent_records, reference=_reference(run_dir, record))
    if with_map:
        path = _map_path(run_dir, record, meta)
        if path is not None:
            from roadtest.sim.road.network import load_map

            run.network = load_map(path)
    if with_rules and meta:
        from roadtest.rules.evaluate import evaluate_rules, extract_signals, in_force_ticks
        from roadtest.rules.in_meta import rules_in_force

        try:
            run.signals = extract_signals(trace, meta)
            run.rules = evaluate_rules(trace, meta, signals=run.signals)
            rif = rules_in_force(meta)
            run.in_force = {r.id: in_force_ticks(rif[r.id], r.params, run.signals) for r in run.rules if r.id in rif}
        except UserError as e:
            run.rules, run.rules_error = None, str(e)
    return run
