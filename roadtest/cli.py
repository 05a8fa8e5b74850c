"""The `roadtest` command. Thin: each command imports its implementation lazily so --help stays fast.

Built on the standard library's argparse: a usage mistake prints the command's usage and one line saying
what is wrong, and exits 2. `main(argv) -> int` is the testable entry point; a UserError prints its
message and returns 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

from roadtest.errors import UserError

__all__ = ["main", "build_parser", "COMMANDS"]


class _Parser(argparse.ArgumentParser):
    """argparse with the usage error of the (sub)command that was given, not of the top level."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _convert(a: argparse.Namespace) -> int:
    if a.target.suffix == ".xosc":
        from roadtest.runner.xosc_suite import convert_xosc

        return convert_xosc(a.target, a.out)
    from roadtest.dsl.convert import convert_command

    return convert_command(a.target, a.out)


def _validate(a: argparse.Namespace) -> int:
    from roadtest.dsl.validate import validate_command

    return validate_command(a.paths)


def _schema(a: argparse.Namespace) -> int:
    from roadtest.dsl.schema import schema_json

    print(schema_json())
    return 0


def _map(a: argparse.Namespace) -> int:
    from roadtest.sim.road.draw import map_command

    return map_command(a.xodr, a.out)


def _run(a: argparse.Namespace) -> int:
    from roadtest.runner.cli import run_command

    return run_command(target=a.target, agent=a.agent, seeds=a.seeds, seed=a.seed, tick=a.tick, workers=a.workers,
                       out=a.out, resume=a.resume, trace_csv=a.trace_csv, timeout=a.timeout, backend=a.backend,
                       executor=a.executor, address=a.address, retries=a.retries, cameras=a.camera,
                       save_sensors=a.save_sensors, agent_config=a.agent_config,
                       backend_options=_carla_options(a), stop_on_collision=a.stop_on_collision, only=a.only)


def _search(a: argparse.Namespace) -> int:
    from roadtest.search.cli import search_command

    return search_command(scene=a.scene, agents=a.agent, rule=a.rule, objective=a.objective, budget=a.budget,
                          method=a.method, batch=a.batch, workers=a.workers, executor=a.executor, address=a.address,
                          out=a.out, resume=a.resume, seed=a.seed, tick=a.tick, timeout=a.timeout, map_=a.map,
                          clips=a.clips, stop_on_violation=a.stop_on_violation, agent_config=a.agent_config)


def _carla_options(a: argparse.Namespace) -> dict:
    """The --carla-* values given, as CarlaSimulator keyword arguments."""
    given = {"host": a.carla_host, "port": a.carla_port, "tm_port": a.carla_tm_port, "weather": a.carla_weather}
    return {k: v for k, v in given.items() if v is not None}


def _rules_list(a: argparse.Namespace) -> int:
    from roadtest.rules.cli import rules_list_command

    return rules_list_command()


def _rules_show(a: argparse.Namespace) -> int:
    from roadtest.rules.cli import rules_show_command

    return rules_show_command(a.rule_id)


def _rules_check(a: argparse.Namespace) -> int:
    from roadtest.rules.cli import rules_check_command

    return rules_check_command()


def _signs_gallery(a: argparse.Namespace) -> int:
    from roadtest.signs.gallery import gallery_command

    if a.officer:
        from roadtest.sim.embedded.render.officer_sheet import officer_sheet_command

        return officer_sheet_command(a.out)
    if not a.country:
        a._parser.error("--country is required (or --officer for the police officer's signals)")

    return gallery_command(a.country, a.out)


def _signs_list(a: argparse.Namespace) -> int:
    from roadtest.signs.gallery import list_command

    return list_command(a.country)


def _exam_build(a: argparse.Namespace) -> int:
    from roadtest.exam.build import build_command

    return build_command(a.target, a.out, seeds=a.seeds, seed=a.seed)


