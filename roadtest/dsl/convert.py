"""`roadtest convert`: every variant of a target becomes a bundle folder; bad scenarios are skipped and reported."""

from __future__ import annotations

import sys
from pathlib import Path

from roadtest.dsl.suite import iter_target
from roadtest.errors import ScenarioError, UserError

__all__ = ["convert_command"]


def convert_command(target: Path, out: Path) -> int:
    """Write OUT/<variant id>/{road.xodr, scenario.xosc, meta.json}; exit 2 when any scenario failed."""
    from roadtest.dsl.bundle_writer import write_bundle

    if Path(out).exists() and not Path(out).is_dir():
        raise UserError(f"-o {out}: is a file, expected a folder for the bundles")
    ok_files = bad_files = written = 0
    seen: dict[str, str] = {}
    for source, result in iter_target(Path(target)):
        if isinstance(result, ScenarioError):
            bad_files += 1
            for p in result.problems:
                print(str(p), file=sys.stderr)
            continue
        clash = [v.id for v in result if seen.get(v.id, source) != source]
        if clash:
            bad_files += 1
            print(f"{source}: name: variant id {clash[0]!r} also comes from {seen[clash[0]]} "
                  "(expected unique scenario names)", file=sys.stderr)
            continue
        try:
            for v in result:
                seen[v.id] = source
                write_bundle(v, Path(out))
                written += 1
        except ScenarioError as e:
            bad_files += 1
            for p in e.problems:
                print(str(p), file=sys.stderr)
            continue
        except UserError as e:
            bad_files += 1
            print(f"{source}: {e}", file=sys.stderr)
            continue
        ok_files += 1
    print(f"converted {written} variant(s) from {ok_files} scenario file(s) into {out}; "
          f"{bad_files} file(s) failed")
    return 2 if bad_files else 0
