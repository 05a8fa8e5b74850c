"""`roadtest run`: expand the target into (variant, seed, agent) runs, run them in workers, store and summarise."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from roadtest.errors import UserError
from roadtest.names import disk_name
from roadtest.runner.episode import Job
from roadtest.runner.plan import Plan, claim_folder, new_results_folder
from roadtest.runner.store import RESULTS, append_record, check_writable, done_ids, read_records

__all__ = ["run_command", "expand", "write_bundles", "resolve_target", "plan_jobs", "run_id_for", "id_matcher",
           "select_variants"]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def run_id_for(variant: str, seed: int, agent: str | None) -> str:
    """Stable run id: <variant>__s<seed>__<agent> (the agent's file stem and class for a file spec), bounded in
    length for the file system (the record keeps the full variant)."""
    if agent is None:
        name = "scenario"
    elif ".py" in agent or "/" in agent:
        path, _, cls = agent.partition(".py")
        name = Path(path).name + (("-" + cls.lstrip(":")) if cls.strip(":") else "")
    else:
        name = agent
    return disk_name(f"{_slug(variant)}__s{seed}__{_slug(name)}")  # a long one: cut and hashed (names.py)


RESULT_FILE = ".result.json"  # a worker's record beside its run, until the parent has appended it


def _run_dir(out: Path, run_id: str) -> Path:
    return Path(out) / "runs" / run_id


OWN_FOLDERS = ("runs", "bundles", "reference", "derived")  # what roadtest writes below OUT


def check_run_folders(out: Path, run_ids: "set[str] | list[str]") -> None:
    """UserError unless OUT's own folders and each planned OUT/runs/<run id> (where they exist) are real folders
    inside OUT: a run never writes through a link into some other folder."""
    root = Path(out).resolve()
    for path in [Path(out) / name for name in OWN_FOLDERS] + [_run_dir(out, r) for r in sorted(run_ids)]:
        if path.is_symlink():
            raise UserError(f"{path}: is a link (to {os.readlink(path)}); a run writes only inside its results "
                            "folder: remove the link")
        if path.exists() and (not path.is_dir() or root not in path.resolve().parents):
            raise UserError(f"{path}: expected a folder inside {out}")


def salvage_records(out: Path, jobs: list[Job]) -> set[str]:
    """Append the records a previous invocation collected but could not store (OUT/runs/<id>/.result.json of a
    planned run not in results.jsonl); the run ids so recovered."""
    import json

    saved = set()
    for job in jobs:
        path = _run_dir(out, job.run_id) / RESULT_FILE
        if not path.is_file():
            continue
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(rec, dict) and rec.get("run_id") == job.run_id and rec.get("kept"):
            rec.pop("kept")
            append_record(out, rec)
            path.unlink()
            saved.add(job.run_id)
    return saved


def keep_record(out: Path, record: dict[str, Any]) -> None:
    """Leave a record that could not be appended beside its run (marked `kept`), for --resume to append."""
    from roadtest.runner.episode import write_json_atomic

    folder = _run_dir(out, str(record.get("run_id")))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_json_atomic(folder / RESULT_FILE, {**record, "kept": True})
    except OSError:
        pass


def _write_variant(v: Any, folder: Path) -> Path:
    from roadtest.runner.xosc_suite import XoscVariant

    if isinstance(v, XoscVariant):
        return v.write(folder)
    from roadtest.dsl.bundle_writer import write_bundle

    res = write_bundle(v, folder)
    if isinstance(res, (str, Path)):
        return Path(res)
    if hasattr(res, "root"):
        return Path(res.root)
    return folder / str(v.id)


def expand(target: Path) -> list[tuple[str, Any]]:
    """(variant id, bundle path or variant to write) for a bundle, an .xosc (a distribution gives one variant per
    concrete scenario), a folder of bundles, or YAML; writes nothing."""
    from roadtest.bundle import load_bundle

    p = Path(target)
    if not p.exists():
        raise UserError(f"{p}: no such file or folder (expected a scenario .yaml, suite, folder, bundle or .xosc)")
    if p.suffix == ".xosc" and p.is_file():
        from roadtest.runner.xosc_suite import expand_xosc

        variants = expand_xosc(p)  # a distribution is a suite of concrete scenarios; a catalog is refused
        if variants is not None:
            return [(v.id, v) for v in variants]
    if p.suffix == ".xosc" or (p.is_dir() and (p / "scenario.xosc").exists()):
        b = load_bundle(p)
        return [(b.id, str(p))]
    if p.is_dir():
        subs = sorted(d for d in p.iterdir() if d.is_dir() and (d / "scenario.xosc").exists())
        if subs and not any(p.glob("*.yaml")) and not any(p.glob("*.yml")):
            return [(load_bundle(d).id, str(d)) for d in subs]
    from roadtest.dsl.suite import expand_target

    return [(str(v.id), v) for v in expand_target(p)]


_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


def id_matcher(pattern: str) -> Any:
    """A predicate on variant ids from an expression as pytest's -k takes it: words matched case-insensitively as
    substrings, combined with and, or, not and parentheses ("fog_dense and not speed-30")."""
    tokens = [t for t in _TOKEN.findall(pattern)]
    pos = 0

    def bad(why: str) -> UserError:
        return UserError(f"--only {pattern!r}: {why} (expected words of variant ids joined by and, or, not, parentheses)")

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def either():
        parts = [both()]
        while peek() == "or":
            take()
            parts.append(both())
        return lambda name: any(p(name) for p in parts)

    def both():
        parts = [negation()]
        while peek() == "and":
            take()
            parts.append(negation())
        return lambda name: all(p(name) for p in parts)

    def negation():
        t = peek()
        if t is None:
            raise bad("ends where a word was expected")
        take()
        if t == "not":
            inner = negation()
            return lambda name: not inner(name)
        if t == "(":
            inner = either()
            if peek() != ")":
                raise bad("a '(' is not closed")
            take()
            return inner
        if t in (")", "and", "or"):
            raise bad(f"unexpected {t!r}")
        word = t.lower()
        return lambda name: word in name.lower()

    if not tokens:
        raise bad("empty")
    match = either()
    if pos != len(tokens):
        raise bad(f"unexpected {tokens[pos]!r}")
    return match


def select_variants(items: list[tuple[str, Any]], pattern: str | None) -> list[tuple[str, Any]]:
    """The items whose variant id matches `pattern` (id_matcher); all of them without one; none matching is an error."""
    if pattern is None:
        return items
    match = id_matcher(pattern)
    chosen = [it for it in items if match(it[0])]
    if not chosen:
        ids = ", ".join(v for v, _ in items[:20]) + (", ..." if len(items) > 20 else "")
        raise UserError(f"--only {pattern!r}: no variant id of the target matches (its variant ids: {ids})")
    return chosen


def write_bundles(items: list[tuple[str, Any]], out: Path) -> list[tuple[str, str]]:
    """(variant id, bundle path): YAML variants are written to OUT/bundles/, bundles on disk stay where they are."""
    folder = Path(out) / "bundles"
    res = []
    for vid, item in items:
        if not isinstance(item, str):
            folder.mkdir(parents=True, exist_ok=True)
            item = str(_write_variant(item, folder))
        res.append((vid, item))
    return res


def resolve_target(target: Path, out: Path) -> list[tuple[str, str]]:
    """(variant id, bundle path) for a bundle, an .xosc, a folder of bundles, or YAML (written to OUT/bundles/)."""
    return write_bundles(expand(target), out)


def plan_jobs(bundles: list[tuple[str, str]], agent: str | None, seeds: int, seed: int, tick: float, out: Path,
              timeout: float, backend: str, trace_csv: Path | None = None,
              extra: dict[str, Any] | None = None, agent_config: Path | None = None) -> list[Job]:
    """Every (variant, seed, agent) run, in target order then seed order; `extra` (attached sensors, saving,
    server limits, the backend's options) goes to every job."""
    jobs = []
    for variant, path in bundles:
        for s in range(seed, seed + seeds):
            jobs.append(Job(run_id=run_id_for(variant, s, agent), bundle=path, variant=variant, seed=s, agent=agent,
                            tick=tick, out=str(out), timeout=timeout, backend=backend,
                            trace_csv=str(trace_csv) if trace_csv else None, extra=dict(extra or {}),
                            agent_config=str(Path(agent_config).resolve()) if agent_config else None))
    return jobs


EXECUTORS = ("local", "ray")


def _check(seeds: int, tick: float, workers: int, timeout: float, backend: str, executor: str = "local") -> None:
    from roadtest.sim.backends import BACKENDS

    if seeds < 1:
        raise UserError(f"--seeds: expected at least 1, got {seeds}")
    if not tick > 0:
        raise UserError(f"--tick: expected a positive number of seconds, got {tick}")
    if workers < 1:
        raise UserError(f"--workers: expected at least 1, got {workers}")
    if not timeout > 0:
        raise UserError(f"--timeout: expected a positive number of seconds, got {timeout}")
    if backend not in BACKENDS and ":" not in backend:
        raise UserError(f"--backend: expected one of {sorted(BACKENDS)}, got {backend!r}")
    if executor not in EXECUTORS:
        raise UserError(f"--executor: expected one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "ray":
        from roadtest.runner.ray_executor import import_ray

        import_ray()


def run_command(target: Path, agent: str | None, seeds: int, seed: int, tick: float, workers: int, out: Path | None,
                resume: bool, trace_csv: Path | None, timeout: float, backend: str, executor: str = "local",
                address: str | None = None, retries: int | None = None, cameras: list[str] | None = None,
                save_sensors: bool = False, agent_config: Path | None = None,
                 backend_options: dict[str, Any] | None = None, stop_on_collision: bool = False,
                 only: str | None = None) -> int:
    """Run every planned run not yet recorded; 0 when all ran to their end (completed or failed), 2 when a
    scenario file was invalid (the others still run), else 1. Without `out`, a new results/<target>-<UTC time>/.

    `cameras` names rigs (roadtest.sim.embedded.render.rigs) attached beside the agent's sensors;
    `save_sensors` writes every image reading to OUT/runs/<run id>/sensors/<sensor id>/<frame>.png;
    `agent_config` is the agent's config file; `stop_on_collision` ends every run at the ego's first collision;
    `only` keeps the variants whose id matches it (as pytest's -k)."""
    limits: dict[str, Any] = {}
    from roadtest.runner.pool import run_jobs
    from roadtest.runner.summary import Progress, write_summary

    _check(seeds, tick, workers, timeout, backend, executor)
    if backend_options and backend != "carla":
        raise UserError(f"--carla-*: only with --backend carla, not {backend!r}")
    from roadtest.sim.backends import simulator_class

    simulator_class(backend).preflight(**(backend_options or {}))  # an unreachable server: exit 2 before any run
    if agent:
        from roadtest.agents.registry import agent_class

        from roadtest.runner.episode import check_agent_sensors

        cls = agent_class(agent)  # an unknown agent is the user's mistake: say so before starting workers
        if agent_config is not None and hasattr(cls, "check_config"):
            cls.check_config(agent_config)
        if agent_config is not None and hasattr(cls, "server_scope"):  # at most max_concurrency runs per model server
            from roadtest.runner.limits import server_limit

            limits = server_limit(cls.server_scope(agent_config))
        check_agent_sensors(agent, backend, agent_config)  # and so is a sensor the backend cannot provide
    elif agent_config is not None:
        raise UserError("--agent-config: needs --agent")
    if resume and out is None:
        raise UserError("--resume: expected --out DIR, the results folder whose runs to continue")
    if only is not None:
        id_matcher(only)  # a malformed pattern is a mistake before anything is expanded
    items = select_variants(expand(Path(target)), only)
    plan = Plan(target=str(target), variants=tuple(v for v, _ in items), seeds=tuple(range(seed, seed + seeds)),
                agent=agent, tick=tick, backend=backend)
    planned = {run_id_for(v, s, agent) for v in plan.variants for s in plan.seeds}
    if trace_csv and len(planned) != 1:
        raise UserError(f"--trace-csv: expected a single run, the target gives {len(planned)}")
    if out is None:
        out = new_results_folder(Path(target))
        existing: set[str] = set()
    else:
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise UserError(f"--out {out}: is a file, expected a results folder (a new or an existing one)")
        existing = done_ids(out)
    claim_folder(out, plan, existing, planned, resume)
    check_writable(out)  # an unwritable store is refused now, not after the runs
    check_run_folders(out, planned - existing)  # before any bundle or run is written below OUT
    print(f"roadtest: results in {out}", file=sys.stderr)
    extra: dict[str, Any] = dict(limits)
    if cameras:
        from roadtest.sim.embedded.render.rigs import rig_specs

        extra["sensors"] = [s for name in cameras for s in rig_specs(name)]
    if save_sensors:
        extra["save_sensors"] = True
    if backend_options:
        extra["backend_options"] = dict(backend_options)
    if stop_on_collision:
        extra["stop_on_collision"] = True
    jobs = plan_jobs(write_bundles(items, out), agent, seeds, seed, tick, out, timeout, backend, trace_csv, extra,
                     agent_config)
    todo = [j for j in jobs if j.run_id not in existing]
    existing |= salvage_records(out, todo)
    todo = [j for j in todo if j.run_id not in existing]
    skipped = len(jobs) - len(todo)
    try:
        with Progress(len(todo), skipped) as bar:
            def on_result(rec: dict[str, Any]) -> None:
                try:
                    append_record(out, rec)
                except OSError as e:
                    keep_record(out, rec)
                    raise UserError(f"{out / RESULTS}: cannot append the record of {rec.get('run_id')} "
                                    f"({e.strerror or e}); it is kept in runs/<run id>/.result.json and --resume "
                                    "appends it") from None
                bar.advance(rec)

            if executor == "ray":
                from roadtest.runner.ray_executor import DEFAULT_RETRIES, run_jobs_ray

                run_jobs_ray(todo, on_result, address=address, num_cpus=None if address else workers,
                             retries=DEFAULT_RETRIES if retries is None else retries)
            else:
                run_jobs(todo, workers, on_result)
    except KeyboardInterrupt:
        done = len(done_ids(out) & {j.run_id for j in jobs})
        print(f"roadtest: interrupted; {done} of {len(jobs)} run(s) recorded in {out / 'results.jsonl'}. "
              f"The same command with --out {out} --resume runs the rest.", file=sys.stderr)
        return 130
    planned = {j.run_id for j in jobs}
    records = [r for r in read_records(out) if r["run_id"] in planned]
    summary = write_summary(out, records, [j.run_id for j in jobs])
    bad = [r for r in records if r.get("status") not in ("completed", "failed")]
    if skipped:
        print(f"resumed: {skipped} run(s) already in {out / 'results.jsonl'} skipped", file=sys.stderr)
    invalid = [r for r in records if r.get("status") == "invalid"]
    for r in invalid:
        print(f"roadtest: {r['run_id']}: {r.get('reason', '')}", file=sys.stderr)
    return 2 if invalid else 1 if bad or summary["missing"] else 0
