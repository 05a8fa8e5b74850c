"""The public OpenSCENARIO corpus (../shared/conformance) on the built-in simulator beside esmini's own runs.

A test and benchmark harness, not part of roadtest: it reads the corpus's INDEX.tsv and esmini's reference
CSVs; the check every backend must pass stays in roadtest.sim.conformance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from roadtest.sim.api import SimSettings

__all__ = ["CorpusResult", "corpus_rows", "run_corpus_file", "corpus_table", "position_differences",
           "read_reference", "position_errors", "ESMINI_LIMIT", "LIMIT_CAP"]

ESMINI_LIMIT = 1200.0  # s: esmini's run limit; rows ending there never met a stop trigger in esmini
LIMIT_CAP = 60.0  # s simulated for rows esmini gives no end time for (no reference run to compare with)


@dataclass
class CorpusResult:
    """One corpus file: how the built-in simulator's run ended beside esmini's."""

    file: str
    result: str  # completed | timeout | stopped | refused | error | missing (a file it names is absent)
    end: float | None  # s, when the storyboard ended (or the run was cut)
    esmini_end: float | None  # s, from INDEX.tsv; None when esmini gave none
    matches: bool  # ended within one tick of esmini (or, for esmini's 1200 s limit, still running at the cap)
    max_diff: dict[str, float] = field(default_factory=dict)  # entity -> largest position difference (m)
    wall: float = 0.0  # s
    detail: str = ""


def read_reference(path: Path) -> dict[str, list[tuple[float, float, float]]]:
    """entity -> [(time, x, y)] from a trajectory CSV in esmini_reference's columns."""
    import csv

    out: dict[str, list[tuple[float, float, float]]] = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            out.setdefault(r["entity"], []).append((float(r["time"]), float(r["x"]), float(r["y"])))
    return out


def position_errors(trace, reference: Mapping[str, list[tuple[float, float, float]]]) -> dict[str, list[tuple[float, float]]]:
    """entity -> [(time, distance)] between the trace's reference points and esmini's at esmini's sample times.

    The trace holds bounding-box centres; trace.info["bbox_cx"] moves them back to each entity's reference
    point, which is what esmini writes. The trace is interpolated linearly in time; esmini's samples past the
    trace's end, or where the trace lacks the entity, are not compared.
    """
    import bisect

    cx = trace.info.get("bbox_cx", {})
    times = [s.time for s in trace.states]
    out: dict[str, list[tuple[float, float]]] = {}
    for ent, rows in reference.items():
        errs: list[tuple[float, float]] = []
        for t, x, y in rows:
            if not times or t > times[-1] + 1e-9:
                break
            i = max(0, min(len(times) - 2, bisect.bisect_right(times, t) - 1)) if len(times) > 1 else 0
            pts = []
            for st in trace.states[i:i + 2]:
                try:
                    a = st.actor(ent)
                except KeyError:
                    break
                c = cx.get(ent, 0.0)
                pts.append((st.time, a.x - c * math.cos(a.h), a.y - c * math.sin(a.h)))
            if not pts:
                continue
            if len(pts) == 2 and pts[1][0] > pts[0][0]:
                u = min(1.0, max(0.0, (t - pts[0][0]) / (pts[1][0] - pts[0][0])))
                px, py = pts[0][1] + u * (pts[1][1] - pts[0][1]), pts[0][2] + u * (pts[1][2] - pts[0][2])
            else:
                px, py = pts[0][1], pts[0][2]
            errs.append((t, math.hypot(px - x, py - y)))
        if errs:
            out[ent] = errs
    return out


def position_differences(trace, reference_csv: Path) -> dict[str, float]:
    """Largest distance per entity between the trace and esmini's trajectory CSV (see position_errors)."""
    return {ent: max(d for _, d in errs) for ent, errs in position_errors(trace, read_reference(reference_csv)).items()}


def corpus_rows(conformance_dir: Path) -> list[dict[str, str]]:
    """The self-contained esmini rows of INDEX.tsv."""
    import csv

    with open(Path(conformance_dir) / "INDEX.tsv", newline="") as f:
        return [r for r in csv.DictReader(f, delimiter="\t") if r["source"] == "esmini" and r["self_contained"] == "yes"]


