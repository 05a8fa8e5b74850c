"""Steps per second of roadtest's built-in simulator against highway-env on the same workload, in one run.

Workload (highway-env's own highway-v0 scale): 1 ego + 20 IDM vehicles on a straight 3-lane 1 km road, 60 s at 20 Hz, no rendering.
roadtest: a bundle written here (road.xodr, scenario.xosc, meta.json with traffic density 20/3 per km per
lane), the ego held at EGO_SPEED by a proportional controller on the speedometer (read every step) through the
kinematic bicycle, so it stays on the 1 km road for the whole 60 s (vehicles that reach the road's end are
replaced out of the ego's sight, keeping 20 in play).
highway-env: highway-v0 with 3 lanes, 20 IDM vehicles, simulation and policy at 20 Hz, 60 s, ego action
IDLE with its speed and target speed set to EGO_SPEED, kinematics observation, no rendering (its road is
10 km long, so its 20 vehicles stay in play too) (episodes that end early are reset; only step() is timed);
and its simulation core alone (road.act + road.step per tick, no observation), the ratio reported first.
The three run side by side in one process, BLOCK steps at a time in rotating order, timed by wall clock and by
process CPU time (the second is less sensitive to other users of a shared machine); medians over rounds.

highway-env is not a roadtest dependency; install it in the benchmark's own environment:
    python3 -m venv --system-site-packages /tmp/hwenv-venv && /tmp/hwenv-venv/bin/pip install highway-env
    /tmp/hwenv-venv/bin/python benchmarks/sim_vs_highwayenv.py
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
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
EGO_START = 50.0  # m along the road
BLOCK = 50  # steps each side runs per turn
EGO_SPEED = 14.0  # m/s held by a proportional speed controller: the ego ends near s = 890 m, still on the road

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

XOSC = f"""<?xml version="1.0" encoding="UTF-8"?>
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
      <PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-2" s="{EGO_START}" offset="0"/></Position></TeleportAction></PrivateAction>
      <PrivateAction><LongitudinalAction><SpeedAction>
        <SpeedActionDynamics dynamicsShape="step" value="0" dynamicsDimension="time"/>
        <SpeedActionTarget><AbsoluteTargetSpeed value="{EGO_SPEED}"/></SpeedActionTarget>
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


class _Timed:
    """Steps run so far with their wall and CPU seconds (CPU time is what other users of the machine take least)."""

    def __init__(self):
        self.steps, self.wall, self.cpu = 0, 0.0, 0.0

    def run(self, n: int) -> None:
        """Run up to n more steps, timing them."""
        t0, c0 = time.perf_counter(), time.process_time()
        self.steps += self._steps(n)
        self.wall += time.perf_counter() - t0
        self.cpu += time.process_time() - c0

    @property
    def done(self) -> bool:
        return self.steps >= STEPS

    def rates(self) -> tuple[float, float]:
        """(steps per wall second, steps per CPU second)."""
        return self.steps / self.wall, self.steps / max(self.cpu, 1e-9)


class RoadtestRun(_Timed):
    """One 60 s run of the built-in simulator, stepped in blocks."""

    def __init__(self, bundle):
        super().__init__()
        from roadtest.sim.api import Control, SimSettings
        from roadtest.sim.embedded import EmbeddedSimulator

        self.Control = Control
        self.speedo = [{"type": "sensor.speedometer", "id": "speed"}]
        self.sim = EmbeddedSimulator().load(bundle, seed=0, settings=SimSettings(tick=1.0 / HZ, max_time=SECONDS))
        self.n_bg = sum(a.role == "background" for a in self.sim.state.actors)

    def _steps(self, n: int) -> int:
        sim, k = self.sim, 0
        while k < n and not sim.done:
            v = sim.observe(self.speedo)["speed"][1]["speed"]
            err = EGO_SPEED - v
            sim.step(self.Control(throttle=min(1.0, max(0.0, 0.5 * err)), brake=min(1.0, max(0.0, -0.5 * err))))
            k += 1
        if sim.done and self.steps + k < STEPS:
            k = STEPS - self.steps  # ended early: never, but keeps the loop finite
        return k

    def facts(self) -> dict:
        sim = self.sim
        ego = sim.state.ego
        out = {"steps": self.steps, "background_vehicles": self.n_bg, "ego_end_x": round(ego.x, 1),
               "ego_on_road": ego.lane is not None,
               "background_at_end": sum(a.role == "background" for a in sim.state.actors),
               "collisions": sum(e.kind == "collision" for s in sim.trace.states for e in s.events)}
        sim.close()
        return out


