"""`roadtest run`: expand the target into (variant, seed, agent) runs, run them in workers, store and summarise."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from roadtest.errors import UserError
from roadtest.runner.episode import Job
from roadtest.runner.plan import Plan, claim_folder, new_results_folder
from roadtest.runner.store import append_record, done_ids, read_records

__all__ = ["run_command", "expand", "write_bundles", "resolve_target", "plan_jobs", "run_id_for", "id_matcher",
           "select_variants"]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def run_id_for(variant: str, seed: int, agent: str | None) -> str:
    """Stable run id: <variant>__s<seed>__<agent> (the agent's file stem and class for a file spec)."""
    if agent is None:
        name = "scenario"
    elif ".py" in agent or "/" in agent:
        path, _, cls = agent.partition(".py")
        name = Path(path).name + (("-" + cls.lstrip(":")) if cls.strip(":") else "")
    else:
        name = agent
    return f"{_slug(variant)}__s{seed}__{_slug(name)}"


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
    try:
        from roadtest.dsl.suite import expand_target
    except ImportError as e:
        raise UserError(f"{p}: YAML scenarios need roadtest.dsl, which is not available ({e})") from e
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
    from roadtest.runner.episode import BACKENDS

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
                backend_options: dict[str, Any] | None = None, only: str | None = None) -> int:
    """Run every planned run not yet recorded; 0 when all ran to their end (completed or failed), 2 when a
    scenario file was invalid (the others still run), else 1. Without `out`, a new results/<target>-<UTC time>/.

    `cameras` names rigs (roadtest.sim.embedded.render.rigs) attached beside the agent's sensors;
    `save_sensors` writes every image reading to OUT/runs/<run id>/sensors/<sensor id>/<frame>.png;
    `agent_config` is the agent's config file; `only` keeps the variants whose id matches it (as pytest's -k)."""
    limits: dict[str, Any] = {}
    from roadtest.runner.pool import run_jobs
    from roadtest.runner.summary import Progress, write_summary

    _check(seeds, tick, workers, timeout, backend, executor)
    if backend_options and backend != "carla":
        raise UserError(f"--carla-*: only with --backend carla, not {backend!r}")
    from roadtest.runner.episode import simulator_class

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
        existing = done_ids(out)
    claim_folder(out, plan, existing, planned, resume)
    print(f"roadtest: results in {out}", file=sys.stderr)
    extra: dict[str, Any] = dict(limits)
    if cameras:
        from roadtest.sim.embedded.render.rigs import rig_specs

        extra["sensors"] = [s for name in cameras for s in rig_specs(name)]
    if save_sensors:
        extra["save_sensors"] = True
    if backend_options:
        extra["backend_options"] = dict(backend_options)
    jobs = plan_jobs(write_bundles(items, out), agent, seeds, seed, tick, out, timeout, backend, trace_csv, extra,
                     agent_config)
    todo = [j for j in jobs if j.run_id not in existing]
    skipped = len(jobs) - len(todo)
    try:
        with Progress(len(todo), skipped) as bar:
            def on_result(rec: dict[str, Any]) -> None:
                append_record(out, rec)
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