def run_corpus_file(conformance_dir: Path, row: Mapping[str, str], seed: int = 1, tick: float = 0.05) -> CorpusResult:
    """Run one corpus row to its stop trigger (or a cap two seconds past esmini's end, its 1200 s limit included,
    so that a run without a stop trigger is compared whole) and compare."""
    import time as _time

    from roadtest.bundle import load_bundle
    from roadtest.errors import UnsupportedError
    from roadtest.sim.embedded import run_bundle
    from roadtest.sim.xosc.parser import expand_distribution

    conformance_dir = Path(conformance_dir)
    path = conformance_dir / row["xosc_path"]
    esm = float(row["esmini_end_time_s"]) if row.get("esmini_end_time_s") else None
    cap = LIMIT_CAP if esm is None else esm + 2.0
    t0 = _time.perf_counter()
    try:
        runs = expand_distribution(path)
        target, params = runs[0]
        if not Path(target).exists():
            return CorpusResult(path.stem, "missing", None, esm, False, wall=_time.perf_counter() - t0,
                                detail=f"{Path(target).name}, which the file runs, is not in the corpus")
        trace = run_bundle(load_bundle(target), seed, SimSettings(tick=tick, max_time=cap, traffic=False),
                           params=params or None)
    except UnsupportedError as e:
        return CorpusResult(path.stem, "refused", None, esm, False, wall=_time.perf_counter() - t0, detail=str(e))
    except Exception as e:  # noqa: BLE001 - reported per file; the test fails on any error row
        return CorpusResult(path.stem, "error", None, esm, False, wall=_time.perf_counter() - t0,
                            detail=f"{type(e).__name__}: {e}")
    wall = _time.perf_counter() - t0
    end = float(trace.info.get("end_time", trace.states[-1].time))
    result = trace.termination.value if trace.termination else "stopped"
    if esm is None:
        matches = result == "completed"
    else:  # the same stop trigger's end, or neither player met one before esmini's limit
        matches = (result == "completed" and abs(end - esm) <= tick + 1e-6) or (esm >= ESMINI_LIMIT and result == "timeout")
    ref = conformance_dir / "esmini_reference" / f"{path.stem}.csv"
    diffs = position_differences(trace, ref) if ref.exists() else {}
    detail = f"1st of {len(runs)} distribution runs" if len(runs) > 1 else trace.reason
    return CorpusResult(path.stem, result, end, esm, matches, diffs, wall, detail)


def corpus_table(results: list[CorpusResult]) -> str:
    """A plain-text table of corpus results with totals."""
    lines = [f"{'file':44s} {'result':9s} {'end s':>8s} {'esmini s':>8s} {'ok':>3s} {'wall s':>6s}  max position diff per entity (m)"]
    for r in results:
        diffs = ", ".join(f"{k}={v:.2f}" for k, v in r.max_diff.items())
        end = f"{r.end:8.2f}" if r.end is not None else f"{'-':>8s}"
        esm = f"{r.esmini_end:8.2f}" if r.esmini_end is not None else f"{'-':>8s}"
        extra = r.detail if r.result in ("refused", "error", "missing") else diffs
        lines.append(f"{r.file:44s} {r.result:9s} {end} {esm} {'yes' if r.matches else 'no':>3s} {r.wall:6.1f}  {extra}")
    missing = sum(r.result == "missing" for r in results)
    n = len(results) - missing
    ok = sum(r.matches for r in results)
    refused = sum(r.result == "refused" for r in results)
    errors = sum(r.result == "error" for r in results)
    lines.append(f"total {n} runnable ({missing} name a file not in the corpus): {ok} end as esmini "
                 f"({100.0 * ok / max(n, 1):.0f}%), {refused} refused by name, {errors} errors, "
                 f"{n - ok - refused - errors} end elsewhere; wall {sum(r.wall for r in results):.1f} s")
    return "\n".join(lines)