def _exam_run(a: argparse.Namespace) -> int:
    from roadtest.exam.take import run_command

    return run_command(a.exam, a.agent_config, a.out, judge=a.judge)


def _exam_compare(a: argparse.Namespace) -> int:
    from roadtest.exam.compare import compare_command

    return compare_command(a.exam_results, a.road_results, a.out)


def _compose(a: argparse.Namespace) -> int:
    from roadtest.dsl.compose import compose_command

    return compose_command(a.rule_ids, a.country, a.out)


def _replay(a: argparse.Namespace) -> int:
    if a.carla:
        from roadtest.report.carla_replay import carla_replay_command

        return carla_replay_command(a.run_dir, a.carla)
    if a.rerun:
        from roadtest.report.rerun_export import rerun_command

        return rerun_command(a.run_dir, a.out or Path("run.rrd"))
    from roadtest.report.video import replay_command

    return replay_command(a.run_dir, a.out or Path("clip.mp4"), a.at, a.views, a.fps, a.span)


def _report(a: argparse.Namespace) -> int:
    from roadtest.report.html import report_command

    return report_command(a.results_dir, a.out, a.clips)


def _add(sub: Any, name: str, run: Callable[[argparse.Namespace], int], help: str) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help, description=help)
    p.set_defaults(_run=run, _parser=p)
    return p


