"""Steps per second of roadtest's built-in simulator against highway-env on the same workload, in one run.

Workload (issue 4): 1 ego + 20 IDM vehicles on a straight 3-lane 1 km road, 60 s at 20 Hz, no rendering.
roadtest: a bundle written here (road.xodr, scenario.xosc, meta.json with traffic density 20/3 per km per
lane), the ego driven by a fixed Control through the kinematic bicycle, the speedometer read every step.
highway-env: highway-v0 with 3 lanes, 20 IDM vehicles, simulation and policy at 20 Hz, 60 s, ego action
IDLE, kinematics observation, no rendering (episodes that end early are reset; only step() is timed);
and its simulation core alone (road.act + road.step per tick, no observation), the ratio reported first.

highway-env is not a roadtest dependency; install it in the benchmark's own environment:
    python3 -m venv --system-site-packages /tmp/hwenv-venv && /tmp/hwenv-venv/bin/pip install highway-env
    /tmp/hwenv-venv/bin/python benchmarks/sim_vs_highwayenv.py
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HZ = 20
SECONDS = 60.0
STEPS = int(SECONDS * HZ)
VEHICLES = 20
LANES = 3
LENGTH = 1000.0

XODR = f"""<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="6" name="straight3" version="1.0"/>
  <road name="main" length="{LENGTH}" id="1" junction="-1">
    <link/>
    <type s="0" type="motorway"><speed max="30" unit="m/s"/></type>
    <planView><geometry s="0" x="0" y="0" hdg="0" length="{LENGTH}"><line/></geometry></planView>
    <elevationProfile/><lateralProfile/>
    <lanes>
      <laneSection s="0">
        <center><lane id="0" type="none" level="false"><roadMark sOffset="0" type="solid" color="standard" width="0.15"/></lane></center>
        <right>
{"".join(f'''          <lane id="-{i}" type="driving" level="false"><link/><width sOffset="0" a="3.5" b="0" c="0" d="0"/>
            <roadMark sOffset="0" type="{'broken' if i < LANES else 'solid'}" color="standard" width="0.15"/></lane>
''' for i in range(1, LANES + 1))}        </right>
      </laneSection>
    </lanes>
  </road>
</OpenDRIVE>
"""

XOSC = """<?xml version="1.0" encoding="UTF-8"?>
<OpenSCENARIO>
  <FileHeader revMajor="1" revMinor="0" date="2026-01-01T00:00:00" description="benchmark" author="roadtest"/>
  <ParameterDeclarations/>
  <CatalogLocations/>
  <RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>
  <Entities>
    <ScenarioObject name="hero">
      <Vehicle name="car" vehicleCategory="car">
        <ParameterDeclarations/>
        <Performance maxSpeed="40" maxAcceleration="4" maxDeceleration="8"/>
        <BoundingBox><Center x="1.4" y="0" z="0.75"/><Dimensions width="1.8" length="4.5" height="1.5"/></BoundingBox>
        <Axles>
          <FrontAxle maxSteering="0.6" wheelDiameter="0.6" trackWidth="1.6" positionX="2.8" positionZ="0.3"/>
          <RearAxle maxSteering="0" wheelDiameter="0.6" trackWidth="1.6" positionX="0" positionZ="0.3"/>
        </Axles>
        <Properties/>
      </Vehicle>
    </ScenarioObject>
  </Entities>
  <Storyboard>
    <Init><Actions><Private entityRef="hero">
      <PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-2" s="50" offset="0"/></Position></TeleportAction></PrivateAction>
      <PrivateAction><LongitudinalAction><SpeedAction>
        <SpeedActionDynamics dynamicsShape="step" value="0" dynamicsDimension="time"/>
        <SpeedActionTarget><AbsoluteTargetSpeed value="10"/></SpeedActionTarget>
      </SpeedAction></LongitudinalAction></PrivateAction>
    </Private></Actions></Init>
    <StopTrigger><ConditionGroup><Condition name="end" delay="0" conditionEdge="rising">
      <ByValueCondition><SimulationTimeCondition value="1000" rule="greaterThan"/></ByValueCondition>
    </Condition></ConditionGroup></StopTrigger>
  </Storyboard>
