"""The search loop: optuna asks for candidates in fixed batches, each candidate is an ordinary run, the store is told.

Candidates depend only on (scene, agent, objective, method, seed, batch): a batch is asked in full, run in any
order on any executor, and told in trial order once all of it has ended, so the local pool and Ray, with any
number of workers, see the same candidates. Every run is a line of OUT/results.jsonl with a `search` entry
(trial number, values, objective); a resumed search asks the same batches again, finds the recorded trials
there and tells them without running them, so a kill loses at most the runs in flight and repeats none.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from roadtest.dsl.search_space import Param, concrete_doc, minutes_to_time
from roadtest.errors import UserError

__all__ = ["METHODS", "OBJECTIVES", "DEFAULT_BATCH", "CAP", "SEARCH_FILE", "Spec", "Trial", "make_sampler",
           "objective_of", "run_search", "load_scene", "trials_in_store", "import_optuna"]

METHODS = ("tpe", "cmaes", "gp", "qmc", "random")
OBJECTIVES = ("robustness", "driving_score")
DEFAULT_BATCH = 4
CAP = 100.0  # |objective| is clipped here; a rule never in force counts as +CAP (far from broken)
SEARCH_FILE = "search.json"
RUN_SEED = 0  # every candidate runs with the simulator seed `roadtest run` uses by default, so its scenario reproduces


@dataclass(frozen=True)
class Spec:
    """The identity of a search: the same spec gives the same candidates. Budget is not part of it (it may grow)."""

    scene: str
    scene_sha: str
    name: str
    agents: tuple[str, ...]
    rule: str | None
    objective: str
    method: str
    seed: int
    batch: int
    tick: float
    params: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["agents"], d["params"] = list(self.agents), list(self.params)
        return d

    def differences(self, other: dict[str, Any]) -> list[str]:
        mine = json.loads(json.dumps(self.to_json()))
        return [f"{k}: {mine[k]!r} here, {other.get(k)!r} in the folder" for k in mine
                if k not in ("scene", "agents") and mine[k] != other.get(k)]


@dataclass
class Trial:
    """One evaluated candidate of one agent's study."""

    agent: str
    number: int
    values: dict[str, Any]
    run_id: str
    variant: str
    objective: float | None  # None: the run did not end normally (told as failed)
    broken: bool
    status: str
    violated: list[str] = field(default_factory=list)


def load_scene(path: Path):
    """(doc, scenario, params) of a scene with a search block; a scene without one is the user's mistake."""
    from roadtest.dsl.loader import parse_file, validate_reporting
    from roadtest.dsl.search_space import check_search, search_params

    doc = parse_file(path)
    problems = check_search(doc)
    scn = validate_reporting(doc, problems)
    if not scn.search:
        raise UserError(f"{path}: no search: block (expected `search:` with at least one field path and its range)")
    return doc, scn, search_params(doc, scn)


def import_optuna():
    """The optuna module, or a DependencyMissing naming the extra that brings it."""
    try:
        import optuna
    except ImportError as e:
        from roadtest.errors import DependencyMissing

        raise DependencyMissing("optuna (needed by roadtest search)", extra="search") from e
    return optuna


def make_sampler(method: str, seed: int, n_params: int, batch: int):
    """optuna's own sampler for a method name, seeded."""
    optuna = import_optuna()
    import warnings

    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # multivariate TPE, GP, QMC
    startup = max(2 * batch, 4)  # random candidates before the model takes over
    if method == "tpe":
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=n_params > 1)
    if method == "cmaes":  # CMA-ES needs two or more parameters; one is sampled by TPE instead
        try:
            import cmaes  # noqa: F401 - optuna's CmaEsSampler runs on it
        except ImportError as e:
            from roadtest.errors import DependencyMissing

            raise DependencyMissing("cmaes (needed by --method cmaes)", extra="search") from e
        return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=startup, warn_independent_sampling=False,
                                            independent_sampler=optuna.samplers.TPESampler(seed=seed,
                                                                                           n_startup_trials=startup))
    if method == "gp":
        return optuna.samplers.GPSampler(seed=seed, n_startup_trials=startup, deterministic_objective=True)
    if method == "qmc":
        return optuna.samplers.QMCSampler(qmc_type="sobol", scramble=True, seed=seed, warn_independent_sampling=False)
    if method == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise UserError(f"--method: expected one of {', '.join(METHODS)}, got {method!r}")


def _distributions(params: Sequence[Param]) -> dict[str, Any]:
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    out: dict[str, Any] = {}
    for p in params:
        if p.kind == "choice":
            plain = all(c is None or isinstance(c, (bool, int, float, str)) for c in p.choices)
            out[p.key] = CategoricalDistribution(list(p.choices) if plain else list(range(len(p.choices))))
        elif p.kind in ("int", "time"):
            out[p.key] = IntDistribution(int(p.low), int(p.high), step=int(p.step or 1))
        else:
            out[p.key] = FloatDistribution(p.low, p.high, log=p.log, step=p.step)
    return out