def build_parser() -> argparse.ArgumentParser:
    """Every command and its arguments; COMMANDS lists the same commands for tests and docs."""
    top = _Parser(prog="roadtest", description="roadtest: closed-loop road tests of driving agents under traffic rules.")
    top.set_defaults(_run=None, _parser=top)
    from roadtest import __version__

    top.add_argument("--version", action="version", version=f"roadtest {__version__}")
    sub = top.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)

    p = _add(sub, "convert", _convert, "Convert YAML scenarios (or an OpenSCENARIO ParameterValueDistribution) into bundles.")
    p.add_argument("target", type=Path, help="Scenario file, suite file, folder of scenarios or distribution .xosc.")
    p.add_argument("-o", "--out", type=Path, default=Path("build"), metavar="DIR",
                   help="Output folder: OUT/<variant id>/{road.xodr,scenario.xosc,meta.json} (default: build).")

    p = _add(sub, "validate", _validate,
             "Check files against the scenario schema, the ASAM XSDs and the ASAM checker; one line per problem.")
    p.add_argument("paths", type=Path, nargs="+", help="Scenario .yaml, .xosc or .xodr files.")

    _add(sub, "schema", _schema, "Print the JSON Schema of scenario files (for editor completion and validation).")

    p = _add(sub, "map", _map, "Draw an OpenDRIVE road: lanes by type, markings, junctions, signals, objects.")
    p.add_argument("xodr", type=Path, help="OpenDRIVE file.")
    p.add_argument("-o", "--out", type=Path, default=Path("map.png"), metavar="PNG", help="PNG to write (default: map.png).")

    p = _add(sub, "run", _run, "Run scenarios closed-loop and score them.")
    p.add_argument("target", type=Path, help="Scenario .yaml, suite, folder, bundle folder or .xosc.")
    p.add_argument("-a", "--agent", default=None, metavar="NAME",
                   help="Agent name (expert, lane-follower, idle, e2e-server, vlm; expert-ignore:RULE for the expert that ignores RULE) or path/file.py:Class. "
                        "Default: the ego under its scenario controller.")
    p.add_argument("--agent-config", type=Path, default=None, metavar="FILE",
                   help="The agent's config file (.yaml or .json), e.g. my_vlm.yaml for --agent vlm or uniad.yaml for --agent e2e-server.")
    p.add_argument("--only", default=None, metavar="PATTERN",
                   help="Only the variants whose id matches, as pytest's -k: words (case-insensitive substrings of the id) "
                        "with and, or, not, e.g. --only 'fog_dense and speed-20'.")
    p.add_argument("--seeds", type=int, default=1, metavar="N", help="Number of seeds per variant (seed, seed+1, ...; default 1).")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="First seed (default 0).")
    p.add_argument("--tick", type=float, default=0.05, metavar="SECONDS", help="Simulation tick in seconds (default 0.05).")
    p.add_argument("-j", "--workers", type=int, default=1, metavar="N", help="Parallel worker processes (default 1).")
    p.add_argument("-o", "--out", type=Path, default=None, metavar="DIR",
                   help="Results folder (default: a new results/<target>-<UTC time>/ for each invocation).")
    p.add_argument("--resume", action="store_true",
                   help="Continue the runs of the same plan already in OUT/results.jsonl.")
    p.add_argument("--trace-csv", type=Path, default=None, metavar="CSV",
                   help="Also write every entity's state each tick as CSV (single run).")
    p.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="Wall-clock limit per run in seconds (default 600).")
    p.add_argument("--stop-on-collision", action="store_true",
                   help="End each run at the ego's first collision (as Bench2Drive does); a scene can ask with expect.stop_on_collision.")
    p.add_argument("--backend", default="embedded", metavar="NAME", help="embedded or carla (default embedded).")
    p.add_argument("--carla-host", default=None, metavar="HOST[:PORT]",
                   help="CARLA server host, optionally with its RPC port (with --backend carla; default localhost).")
    p.add_argument("--carla-port", default=None, metavar="PORT[,PORT...]",
                   help="CARLA server RPC port (default 2000); several servers as 2000,2003,... (one per worker).")
    p.add_argument("--carla-tm-port", type=int, default=None, metavar="PORT",
                   help="CARLA Traffic Manager port (default 8000).")
    p.add_argument("--carla-weather", default=None, metavar="MAPPING",
                   help="Environment to CARLA weather: roadtest (default, the richer mapping) or scenario_runner.")
    p.add_argument("--executor", default="local", metavar="NAME",
                   help="local (worker processes on this machine, the default) or ray (a Ray cluster).")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="Ray cluster address (with --executor ray); default: start a local Ray with --workers CPUs.")
    p.add_argument("--retries", type=int, default=None, metavar="N",
                   help="With --executor ray: attempts after a lost worker before the run counts as an "
                        "infrastructure failure (default 2).")
    p.add_argument("--camera", action="append", default=None, metavar="RIG",
                   help="Attach cameras beside the agent's sensors: front, uniad (six 1600x900), bev, or a JSON/YAML "
                        "file of sensor specs. Repeatable.")
    p.add_argument("--save-sensors", action="store_true",
                   help="Save every rendered frame as PNG under OUT/runs/<run id>/sensors/<sensor id>/.")

    p = _add(sub, "search", _search, "Search a scene's search: parameters for rule violations; write each one found "
                                     "as a scenario.")
    p.add_argument("scene", type=Path, help="Scenario .yaml with a search: block.")
    p.add_argument("-a", "--agent", action="append", required=True, metavar="NAME",
                   help="Agent to search against (as for run); repeat for a search per agent in the same folder.")
    p.add_argument("--agent-config", type=Path, default=None, metavar="FILE", help="The agent's config file (as for run).")
    p.add_argument("--rule", default=None, metavar="ID", help="Minimise this rule's robustness (default: the least over "
                                                                "the scene's rules).")
    p.add_argument("--objective", default="robustness", metavar="NAME",
                   help="robustness (default: a rule's margin or STL robustness) or driving_score.")
    p.add_argument("--budget", type=int, default=50, metavar="N", help="Runs per agent (default 50).")
    p.add_argument("--method", default=None, metavar="NAME",
                   help="optuna sampler: tpe (default), cmaes, gp, qmc (Sobol; the default with --map) or random.")
    p.add_argument("--batch", type=int, default=4, metavar="N",
                   help="Candidates asked together (default 4); fixed, so -j and the executor never change them.")
    p.add_argument("-j", "--workers", type=int, default=1, metavar="N", help="Parallel worker processes (default 1).")
    p.add_argument("--executor", default="local", metavar="NAME", help="local (default) or ray.")
    p.add_argument("--address", default=None, metavar="ADDR", help="Ray cluster address (with --executor ray).")
    p.add_argument("-o", "--out", type=Path, default=None, metavar="DIR",
                   help="Results folder (default: a new results/<scene>-search-<UTC time>/).")
    p.add_argument("--resume", action="store_true", help="Continue the search recorded in --out.")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="Sampler seed (default 0): same seed, same candidates.")
    p.add_argument("--tick", type=float, default=0.05, metavar="SECONDS", help="Simulation tick (default 0.05).")
    p.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="Wall-clock limit per run (default 600).")
    p.add_argument("--map", action="store_true",
                   help="Estimate the kept/broken boundary of each searched parameter, with a 95 %% interval.")
    p.add_argument("--clips", action="store_true", help="Render a clip of each counterexample at its violation.")
    p.add_argument("--stop-on-violation", action="store_true", help="End each agent's search after the first batch "
                                                                    "with a violation.")

    rules = _add(sub, "rules", lambda a: a._parser.error("a subcommand is required (list, show, check)"),
                 "The atomic traffic-rule catalogue.")
    rsub = rules.add_subparsers(title="subcommands", metavar="SUBCOMMAND", parser_class=_Parser)
    _add(rsub, "list", _rules_list, "List the rule catalogue.")
    p = _add(rsub, "show", _rules_show, "Show one rule in full.")
    p.add_argument("rule_id", help="Rule id, e.g. red_light.")
    _add(rsub, "check", _rules_check, "Check every rule record of the catalogue.")

    signs = _add(sub, "signs", lambda a: a._parser.error("a subcommand is required (gallery, list)"),
                 "Traffic-sign faces per country and their catalogue.")
    ssub = signs.add_subparsers(title="subcommands", metavar="SUBCOMMAND", parser_class=_Parser)
    p = _add(ssub, "gallery", _signs_gallery,
             "Draw every sign face of one country on a sheet, labelled with sign ids and OpenDRIVE codes.")
    p.add_argument("--country", default=None, metavar="CC", help="ISO 3166 alpha-2 code: CN, DE, FR, GB, JP or US.")
    p.add_argument("--officer", action="store_true",
                   help="Instead: the police officer's hand signals (none, stop, go) as the built-in camera renders them.")
    p.add_argument("-o", "--out", type=Path, default=Path("gallery.png"), metavar="PNG", help="PNG to write (default gallery.png).")
    p = _add(ssub, "list", _signs_list, "List every (country, sign) face: OpenDRIVE type/subtype, shape, the rules it puts in play.")
    p.add_argument("--country", default=None, metavar="CC", help="Only this country.")

    exam = _add(sub, "exam", lambda a: a._parser.error("a subcommand is required (build, run, compare)"),
                "The written exam on the road test's own scenes, and the two side by side.")
    esub = exam.add_subparsers(title="subcommands", metavar="SUBCOMMAND", parser_class=_Parser)
    p = _add(esub, "build", _exam_build, "Drive each scene with the expert and write sign, action and open questions on its frames.")
    p.add_argument("target", type=Path, help="Scenario, suite or folder: the scenes of the exam.")
    p.add_argument("-o", "--out", type=Path, required=True, metavar="DIR",
                   help="Exam folder: exam.jsonl (LLaVA/ShareGPT layout) and images/.")
    p.add_argument("--seeds", type=int, default=1, metavar="N", help="Seeds per variant (default 1).")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="First seed (default 0).")
    p = _add(esub, "run", _exam_run, "Put the exam to a model and score it per level, rule, country, weather and light.")
    p.add_argument("exam", type=Path, help="Exam folder written by `roadtest exam build`.")
    p.add_argument("--agent-config", type=Path, default=None, metavar="YAML",
                   help="The VLM agent's config: backend and model (default: the builtin backend, an offline baseline that is not a VLM).")
    p.add_argument("-o", "--out", type=Path, required=True, metavar="DIR", help="Results folder: answers.jsonl and summary.json.")
    p.add_argument("--judge", action="store_true", help="Grade open answers with the same model (marked in the results).")
    p = _add(esub, "compare", _exam_compare, "Knows the rule / follows it on the road: the four cells per rule and per level.")
    p.add_argument("exam_results", type=Path, help="Results folder of `roadtest exam run`.")
    p.add_argument("road_results", type=Path, help="Results folder of `roadtest run` on the same suite.")
    p.add_argument("-o", "--out", type=Path, default=None, metavar="JSON", help="JSON to write (default EXAM_RESULTS/compare.json).")

    p = _add(sub, "replay", _replay, "Replay a run: a video clip, a Rerun recording, or the CARLA recorder file on a server.")
    p.add_argument("run_dir", type=Path, help="Run folder: OUT/runs/<run id>/.")
    p.add_argument("-o", "--out", type=Path, default=None, metavar="FILE",
                   help="Clip .mp4 (default clip.mp4), or .rrd with --rerun (default run.rrd).")
    p.add_argument("--at", default=None, metavar="WHEN",
                   help="violation, collision or a time in s: clips from 5 s before to 2 s after; default the whole run.")
    p.add_argument("--views", default=None, metavar="LIST",
                   help="Comma-separated views: bev, a saved sensor id, or a camera rig (front, uniad) to re-render. "
                        "Default: bev and every saved camera view.")
    p.add_argument("--fps", type=float, default=None, metavar="F", help="Frames per second (default: the trace's rate).")
    p.add_argument("--span", type=float, default=80.0, metavar="METRES",
                   help="Metres the bird's-eye view covers (default 80).")
    p.add_argument("--rerun", action="store_true", help="Write a Rerun recording (.rrd) instead of a clip.")
    p.add_argument("--carla", default=None, metavar="HOST:PORT",
                   help="Replay the run's CARLA recorder file on that server.")

    p = _add(sub, "report", _report, "Write one static HTML page of a suite's results: table, figures, per-run plots and clips.")
    p.add_argument("results_dir", type=Path, help="Results folder of `roadtest run` (results.jsonl, runs/).")
    p.add_argument("-o", "--out", type=Path, default=Path("report.html"), metavar="HTML",
                   help="HTML page to write; its files go beside it in <name>_files/ (default report.html).")
    p.add_argument("--clips", action="store_true",
                   help="Also render each run's clip (its first violation, else the whole run).")

    p = _add(sub, "compose", _compose, "Write a scenario whose scene satisfies every composed rule's context.")
    p.add_argument("rule_ids", nargs="+", help="Rule ids to compose into one scene.")
    p.add_argument("--country", default="CN", metavar="CC", help="ISO 3166 alpha-2 country code (default CN).")
    p.add_argument("-o", "--out", type=Path, default=Path("scenario.yaml"), metavar="YAML",
                   help="Scenario YAML to write (default scenario.yaml).")
    return top


COMMANDS = ("convert", "validate", "schema", "map", "run", "search", "rules list", "rules show", "rules check", "signs gallery",
            "signs list", "exam build", "exam run", "exam compare", "replay", "report", "compose")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; return the exit code (2 for a user's mistake)."""
    parser = build_parser()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        parser.print_help(sys.stderr)
        return 2
    try:
        ns, extra = parser.parse_known_args(args)
        if extra:
            ns._parser.error(f"unrecognized arguments: {' '.join(extra)}")
        if ns._run is None:
            parser.error("a command is required")
        return int(ns._run(ns) or 0)
    except SystemExit as e:  # argparse: --help (0) and usage errors (2)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except UserError as e:
        print(str(e), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