</OpenSCENARIO>
"""


def write_bundle(folder: Path) -> Path:
    """The workload as a roadtest bundle."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "road.xodr").write_text(XODR)
    (folder / "scenario.xosc").write_text(XOSC)
    meta = {"id": "bench-straight3", "traffic": {"density": VEHICLES / (LANES * LENGTH / 1000.0), "seed": 1},
            "expect": {"timeout": SECONDS}}
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def bench_roadtest(folder: Path, repeats: int) -> tuple[float, dict]:
    from roadtest.bundle import load_bundle
    from roadtest.sim.api import Control, SimSettings
    from roadtest.sim.embedded import EmbeddedSimulator

    bundle = load_bundle(folder)
    control = Control(throttle=0.3)
    speedo = [{"type": "sensor.speedometer", "id": "speed"}]
    best, info = 0.0, {}
    for _ in range(repeats):
        sim = EmbeddedSimulator().load(bundle, seed=0, settings=SimSettings(tick=1.0 / HZ, max_time=SECONDS))
        n_bg = sum(a.role == "background" for a in sim.state.actors)
        t0 = time.perf_counter()
        steps = 0
        while not sim.done:
            sim.observe(speedo)
            sim.step(control)
            steps += 1
        wall = time.perf_counter() - t0
        sim.close()
        best = max(best, steps / wall)
        info = {"steps": steps, "background_vehicles": n_bg, "termination": sim.trace.termination.value,
                "collisions": sum(e.kind == "collision" for s in sim.trace.states for e in s.events)}
    return best, info


def bench_highwayenv(repeats: int) -> tuple[float | None, dict]:
    try:
        import gymnasium
        import highway_env  # noqa: F401
    except ImportError as e:
        return None, {"error": f"highway-env not importable here ({e}); see this file's docstring"}
    config = {
        "lanes_count": LANES, "vehicles_count": VEHICLES, "duration": SECONDS, "simulation_frequency": HZ,
        "policy_frequency": HZ, "observation": {"type": "Kinematics"}, "action": {"type": "DiscreteMetaAction"},
        "offscreen_rendering": True, "controlled_vehicles": 1,
        "other_vehicles_type": "highway_env.vehicle.behavior.IDMVehicle",
    }
    env = gymnasium.make("highway-v0", config=config, render_mode=None)
    idle = 1  # DiscreteMetaAction: 0 LANE_LEFT, 1 IDLE, 2 LANE_RIGHT, 3 FASTER, 4 SLOWER
    best_env = best_core = 0.0
    resets = 0
    for r in range(repeats):
        env.reset(seed=r)
        wall, steps = 0.0, 0
        while steps < STEPS:
            t0 = time.perf_counter()
            _, _, terminated, truncated, _ = env.step(idle)
            wall += time.perf_counter() - t0
            steps += 1
            if terminated or truncated:
                env.reset(seed=r + 1000 + steps)
                resets += 1
        best_env = max(best_env, steps / wall)
        # The simulation core alone, as env.step runs it: every vehicle acts, then the road integrates.
        env.reset(seed=r)
        road = env.unwrapped.road
        t0 = time.perf_counter()
        for _ in range(STEPS):
            road.act()
            road.step(1.0 / HZ)
        best_core = max(best_core, STEPS / (time.perf_counter() - t0))
    env.close()
    import highway_env as he

    return best_core, {"env_step_steps_per_s": round(best_env, 1), "resets": resets,
                       "version": getattr(he, "__version__", "?")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="runs per simulator; the best is reported")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_bundle(Path(tmp) / "bench")
        ours, our_info = bench_roadtest(folder, args.repeats)
    theirs, their_info = bench_highwayenv(args.repeats)
    print(f"workload: 1 ego + {VEHICLES} IDM vehicles, {LANES} lanes x {LENGTH:.0f} m, {SECONDS:.0f} s at {HZ} Hz "
          f"({STEPS} steps), no rendering; best of {args.repeats}")
    print(f"roadtest embedded : {ours:10.1f} steps/s  {our_info}")
    if theirs is None:
        print(f"highway-env       :        n/a  {their_info}")
        return 1
    print(f"highway-env core  : {theirs:10.1f} steps/s  (road.act + road.step, no observation)  {their_info}")
    print(f"ratio roadtest / highway-env core: {ours / theirs:.1f}x; roadtest / highway-env env.step: "
          f"{ours / their_info['env_step_steps_per_s']:.1f}x (target >= 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