def _values(params: Sequence[Param], asked: dict[str, Any]) -> dict[str, Any]:
    """The sampler's values in the scene's YAML spelling (a time as 'HH:MM', a choice as written)."""
    out: dict[str, Any] = {}
    for p in params:
        v = asked[p.key]
        if p.kind == "time":
            v = minutes_to_time(v)
        elif p.kind == "choice" and not all(c is None or isinstance(c, (bool, int, float, str)) for c in p.choices):
            v = p.choices[int(v)]
        elif p.kind == "int":
            v = int(v)
        elif p.kind == "float":
            v = float(v)
        out[p.key] = v
    return out


def objective_of(rec: dict[str, Any], objective: str, rule: str | None) -> tuple[float | None, bool, list[str]]:
    """(value to minimise, broken, violated rule ids) of a run's record; value None when the run did not end normally.

    A rule's value is its quantitative margin where the monitor gives one, else its STL robustness; both are
    negative exactly when the rule is violated. driving_score: the composed score (0..100), broken when the run
    failed what the scene expects."""
    violated = [str(r.get("id")) for r in rec.get("rules") or [] if r.get("verdict") == "violated"]
    if rec.get("status") not in ("completed", "failed"):
        return None, False, violated
    if objective == "driving_score":
        ds = (rec.get("scores") or {}).get("score_composed")
        return (float(ds) if ds is not None else 0.0), rec.get("status") == "failed", violated

    def value(r: dict[str, Any]) -> float:
        v = r.get("margin") if r.get("margin") is not None else r.get("worst")
        return CAP if v is None or not math.isfinite(float(v)) else max(-CAP, min(CAP, float(v)))

    rules = rec.get("rules") or []
    if rule is not None:
        r = next((x for x in rules if x.get("id") == rule), None)
        return (CAP, False, violated) if r is None else (value(r), r.get("verdict") == "violated", violated)
    vals = [value(r) for r in rules if r.get("verdict") != "not_applicable"]
    return (min(vals) if vals else CAP), bool(violated), violated


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def variant_id(name: str, agent: str, number: int) -> str:
    from roadtest.runner.cli import run_id_for

    agent_part = run_id_for("x", 0, agent).split("__")[-1]
    return f"{name}--search-{_slug(agent_part)}-t{number:04d}"


