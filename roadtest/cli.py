"""The `roadtest` command. Thin: each command imports its implementation lazily so --help stays fast.

`main(argv) -> int` is the testable entry point; a UserError prints its message and returns 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from roadtest.errors import UserError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="roadtest: closed-loop road tests of driving agents under traffic rules.",
    pretty_exceptions_enable=False,
)
rules_app = typer.Typer(no_args_is_help=True, help="The atomic traffic-rule catalogue.")
app.add_typer(rules_app, name="rules")
exam_app = typer.Typer(no_args_is_help=True, help="The written exam on the road test's own scenes, and the two side by side.")
app.add_typer(exam_app, name="exam")


class _Exit(Exception):
    def __init__(self, code: int):
        self.code = code


def _done(code: int) -> None:
    if code:
        raise _Exit(code)


@app.command()
def convert(
    target: Path = typer.Argument(..., help="Scenario file, suite file or folder of scenarios."),
    out: Path = typer.Option(Path("build"), "-o", "--out", help="Output folder: OUT/<variant id>/{road.xodr,scenario.xosc,meta.json}."),
) -> None:
    """Convert YAML scenarios into OpenDRIVE + OpenSCENARIO bundles."""
    from roadtest.dsl.convert import convert_command

    _done(convert_command(target, out))


@app.command()
def validate(paths: List[Path] = typer.Argument(..., help="Scenario .yaml, .xosc or .xodr files.")) -> None:
    """Check files against the scenario schema, the ASAM XSDs and the ASAM checker; one line per problem."""
    from roadtest.dsl.validate import validate_command

    _done(validate_command(paths))


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files (for editor completion and validation)."""
    from roadtest.dsl.schema import schema_json

    typer.echo(schema_json())


@app.command("map")
def map_(
    xodr: Path = typer.Argument(..., help="OpenDRIVE file."),
    out: Path = typer.Option(Path("map.png"), "-o", "--out", help="PNG to write."),
) -> None:
    """Draw an OpenDRIVE road: lanes by type, markings, junctions, signals, objects."""
    from roadtest.sim.road.draw import map_command

    _done(map_command(xodr, out))


@app.command()
def run(
    target: Path = typer.Argument(..., help="Scenario .yaml, suite, folder, bundle folder or .xosc."),
    agent: Optional[str] = typer.Option(None, "--agent", "-a", help="Agent name (expert, lane-follower, idle) or path/file.py:Class. Default: the ego under its scenario controller."),
    seeds: int = typer.Option(1, "--seeds", help="Number of seeds per variant (seed, seed+1, ...)."),
    seed: int = typer.Option(0, "--seed", help="First seed."),
    tick: float = typer.Option(0.05, "--tick", help="Simulation tick in seconds."),
    workers: int = typer.Option(1, "--workers", "-j", help="Parallel worker processes."),
    out: Path = typer.Option(Path("results"), "--out", "-o", help="Results folder."),
    resume: bool = typer.Option(False, "--resume", help="Skip runs already in OUT/results.jsonl."),
    trace_csv: Optional[Path] = typer.Option(None, "--trace-csv", help="Also write every entity's state each tick as CSV (single run)."),
    timeout: float = typer.Option(600.0, "--timeout", help="Wall-clock limit per run in seconds."),
    backend: str = typer.Option("embedded", "--backend", help="embedded or carla."),
    executor: str = typer.Option("local", "--executor", help="local (worker processes on this machine) or ray (a Ray cluster)."),
    address: Optional[str] = typer.Option(None, "--address", help="Ray cluster address (with --executor ray); default: start a local Ray with --workers CPUs."),
    retries: Optional[int] = typer.Option(None, "--retries", help="With --executor ray: attempts after a lost worker before the run counts as an infrastructure failure (default 2)."),
) -> None:
    """Run scenarios closed-loop and score them."""
    from roadtest.runner.cli import run_command

    _done(run_command(target=target, agent=agent, seeds=seeds, seed=seed, tick=tick, workers=workers,
                      out=out, resume=resume, trace_csv=trace_csv, timeout=timeout, backend=backend,
                      executor=executor, address=address, retries=retries))


@rules_app.command("list")
def rules_list() -> None:
    """List the rule catalogue."""
    from roadtest.rules.cli import rules_list_command

    _done(rules_list_command())


@rules_app.command("show")
def rules_show(rule_id: str = typer.Argument(...)) -> None:
    """Show one rule in full."""
    from roadtest.rules.cli import rules_show_command

    _done(rules_show_command(rule_id))


@rules_app.command("check")
def rules_check() -> None:
    """Check every rule record of the catalogue."""
    from roadtest.rules.cli import rules_check_command

    _done(rules_check_command())


@app.command()
def compose(
    rule_ids: List[str] = typer.Argument(..., help="Rule ids to compose into one scene."),
    country: str = typer.Option("CN", "--country", help="ISO 3166 alpha-2 country code."),
    out: Path = typer.Option(Path("scenario.yaml"), "-o", "--out", help="Scenario YAML to write."),
) -> None:
    """Write a scenario whose scene satisfies every composed rule's context."""
    from roadtest.dsl.compose import compose_command

    _done(compose_command(rule_ids, country, out))


@exam_app.command("build")
def exam_build(
    target: Path = typer.Argument(..., help="Scenario, suite or folder: the scenes of the exam."),
    out: Path = typer.Option(..., "-o", "--out", help="Exam folder: exam.jsonl (LLaVA/ShareGPT layout) and images/."),
    seeds: int = typer.Option(1, "--seeds", help="Seeds per variant."),
    seed: int = typer.Option(0, "--seed", help="First seed."),
) -> None:
    """Drive each scene with the expert and write sign, action and open questions on its frames."""
    from roadtest.exam.build import build_command

    _done(build_command(target, out, seeds=seeds, seed=seed))


@exam_app.command("run")
def exam_run(
    exam: Path = typer.Argument(..., help="Exam folder written by `roadtest exam build`."),
    agent_config: Path = typer.Option(..., "--agent-config", help="The VLM agent's config: backend and model."),
    out: Path = typer.Option(..., "-o", "--out", help="Results folder: answers.jsonl and summary.json."),
    judge: bool = typer.Option(False, "--judge", help="Grade open answers with the same model (marked in the results)."),
) -> None:
    """Put the exam to a model and score it per level, rule, country, weather and light."""
    from roadtest.exam.take import run_command as exam_run_command

    _done(exam_run_command(exam, agent_config, out, judge=judge))


@exam_app.command("compare")
def exam_compare(
    exam_results: Path = typer.Argument(..., help="Results folder of `roadtest exam run`."),
    road_results: Path = typer.Argument(..., help="Results folder of `roadtest run` on the same suite."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="JSON to write (default EXAM_RESULTS/compare.json)."),
) -> None:
    """Knows the rule / follows it on the road: the four cells per rule and per level."""
    from roadtest.exam.compare import compare_command

    _done(compare_command(exam_results, road_results, out))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; return the exit code (2 for a user's mistake)."""
    try:
        app(args=argv if argv is not None else sys.argv[1:], standalone_mode=False)
    except _Exit as e:
        return e.code
    except UserError as e:
        typer.echo(str(e), err=True)
        return 2
    except KeyboardInterrupt:
        return 130
    except SystemExit as e:  # click's own exits (--help, usage errors)
        return int(e.code or 0)
    except Exception as e:  # click usage errors
        import click

        if isinstance(e, click.exceptions.ClickException):
            e.show()
            return 2
        if isinstance(e, click.exceptions.Exit):
            return e.exit_code
        if isinstance(e, click.exceptions.Abort):
            return 1
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
