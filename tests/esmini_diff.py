"""Differential runs of one OpenSCENARIO file on esmini and on the built-in simulator, same seed and step.

A test and benchmark harness, not part of roadtest. Per entity it reports when the two players' positions
first part by more than a bound, by how much, the worst distance over the run, and the storyboard element
roadtest had running on that entity then. The comparison itself is esmini_corpus.position_errors, the one the
corpus test uses. esmini is found ($ESMINI, a build beside the checkout) or built from its snapshot with
../shared/tools/build_esmini.sh; without either, esmini_binary() returns None and tests skip saying so.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from esmini_corpus import position_errors, read_reference

__all__ = ["REPO", "SHARED", "BOUND", "EsminiFailed", "Divergence", "DiffResult", "esmini_binary", "run_esmini", "read_esmini_log",
           "write_reference", "run_roadtest", "divergences", "diff_file", "diff_table"]

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO.parent / "shared").resolve()
BOUND = 0.5  # m: the two players agree when every entity stays this close over the whole run
_BUILT = Path("build/EnvironmentSimulator/Applications/esmini/esmini")
REF_COLUMNS = ("time", "entity", "x", "y", "z", "h", "speed", "lane", "s", "t")
_PER_ENTITY = 31  # fields per entity in esmini's csv_logger line (CommonMini.cpp, CSV_Logger::Open)


def _candidates() -> list[Path]:
    env = os.environ.get("ESMINI")
    out = [Path(env)] if env else []
    out += [SHARED.parent / "esmini" / _BUILT, REPO.parent / "esmini" / _BUILT]
    which = shutil.which("esmini")
    return out + ([Path(which)] if which else [])


def esmini_binary(build_dir: Path | None = None) -> Path | None:
    """An esmini binary: $ESMINI or an existing build; with `build_dir`, else built there from the snapshots
    ($ESMINI_GIT_DIR, $FMT_GIT_DIR; default the mirrors beside ../shared) when the machine has them."""
    for c in _candidates():
        if c.is_file() and os.access(c, os.X_OK):
            return c
    if build_dir is None:
        return None
    mirrors = SHARED.parent / ".mirror"
    esm = Path(os.environ.get("ESMINI_GIT_DIR", mirrors / "esmini+esmini" / "repo"))
    fmt = Path(os.environ.get("FMT_GIT_DIR", mirrors / "fmtlib+fmt" / "repo"))
    if not (esm.exists() and fmt.exists()):
        return None
    out = subprocess.run(["bash", str(SHARED / "tools" / "build_esmini.sh"), str(esm), str(fmt), str(build_dir)],
                         check=True, capture_output=True, text=True).stdout.strip().splitlines()
    return Path(out[-1]) if out else None


def read_esmini_log(path: Path) -> list[dict[str, float | str]]:
    """Rows in esmini_reference's columns (REF_COLUMNS) from esmini's --csv_logger file."""
    rows: list[dict[str, float | str]] = []
    with open(path, newline="") as f:
        lines = iter(f)
        for line in lines:
            if line.startswith("Index"):
                break
        for rec in csv.reader(lines, skipinitialspace=True):
            if len(rec) < 2 + _PER_ENTITY:
                continue
            t = float(rec[1])
            for k in range(2, len(rec) - _PER_ENTITY + 1, _PER_ENTITY):
                b = rec[k:k + _PER_ENTITY]
                rows.append({"time": t, "entity": b[0], "x": float(b[11]), "y": float(b[12]), "z": float(b[13]),
                             "h": float(b[24]), "speed": float(b[2]), "lane": int(float(b[22])), "s": float(b[20]),
                             "t": float(b[21])})
    return rows


def write_reference(rows: list[dict[str, float | str]], path: Path, every: float = 0.0) -> None:
    """Write rows as an esmini_reference CSV, keeping samples `every` seconds apart (0: all of them)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(REF_COLUMNS)
        for r in rows:
            t = float(r["time"])
            if every and abs(t / every - round(t / every)) > 1e-6:
                continue
            w.writerow([f"{t:.3f}", r["entity"]] + [f"{float(r[c]):.3f}" if c != "lane" else int(r[c])
                                                    for c in REF_COLUMNS[2:]])


class EsminiFailed(RuntimeError):
    """esmini refused or failed on a file (its own error lines in the message)."""


def run_esmini(binary: Path, xosc: Path, seed: int = 1, tick: float = 0.05, timeout: float = 60.0) -> list[dict]:
    """esmini's trajectory of `xosc` (run headless from the file's folder, as its relative paths need)."""
    xosc = Path(xosc).resolve()
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "log.csv"
        p = subprocess.run([str(binary), "--headless", "--fixed_timestep", str(tick), "--seed", str(seed), "--osc",
                            xosc.name, "--csv_logger", str(log), "--disable_log"],
                           cwd=xosc.parent, timeout=timeout, capture_output=True, text=True)
        if p.returncode != 0 or not log.exists():
            said = [ln for ln in p.stdout.splitlines() if "error" in ln.lower()] or p.stdout.splitlines()[-3:]
            raise EsminiFailed(f"esmini exit {p.returncode}: " + " | ".join(said)[-400:])
        return read_esmini_log(log)