def trials_in_store(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """(agent, trial number) -> record, for every search record in OUT/results.jsonl (the first of duplicates)."""
    from roadtest.runner.store import read_records

    found: dict[tuple[str, int], dict[str, Any]] = {}
    for rec in read_records(out):
        s = rec.get("search")
        if isinstance(s, dict) and "trial" in s:
            found.setdefault((str(s.get("agent")), int(s["trial"])), rec)
    return found


def _claim(out: Path, spec: Spec, recorded: int, resume: bool) -> None:
    path = out / SEARCH_FILE
    if path.exists():
        try:
            theirs = json.loads(path.read_text())
        except ValueError as e:
            raise UserError(f"{path}: unreadable ({e}); choose another --out") from e
        diff = spec.differences(theirs)
        if diff:
            raise UserError(f"{out}: holds another search ({'; '.join(diff)}); choose another --out")
        agents = list(dict.fromkeys(list(theirs.get("agents") or []) + list(spec.agents)))
        spec_json = {**spec.to_json(), "agents": agents}
    else:
        spec_json = spec.to_json()
        if (out / "results.jsonl").exists() and recorded == 0 and (out / "results.jsonl").stat().st_size:
            raise UserError(f"{out / 'results.jsonl'}: holds runs that are not this search's; choose another --out")
    if recorded and not resume:
        raise UserError(f"{out}: already holds {recorded} run(s) of this search; pass --resume to continue it, "
                        "or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".{SEARCH_FILE}.tmp"
    tmp.write_text(json.dumps(spec_json, indent=1))
    tmp.replace(path)


Executor = Callable[[list, Callable[[dict[str, Any]], None]], None]


def run_search(scene: Path, agents: Sequence[str], budget: int, out: Path, *, rule: str | None = None,
               objective: str = "robustness", method: str = "tpe", seed: int = 0, batch: int = DEFAULT_BATCH,
               workers: int = 1, executor: str | Executor = "local", address: str | None = None, resume: bool = False,
               tick: float = 0.05, timeout: float = 600.0, stop_on_violation: bool = False,
               quiet: bool = False, agent_config: Path | None = None) -> dict[str, list[Trial]]:
    """Search the scene for each agent in turn; return every agent's trials in trial order.

    `executor` is "local" (the runner pool, `workers` processes), "ray" (a Ray cluster at `address`, or a local
    one with `workers` CPUs), or a callable(jobs, on_result) that runs jobs some other way (tests)."""
    optuna = import_optuna()

    from roadtest.dsl.loader import Variant, validate_doc
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.runner.episode import Job
    from roadtest.runner.cli import run_id_for
    from roadtest.runner.store import append_record

    if budget < 1:
        raise UserError(f"--budget: expected at least 1 run, got {budget}")
    if batch < 1:
        raise UserError(f"--batch: expected at least 1, got {batch}")
    if objective not in OBJECTIVES:
        raise UserError(f"--objective: expected one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if method not in METHODS:
        raise UserError(f"--method: expected one of {', '.join(METHODS)}, got {method!r}")
    scene = Path(scene)
    doc, scn, params = load_scene(scene)
    if rule is not None and rule not in [r.id for r in scn.rules]:
        raise UserError(f"--rule {rule}: not among the scene's rules ({', '.join(r.id for r in scn.rules) or 'none'})")
    spec = Spec(scene=str(scene), scene_sha=hashlib.sha256(scene.read_bytes()).hexdigest()[:16], name=scn.name,
                agents=tuple(agents), rule=rule, objective=objective, method=method, seed=seed, batch=batch, tick=tick,
                params=tuple(p.to_json() for p in params))
    out = Path(out)
    stored = trials_in_store(out) if (out / "results.jsonl").exists() else {}
    _claim(out, spec, len(stored), resume)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = _distributions(params)
    ray_started = False
    if executor == "ray":
        from roadtest.runner.ray_executor import import_ray

        ray = import_ray()
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
            kwargs.update({"address": address} if address else {"num_cpus": workers})
            ray.init(**kwargs)
            ray_started = True
    result: dict[str, list[Trial]] = {}
    try:
        for agent in agents:
            study = optuna.create_study(direction="minimize", sampler=make_sampler(method, seed, len(params), batch))
            trials: list[Trial] = []
            result[agent] = trials
            while len(trials) < budget:
                asked = [study.ask(fixed_distributions=dists) for _ in range(min(batch, budget - len(trials)))]
                records: dict[int, dict[str, Any]] = {}
                jobs, values_of, vids = [], {}, {}
                for t in asked:
                    values = _values(params, t.params)
                    vid = variant_id(scn.name, agent, t.number)
                    values_of[t.number], vids[t.number] = values, vid
                    rec = stored.get((agent, t.number))
                    if rec is not None:
                        if json.loads(json.dumps(values)) != rec["search"].get("values"):
                            raise UserError(f"{out}: trial {t.number} of {agent} was run with {rec['search'].get('values')} "
                                            f"but this search asks {values}; the folder holds another search")
                        records[t.number] = rec
                        continue
                    cdoc = concrete_doc(doc, values, params)
                    variant = Variant(scenario=validate_doc(cdoc), id=vid, seed=validate_doc(cdoc).traffic.seed,
                                      sweep=values, source=scene)
                    bundle = write_bundle(variant, out / "bundles")
                    jobs.append(Job(run_id=run_id_for(vid, RUN_SEED, agent), bundle=str(bundle), variant=vid,
                                    seed=RUN_SEED, agent=agent, tick=tick, out=str(out), timeout=timeout,
                                    reference=False,
                                    agent_config=str(Path(agent_config).resolve()) if agent_config else None))
                number_of = {j.run_id: int(j.variant.rsplit("-t", 1)[1]) for j in jobs}

                def on_result(rec: dict[str, Any]) -> None:
                    n = number_of[rec["run_id"]]
                    value, broken, _ = objective_of(rec, objective, rule)
                    rec["search"] = {"agent": agent, "trial": n, "values": values_of[n], "objective": value,
                                     "broken": broken, "method": method, "seed": seed}
                    append_record(out, rec)
                    records[n] = rec
                    if not quiet:
                        mark = "BROKEN" if broken else "kept" if value is not None else rec.get("status")
                        shown = ", ".join(f"{k}={_show(v)}" for k, v in values_of[n].items())
                        print(f"  {agent} t{n:04d} {shown}: objective {_show(value)} {mark}", file=sys.stderr)

                if jobs:
                    if callable(executor):
                        executor(jobs, on_result)
                    elif executor == "ray":
                        from roadtest.runner.ray_executor import run_jobs_ray

                        run_jobs_ray(jobs, on_result)
                    else:
                        from roadtest.runner.pool import run_jobs

                        run_jobs(jobs, workers, on_result)
                for t in asked:  # told in trial order, whatever order the runs ended in
                    rec = records.get(t.number)
                    if rec is None:
                        raise UserError(f"trial {t.number}: its run gave no record")
                    value, broken, violated = objective_of(rec, objective, rule)
                    if value is None:
                        study.tell(t, state=optuna.trial.TrialState.FAIL)
                    else:
                        study.tell(t, value)
                    trials.append(Trial(agent=agent, number=t.number, values=values_of[t.number], run_id=rec["run_id"],
                                        variant=vids[t.number], objective=value, broken=broken,
                                        status=str(rec.get("status")), violated=violated))
                if stop_on_violation and any(tr.broken for tr in trials):
                    break
    finally:
        if ray_started:
            import ray

            ray.shutdown()
    _write_summary(out)
    return result


def _show(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _write_summary(out: Path) -> None:
    """OUT/summary.json over every run of the folder, as `roadtest run` writes it (the report reads it)."""
    from roadtest.runner.episode import write_json_atomic
    from roadtest.runner.store import read_records
    from roadtest.runner.summary import summarise

    records = list(read_records(out))
    if records:
        write_json_atomic(out / "summary.json", summarise(records, [r["run_id"] for r in records]))
