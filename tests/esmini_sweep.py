"""Generated cases of each family through both players: agreement per family, shrinking, kept regression cases.

A test and benchmark harness, not part of roadtest. sweep() draws a family's cases (hypothesis, derandomized:
the same cases on every machine) and diffs each; shrink() asks hypothesis for the smallest case of a family
that disagrees; keep() stores a case with esmini's trajectory under tests/sim/xosc/esmini_cases/, where
tests/sim/xosc/test_esmini_cases.py replays it without esmini.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from esmini_diff import BOUND, REPO, DiffResult, diff_file, run_esmini, write_reference
from xosc_gen import FAMILIES, Case

__all__ = ["CASES", "diff_case", "sweep", "shrink", "keep", "agreement", "family_table"]

CASES = REPO / "tests" / "sim" / "xosc" / "esmini_cases"
KEEP_EVERY = 0.1  # s between the stored esmini samples of a kept case


def diff_case(case: Case, binary: Path, workdir: Path | None = None) -> DiffResult:
    """One generated case on both players."""
    if workdir is None:
        with tempfile.TemporaryDirectory() as d:
            return diff_case(case, binary, Path(d))
    return diff_file(case.write(Path(workdir) / case.name), binary, label=case.name)


def _settings(n: int, shrinking: bool = False):
    from hypothesis import HealthCheck, Phase, settings

    phases = [Phase.generate, Phase.shrink] if shrinking else [Phase.generate]
    return settings(max_examples=n, derandomize=True, database=None, deadline=None, phases=phases,
                    suppress_health_check=list(HealthCheck))


def sweep(family: str, n: int, binary: Path) -> list[tuple[Case, DiffResult]]:
    """The first `n` distinct cases hypothesis draws for `family`, each diffed."""
    from hypothesis import given

    out: list[tuple[Case, DiffResult]] = []
    seen: set[str] = set()

    @_settings(n)
    @given(FAMILIES[family])
    def collect(case: Case) -> None:
        if case.name not in seen:
            seen.add(case.name)
            out.append((case, diff_case(case, binary)))

    collect()
    return out


def shrink(family: str, binary: Path, n: int = 200) -> Case | None:
    """The smallest case of `family` the two players disagree on (hypothesis.find shrinks it), or None; cases
    that exercise a difference kept on purpose do not count."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    def disagrees(case: Case) -> bool:
        if case.deliberate:
            return False
        r = diff_case(case, binary)
        return r.result == "compared" and not r.agrees

    try:
        return find(FAMILIES[family], disagrees, settings=_settings(n, shrinking=True))
    except NoSuchExample:
        return None


def keep(case: Case, binary: Path, folder: Path = CASES) -> Path:
    """Store `case` with esmini's trajectory (esmini.csv, every KEEP_EVERY s) and what roadtest did then."""
    where = Path(folder) / case.name
    xosc = case.write(where)
    write_reference(run_esmini(binary, xosc), where / "esmini.csv", every=KEEP_EVERY)
    r = diff_file(xosc, reference_csv=where / "esmini.csv", label=case.name)
    (where / "found.json").write_text(json.dumps({
        "family": case.family, "worst_m": round(r.worst, 3),
        "first": {d.entity: [d.first, round(d.size, 3), d.element] for d in r.entities.values() if d.first is not None},
    }, indent=1) + "\n")
    return where


def agreement(rs: list[tuple[Case, DiffResult]]) -> tuple[int, int]:
    """(agreeing, compared) over the cases that exercise no deliberate difference and that esmini runs."""
    rs = [r for c, r in rs if r.result != "esmini_failed" and not (c.deliberate and not r.agrees)]
    return sum(r.agrees for r in rs), len(rs)


def family_table(results: dict[str, list[tuple[Case, DiffResult]]]) -> str:
    """Per family: cases, how many agree within BOUND over the whole run, how many differ on purpose (a
    difference the conformance docs give), refused, errors, the share agreeing of the rest, the worst distance."""
    lines = [f"{'family':18s} {'cases':>5s} {'agree':>5s} {'on purpose':>10s} {'refused':>7s} {'errors':>6s} "
             f"{'share':>6s}  worst m"]
    for fam, rs in results.items():
        failed = sum(r.result == "esmini_failed" for _, r in rs)
        rs = [(c, r) for c, r in rs if r.result != "esmini_failed"]
        n = len(rs)
        ok, rest = agreement(rs)
        purpose = n - rest
        ref = sum(r.result == "refused" for _, r in rs)
        err = sum(r.result == "error" for _, r in rs)
        worst = max((r.worst for c, r in rs if not c.deliberate), default=0.0)
        share = 100.0 * ok / max(rest, 1)
        lines.append(f"{fam:18s} {n:5d} {ok:5d} {purpose:10d} {ref:7d} {err:6d} {share:5.0f}%  {worst:.2f}"
                     + (f"  ({failed} esmini failed on)" if failed else ""))
    return "\n".join(lines) + (f"\n(agree: every entity within {BOUND} m of esmini at every sample; share: of the cases "
                                "not differing on purpose; cases esmini itself fails on are left out)")
