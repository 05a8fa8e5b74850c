"""Which modules `roadtest validate` and `roadtest run` import: heavy libraries only on the paths that use them.

A malformed scenario is refused by the loader alone, so its validation never needs the emitters
(scenariogeneration, which imports scipy) nor any optional backend; running a written bundle with the expert
needs no emitter and none of the optional stacks (torch, moderngl, ray, rerun) in the parent or its workers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OPTIONAL = {"torch", "moderngl", "ray", "rerun"}
EMITTERS = {"scenariogeneration", "scipy"}
# run roadtest's main(argv), then write the top-level names of every imported module to the file in argv[1]
WRAPPER = ("import json, sys\nfrom roadtest.cli import main\nrc = main(sys.argv[2:])\n"
           "open(sys.argv[1], 'w').write(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\nsys.exit(rc)\n")
BAD = """name: bad
country: DE
road: {kind: straight, length: 200, lanes: {forward: 1, backward: 1, width: 3.5}, speed_limit: 50}
ego: {lane: 1, s: 10, speed: 30, route: {distance: 60}}
rules: [speed_limt]
"""


def _roadtest(tmp_path: Path, *argv: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    listing = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", WRAPPER, str(listing), *argv], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})
    return proc, set(json.loads(listing.read_text()))


def test_validate_of_a_bad_file_imports_no_emitter_and_no_optional_backend(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD)
    proc, modules = _roadtest(tmp_path, "validate", str(bad))
    assert proc.returncode == 2, proc.stderr
    # line 5 is `rules: [speed_limt]`; the id starts after the 8 characters `rules: [`
    assert f"{bad}:5:9: rules.0: unknown rule id 'speed_limt'" in proc.stdout, proc.stdout
    assert {"roadtest", "yaml", "pydantic"} <= modules  # the listing is real: the loader ran
    assert not modules & (EMITTERS | OPTIONAL), sorted(modules & (EMITTERS | OPTIONAL))


def test_running_a_written_bundle_imports_no_emitter_and_no_optional_backend(tmp_path):
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.loader import parse_file
    from roadtest.dsl.variants import expand_doc

    (variant,) = expand_doc(parse_file(REPO / "scenarios" / "straight_speed_limit.yaml"))
    bundle = write_bundle(variant, tmp_path / "bundles")
    workers = tmp_path / "workers"
    workers.mkdir()
    agent = f"{REPO / 'tests' / 'startup_probe_agent.py'}:ModuleNotingExpertStandIn"
    proc, parent = _roadtest(tmp_path, "run", str(bundle), "--agent", agent, "--out", str(tmp_path / "out"),
                             env={"ROADTEST_TEST_MODULES_DIR": str(workers)})
    assert proc.returncode == 0, proc.stderr
    (noted,) = workers.glob("worker-*.json")  # one worker drove the run to its end
    worker = {m.split(".")[0] for m in json.loads(noted.read_text())}
    assert "roadtest" in parent and {"roadtest", "numpy"} <= worker  # the listings are real
    assert not parent & (EMITTERS | OPTIONAL), sorted(parent & (EMITTERS | OPTIONAL))
    assert not worker & ({"scenariogeneration"} | OPTIONAL), sorted(worker & ({"scenariogeneration"} | OPTIONAL))