def run_roadtest(xosc: Path, seed: int = 1, tick: float = 0.05, max_time: float = 60.0):
    """The built-in simulator's Trace of `xosc` and, per tick, entity -> the storyboard actions running on it."""
    from roadtest.bundle import load_bundle
    from roadtest.sim.api import SimSettings
    from roadtest.sim.embedded import EmbeddedSimulator
    from roadtest.sim.loop import drive

    sim = EmbeddedSimulator().load(load_bundle(xosc), seed, SimSettings(tick=tick, max_time=max_time, traffic=False))
    active: list[tuple[float, dict[str, str]]] = []

    def record(state) -> None:
        now: dict[str, str] = {}
        for el, ra in getattr(sim.engine, "running", []):
            if ra.actor and not ra.done:
                name = f"{el.name} ({ra.name})" if el is not None else ra.name
                now[ra.actor] = f"{now[ra.actor]}; {name}" if ra.actor in now else name
        active.append((state.time, now))

    try:
        drive(sim, on_step=record)
    finally:
        sim.close()
    return sim.trace, active


@dataclass
class Divergence:
    """One entity: where esmini and roadtest first part by more than the bound, and the worst over the run."""

    entity: str
    first: float | None  # s, first esmini sample farther than the bound; None: never
    size: float  # m, the distance then (0 when never)
    worst: float  # m, largest distance over the run
    element: str  # what roadtest had running on the entity at `first` ("Init" before any action ran)


@dataclass
class DiffResult:
    """One file on both players."""

    file: str
    result: str  # compared | refused (by roadtest, by name) | error (roadtest) | esmini_failed
    esmini_end: float | None = None  # s, esmini's last logged time
    roadtest_end: float | None = None  # s
    entities: dict[str, Divergence] = field(default_factory=dict)
    detail: str = ""

    @property
    def agrees(self) -> bool:
        return self.result == "compared" and all(d.first is None for d in self.entities.values())

    @property
    def worst(self) -> float:
        return max((d.worst for d in self.entities.values()), default=0.0)


def _active_at(active: list[tuple[float, dict[str, str]]], entity: str, t: float) -> str:
    """The actions running on `entity` in the last tick before `t` (the tick that moved it there)."""
    name, seen = "Init", False
    for when, now in active:
        if when > t + 1e-9:
            break
        if entity in now:
            name, seen = now[entity], True
        elif seen:
            name = "no action running (its default controller)"
    return name


def divergences(trace, active, reference: Mapping[str, list[tuple[float, float, float]]],
                bound: float = BOUND) -> dict[str, Divergence]:
    """Per entity of `reference` (esmini), the first sample farther than `bound` from the trace, and the worst."""
    out: dict[str, Divergence] = {}
    for ent, errs in position_errors(trace, reference).items():
        first = next(((t, d) for t, d in errs if d > bound), None)
        worst = max(d for _, d in errs)
        out[ent] = Divergence(ent, first[0] if first else None, first[1] if first else 0.0, worst,
                              _active_at(active, ent, first[0]) if first else "")
    return out


def _as_reference(rows: list[dict]) -> dict[str, list[tuple[float, float, float]]]:
    out: dict[str, list[tuple[float, float, float]]] = {}
    for r in rows:
        out.setdefault(str(r["entity"]), []).append((float(r["time"]), float(r["x"]), float(r["y"])))
    return out


def diff_file(xosc: Path, binary: Path | None = None, *, seed: int = 1, tick: float = 0.05,
              reference_csv: Path | None = None, bound: float = BOUND, label: str = "") -> DiffResult:
    """Run `xosc` on esmini (or read its stored trajectory, `reference_csv`) and on roadtest, and compare;
    `label` names the file in the result (default its stem)."""
    from roadtest.errors import UnsupportedError

    xosc = Path(xosc)
    label = label or xosc.stem
    if reference_csv is not None:
        ref = read_reference(reference_csv)
    else:
        if binary is None:
            raise ValueError("diff_file needs an esmini binary or a stored reference_csv")
        try:
            ref = _as_reference(run_esmini(binary, xosc, seed, tick))
        except EsminiFailed as e:
            return DiffResult(label, "esmini_failed", detail=str(e))
    esm_end = max((rows[-1][0] for rows in ref.values() if rows), default=None)
    try:
        trace, active = run_roadtest(xosc, seed, tick, max_time=(esm_end or 60.0) + 1.0)
    except UnsupportedError as e:
        return DiffResult(label, "refused", esm_end, detail=str(e))
    except Exception as e:  # noqa: BLE001 - reported per file
        return DiffResult(label, "error", esm_end, detail=f"{type(e).__name__}: {e}")
    end = float(trace.info.get("end_time", trace.states[-1].time)) if trace.states else 0.0
    return DiffResult(label, "compared", esm_end, end, divergences(trace, active, ref, bound))


def diff_table(results: list[DiffResult]) -> str:
    """Plain text: per file and entity, the first divergence beyond the bound, its size, the worst, the element."""
    lines = [f"{'file':40s} {'entity':10s} {'first s':>7s} {'size m':>7s} {'worst m':>7s}  element running in roadtest"]
    for r in results:
        if r.result != "compared":
            lines.append(f"{r.file:40s} {'-':10s} {'-':>7s} {'-':>7s} {'-':>7s}  {r.result}: {r.detail[:120]}")
            continue
        for d in r.entities.values():
            first = f"{d.first:7.2f}" if d.first is not None else f"{'-':>7s}"
            lines.append(f"{r.file:40s} {d.entity:10s} {first} {d.size:7.2f} {d.worst:7.2f}  {d.element}")
    ok = sum(r.agrees for r in results)
    lines.append(f"{ok} of {len(results)} agree within {BOUND} m over the whole run")
    return "\n".join(lines)
