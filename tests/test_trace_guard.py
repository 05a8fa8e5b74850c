"""Every guarded run (examples, L1..L5 with the expert, the lane follower and each ablation, the esmini corpus) gives
the trace, score and record digests stored in tests/guards/trace_digests.json: a change meant to keep behaviour
proves it here. A change meant to alter behaviour re-records them (`python3 scripts/trace_guard.py record`) and says
which runs moved and why."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _guard():
    """scripts/trace_guard.py, imported by name so that its worker processes find its functions."""
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    import trace_guard

    return trace_guard


@pytest.mark.parametrize("set_name", ["examples", "levels", pytest.param("corpus", marks=pytest.mark.conformance)])
def test_guarded_runs_keep_their_digests(set_name):
    guard = _guard()
    if set_name == "corpus" and not (guard.CONFORMANCE / "INDEX.tsv").exists():
        pytest.skip(f"the conformance corpus is not here ({guard.CONFORMANCE})")
    stored = json.loads(guard.DEFAULT_FILE.read_text())[set_name]
    now = guard.compute(set_name, workers=2)
    moved = {k: (stored.get(k, {}).get("summary"), now.get(k, {}).get("summary")) for k in set(stored) | set(now)
             if any(stored.get(k, {}).get(x) != now.get(k, {}).get(x) for x in ("trace", "score", "record"))}
    assert not moved, "\n".join(f"{k}: was {a}, now {b}" for k, (a, b) in sorted(moved.items()))