def make_highway_env(seed: int):
    import gymnasium
    import highway_env  # noqa: F401

    config = {
        "lanes_count": LANES, "vehicles_count": VEHICLES, "duration": SECONDS, "simulation_frequency": HZ,
        "policy_frequency": HZ, "observation": {"type": "Kinematics"}, "action": {"type": "DiscreteMetaAction"},
        "offscreen_rendering": True, "controlled_vehicles": 1,
        "other_vehicles_type": "highway_env.vehicle.behavior.IDMVehicle",
    }
    env = gymnasium.make("highway-v0", config=config, render_mode=None)
    reset_highway_env(env, seed)
    return env


def reset_highway_env(env, seed: int) -> None:
    """A new episode whose ego holds EGO_SPEED, as roadtest's does (highway-env's own ego starts at 25 m/s)."""
    env.reset(seed=seed)
    ego = env.unwrapped.vehicle
    ego.speed = ego.target_speed = EGO_SPEED


class HighwayStepRun(_Timed):
    """env.step with the IDLE action (kinematics observation included); early episode ends reset, untimed."""

    def __init__(self, seed: int):
        super().__init__()
        self.env, self.seed, self.resets = make_highway_env(seed), seed, 0

    def _steps(self, n: int) -> int:
        idle = 1  # DiscreteMetaAction: 0 LANE_LEFT, 1 IDLE, 2 LANE_RIGHT, 3 FASTER, 4 SLOWER
        n = min(n, STEPS - self.steps)
        for k in range(n):
            _, _, terminated, truncated, _ = self.env.step(idle)
            if terminated or truncated:
                t0, c0 = time.perf_counter(), time.process_time()
                reset_highway_env(self.env, self.seed + 1000 + self.steps + k)
                self.resets += 1
                self.wall -= time.perf_counter() - t0
                self.cpu -= time.process_time() - c0
        return n


class HighwayCoreRun(_Timed):
    """highway-env's simulation alone, as env.step runs it: every vehicle acts, then the road integrates."""

    def __init__(self, seed: int):
        super().__init__()
        self.env = make_highway_env(seed)
        self.road = self.env.unwrapped.road

    def _steps(self, n: int) -> int:
        n = min(n, STEPS - self.steps)
        road = self.road
        for _ in range(n):
            road.act()
            road.step(1.0 / HZ)
        return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="interleaved rounds; medians of the per-round ratios")
    args = ap.parse_args(argv)
    from roadtest.bundle import load_bundle

    try:
        import highway_env as he
    except ImportError as e:
        he = None
        why = f"highway-env not importable here ({e}); see this file's docstring"
    ours, core, full, info, resets = [], [], [], {}, 0
    load_before = os.getloadavg()  # the machine may be shared: the figures mean little without its load
    with tempfile.TemporaryDirectory() as tmp:
        bundle = load_bundle(write_bundle(Path(tmp) / "bench"))
        for r in range(args.repeats):
            # The sides advance in turns of BLOCK steps, in rotating order, so a busy machine slows them alike.
            gc.collect()
            runs = [RoadtestRun(bundle)] + ([HighwayCoreRun(r), HighwayStepRun(r)] if he is not None else [])
            turn = 0
            while not all(x.done for x in runs):
                for x in runs[turn % len(runs):] + runs[:turn % len(runs)]:
                    if not x.done:
                        x.run(BLOCK)
                turn += 1
            ours.append(runs[0].rates())
            info = runs[0].facts()
            if he is not None:
                core.append(runs[1].rates())
                full.append(runs[2].rates())
                resets += runs[2].resets
                runs[1].env.close()
                runs[2].env.close()
    print(f"workload: 1 ego + {VEHICLES} IDM vehicles, {LANES} lanes x {LENGTH:.0f} m, {SECONDS:.0f} s at {HZ} Hz "
          f"({STEPS} steps), no rendering; {args.repeats} rounds, the sides interleaved in blocks of {BLOCK} steps")
    print(f"load average (1/5/15 min) before {' '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")

    def rate(xs, i):
        return f"median {statistics.median(x[i] for x in xs):8.1f} steps/s (best {max(x[i] for x in xs):.1f})"

    print(f"roadtest embedded : wall {rate(ours, 0)}, CPU {rate(ours, 1)}  {info}")
    if he is None:
        print(f"highway-env       : n/a  {why}")
        return 1
    print(f"highway-env core  : wall {rate(core, 0)}, CPU {rate(core, 1)}  road.act + road.step, no observation; "
          f"highway-env {getattr(he, '__version__', '?')}")
    print(f"highway-env step  : wall {rate(full, 0)}, CPU {rate(full, 1)}  env.step with kinematics observation; "
          f"{resets} early episode ends reset")
    for i, what in ((0, "wall"), (1, "CPU")):
        r_core = statistics.median(o[i] / c[i] for o, c in zip(ours, core))
        r_full = statistics.median(o[i] / f[i] for o, f in zip(ours, full))
        print(f"ratio by {what:4s} time (median of rounds): roadtest / highway-env core {r_core:.1f}x; "
              f"roadtest / highway-env env.step {r_full:.1f}x (target >= 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
