"""What one `roadtest run` plans (variants, seeds, agent, tick, backend) and the results folder it owns.

OUT/plan.json records the plan beside OUT/results.jsonl, so that a second invocation on the same folder
can tell a resume of the same plan from a different plan that would mix its runs into the first one's.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from roadtest.errors import UserError
from roadtest.names import disk_name

__all__ = ["Plan", "PLAN", "new_results_folder", "claim_folder"]

PLAN = "plan.json"


@dataclass(frozen=True)
class Plan:
    """The identity of a set of runs: the same plan gives the same run ids and the same results."""

    target: str
    variants: tuple[str, ...]
    seeds: tuple[int, ...]
    agent: str | None
    tick: float  # s
    backend: str

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["variants"], d["seeds"] = list(self.variants), list(self.seeds)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Plan":
        return cls(target=str(d.get("target", "")), variants=tuple(d.get("variants", ())), seeds=tuple(d.get("seeds", ())),
                   agent=d.get("agent"), tick=float(d.get("tick", 0.0)), backend=str(d.get("backend", "")))

    def differences(self, other: "Plan") -> list[str]:
        """What differs from `other` (the folder's plan), one phrase per field; the target's path is not compared."""
        out = []
        if self.variants != other.variants:
            new, gone = sorted(set(self.variants) - set(other.variants)), sorted(set(other.variants) - set(self.variants))
            parts = ([f"{len(new)} not in it ({_few(new)})"] if new else []) + \
                    ([f"{len(gone)} of its missing here ({_few(gone)})"] if gone else [])
            out.append("variants: " + ("; ".join(parts) if parts else "same variants in another order"))
        if self.seeds != other.seeds:
            out.append(f"seeds: {_seeds(self.seeds)} here, {_seeds(other.seeds)} in the folder")
        for name in ("agent", "tick", "backend"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                out.append(f"{name}: {_show(mine)} here, {_show(theirs)} in the folder")
        return out


def _few(ids: list[str], n: int = 3) -> str:
    return ", ".join(ids[:n]) + (f", ... {len(ids) - n} more" if len(ids) > n else "")


def _seeds(seeds: tuple[int, ...]) -> str:
    if len(seeds) > 1 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}"
    return ",".join(map(str, seeds)) or "none"


def _show(v: Any) -> str:
    return "the scenario's own controller" if v is None else repr(v)


def new_results_folder(target: Path, root: Path = Path("results"), now: datetime | None = None) -> Path:
    """A fresh results/<target>-<UTC time>/ (with -2, -3... when that second is taken), created here."""
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(target).stem or Path(target).name).strip("-") or "run"
    stem = disk_name(stem)
    base = f"{stem}-{now.strftime('%Y%m%dT%H%M%SZ')}"
    root.mkdir(parents=True, exist_ok=True)
    for i in range(1, 10_000):
        folder = root / (base if i == 1 else f"{base}-{i}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise UserError(f"{root}: could not create a new results folder for {base}")


def claim_folder(out: Path, plan: Plan, recorded: set[str], planned: set[str], resume: bool) -> None:
    """Refuse a folder that holds another plan's runs, or the same plan's without --resume; then write plan.json."""
    out = Path(out)
    path = out / PLAN
    if path.exists():
        try:
            theirs = Plan.from_json(json.loads(path.read_text()))
        except (ValueError, TypeError, AttributeError) as e:
            raise UserError(f"{path}: unreadable plan ({e}); choose another --out") from e
        diff = plan.differences(theirs)
        if diff and (recorded or resume):
            raise UserError(f"{out}: holds runs of a different plan ({'; '.join(diff)}); "
                            "choose another --out, or run without --out for a new folder")
    elif recorded - planned:
        raise UserError(f"{out / 'results.jsonl'}: holds {len(recorded - planned)} run(s) this plan does not have "
                        f"(e.g. {sorted(recorded - planned)[0]}); choose another --out")
    if recorded and not resume:
        raise UserError(f"{out / 'results.jsonl'}: already holds {len(recorded)} run(s) of this plan; "
                        "pass --resume to continue it, or run without --out for a new folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / f".{PLAN}.tmp"
        tmp.write_text(json.dumps(plan.to_json(), indent=1))
        tmp.replace(path)
    except OSError as e:  # a path through a file, a read-only or full disk: the user's to choose another
        raise UserError(f"--out {out}: cannot write the results folder ({e.strerror or e}); choose another --out") from None
