"""Where a simulated second of a whole `roadtest run` of an OpenSCENARIO file goes, beside the simulator's core.

Workload: an ego and N storyboard vehicles on a straight three-lane 5 km road (written here), each set to a
speed in Init, a third of them changing lane and speed at set times, stopped by a SimulationTimeCondition at
T s; the file has no meta.json, as a third-party file (so the run also derives its route and default rules).
Measured in one process, in this order:
  end to end   execute_run (load, run, derive, score, write) for T=60 and T=10; the difference over the 50 s
               between them is the rate of a simulated second with start-up cancelled (the issue's measure);
  breakdown    cProfile of the T=60 run: storyboard engine (ScenarioEngine.step: triggers, actions, motion),
               trace recording (the world state each tick: lane lookups, events), scoring (metrics and
               rule monitors), writing the results (trace and score files), deriving the meta;
  growth       ms per simulated second for N in 5, 10, 20, 40 at T=60, and for T in 30, 60, 120 at N=20;
  ratios       --rounds times (default 3), in turn: the end-to-end pair of runs, the core, highway-env:
  core         benchmarks/sim_vs_highwayenv.py's RoadtestRun (ego + 20 IDM vehicles, 60 s), steps/s,
               and the ratio core / end to end (the bar: within 1.5x);
  highway-env  sim_vs_highwayenv.py's HighwayStepRun (env.step, 20 IDM vehicles, 60 s) when highway-env is
               installed, and the ratio end to end / env.step (the bar: at least 15x).

    PYTHONPATH=$PWD python3 benchmarks/xosc_run_profile.py [--quick] [--rounds N]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TICK = 0.05
LENGTH = 5000.0
LANES = 3


def xodr() -> str:
    lanes = "".join(f'<lane id="-{i}" type="driving" level="false"><link/><width sOffset="0" a="3.5" b="0" c="0" d="0"/>'
                    f'<roadMark sOffset="0" type="{"broken" if i < LANES else "solid"}" color="standard" width="0.15"/></lane>'
                    for i in range(1, LANES + 1))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE><header revMajor="1" revMinor="6" name="straight3" version="1.0"/>
<road name="main" length="{LENGTH}" id="1" junction="-1"><link/>
<type s="0" type="motorway"><speed max="130" unit="km/h"/></type>
<planView><geometry s="0" x="0" y="0" hdg="0" length="{LENGTH}"><line/></geometry></planView>
<lanes><laneSection s="0"><center><lane id="0" type="none" level="false"><roadMark sOffset="0" type="solid" color="standard" width="0.15"/></lane></center>
<right>{lanes}</right></laneSection></lanes></road></OpenDRIVE>
"""


VEHICLE = """<Vehicle name="car" vehicleCategory="car"><Performance maxSpeed="50" maxAcceleration="4" maxDeceleration="8"/>
  <BoundingBox><Center x="1.4" y="0" z="0.75"/><Dimensions width="1.8" length="4.5" height="1.5"/></BoundingBox>
  <Axles><FrontAxle maxSteering="0.6" wheelDiameter="0.6" trackWidth="1.6" positionX="2.8" positionZ="0.3"/>
  <RearAxle maxSteering="0" wheelDiameter="0.6" trackWidth="1.6" positionX="0" positionZ="0.3"/></Axles></Vehicle>"""


def _speed(v: float, shape: str = "step", value: float = 0.0) -> str:
    return (f'<PrivateAction><LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape="{shape}" '
            f'dynamicsDimension="time" value="{value}"/><SpeedActionTarget><AbsoluteTargetSpeed value="{v}"/>'
            '</SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction>')


def xosc(n: int, seconds: float) -> str:
    """Ego in lane -2 at 25 m/s; vehicle i in lane -(i % 3 + 1), spread over 1.2 km; every third changes lane."""
    names = ["Ego"] + [f"V{i}" for i in range(n)]
    ents = "".join(f'<ScenarioObject name="{m}">{VEHICLE}</ScenarioObject>' for m in names)
    init = [f'<Private entityRef="Ego"><PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-2" '
            f's="100" offset="0"/></Position></TeleportAction></PrivateAction>{_speed(25.0)}</Private>']
    stories = []
    for i in range(n):
        lane, s, v = -(i % LANES + 1), 20.0 + 1200.0 * i / max(n, 1), 22.0 + (i % 7)
        init.append(f'<Private entityRef="V{i}"><PrivateAction><TeleportAction><Position><LanePosition roadId="1" '
                    f'laneId="{lane}" s="{s:.1f}" offset="0"/></Position></TeleportAction></PrivateAction>{_speed(v)}</Private>')
        if i % 3 == 0:
            target = -2 if lane != -2 else -1
            t0 = 3.0 + (i % 5)
            stories.append(f"""<ManeuverGroup name="G{i}" maximumExecutionCount="1"><Actors selectTriggeringEntities="false">
<EntityRef entityRef="V{i}"/></Actors><Maneuver name="M{i}">
<Event name="lc{i}" priority="parallel"><Action name="lc{i}"><PrivateAction><LateralAction><LaneChangeAction>
<LaneChangeActionDynamics dynamicsShape="sinusoidal" value="4" dynamicsDimension="time"/>
<LaneChangeTarget><AbsoluteTargetLane value="{target}"/></LaneChangeTarget></LaneChangeAction></LateralAction></PrivateAction></Action>
<StartTrigger><ConditionGroup><Condition name="t{i}" delay="0" conditionEdge="rising"><ByValueCondition>
<SimulationTimeCondition value="{t0}" rule="greaterThan"/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event>
<Event name="sp{i}" priority="parallel"><Action name="sp{i}">{_speed(v + 3.0, "linear", 3.0)}</Action>
<StartTrigger><ConditionGroup><Condition name="u{i}" delay="0" conditionEdge="rising"><ByValueCondition>
<SimulationTimeCondition value="{t0 + 10.0}" rule="greaterThan"/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event>
</Maneuver></ManeuverGroup>""")
    act_start = ('<StartTrigger><ConditionGroup><Condition name="go" delay="0" conditionEdge="none"><ByValueCondition>'
                 '<SimulationTimeCondition value="0" rule="greaterOrEqual"/></ByValueCondition></Condition></ConditionGroup></StartTrigger>')
    story = f'<Story name="S"><Act name="A">{"".join(stories)}{act_start}</Act></Story>' if stories else ""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<OpenSCENARIO><FileHeader revMajor="1" revMinor="0" date="2026-01-01T00:00:00" description="bench" author="roadtest"/>
<ParameterDeclarations/><CatalogLocations/><RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>
<Entities>{ents}</Entities><Storyboard><Init><Actions>{"".join(init)}</Actions></Init>{story}
<StopTrigger><ConditionGroup><Condition name="end" delay="0" conditionEdge="rising"><ByValueCondition>
<SimulationTimeCondition value="{seconds}" rule="greaterThan"/></ByValueCondition></Condition></ConditionGroup></StopTrigger>
</Storyboard></OpenSCENARIO>
"""


def write_file(folder: Path, n: int, seconds: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "road.xodr").write_text(xodr())
    p = folder / f"bench_{n}v_{seconds:g}s.xosc"
    p.write_text(xosc(n, seconds))
    return p


def run_once(path: Path, out: Path, agent: str | None = None) -> tuple[float, dict]:
    """Process CPU seconds of one execute_run (what a worker does for one run; CPU time, which other users of a
    shared machine disturb least) and its record."""
    from roadtest.runner.episode import Job, execute_run

    job = Job(run_id=f"{path.stem}__{agent or 'scenario'}", bundle=str(path), variant=path.stem, seed=0, agent=agent,
              tick=TICK, out=str(out), timeout=600.0)
    t0 = time.process_time()
    rec = execute_run(job)
    wall = time.process_time() - t0
    if rec["status"] != "completed":
        raise SystemExit(f"{path.name}: {rec['status']}: {rec.get('reason')}")
    return wall, rec


GROUPS = {  # part of a run -> functions whose cumulative time it is (the first one found on the stack counts)
    "storyboard engine": ["engine.py:step"],
    "trace recording": ["simulator.py:_build_state"],
    "scoring (metrics + rules)": ["score.py:score_run"],
    "writing results": ["api.py:save", "episode.py:write_json_atomic"],
    "deriving meta": ["derived_meta.py:meta_from_run", "derived_meta.py:derive_meta"],
    "loading": ["simulator.py:load", "bundle.py:load_bundle"],
}


def breakdown(path: Path, out: Path) -> tuple[dict[str, float], float, str]:
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    run_once(path, out)
    prof.disable()
    total = time.perf_counter() - t0
    st = pstats.Stats(prof)
    cum: dict[str, float] = {}
    for (file, _line, fn), (_cc, _nc, _tt, ct, _callers) in st.stats.items():
        key = f"{Path(file).name}:{fn}"
        cum[key] = cum.get(key, 0.0) + ct
    parts = {g: sum(cum.get(k, 0.0) for k in keys) for g, keys in GROUPS.items()}
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(15)
    return parts, total, s.getvalue()


def core_rate() -> float:
    """sim_vs_highwayenv's roadtest core: steps per CPU second of ego + 20 IDM vehicles for 60 s."""
    from sim_vs_highwayenv import STEPS, RoadtestRun, write_bundle

    with tempfile.TemporaryDirectory() as d:
        run = RoadtestRun(write_bundle(Path(d) / "b"))
        while not run.done:
            run.run(STEPS)
        return run.rates()[1]


def highway_rate() -> float | None:
    """sim_vs_highwayenv's highway-env env.step: steps per CPU second of 60 s with 20 IDM vehicles (None when
    highway-env is not installed)."""
    try:
        import highway_env  # noqa: F401
    except ImportError:
        return None
    from sim_vs_highwayenv import HighwayStepRun

    run = HighwayStepRun(0)
    while not run.done:
        run.run(50)
    run.env.close()
    return run.rates()[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the growth table")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the ratio measurements (medians reported)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        long, short = write_file(d / "f", 20, 60.0), write_file(d / "f", 20, 10.0)
        run_once(short, d / "warm")  # imports and map caches out of the way
        w60, rec = run_once(long, d / "o60")
        w10, _ = run_once(short, d / "o10")
        steps = (60.0 - 10.0) / TICK
        e2e = steps / (w60 - w10)
        print(f"end to end (execute_run, ego + 20 storyboard vehicles, 3 lanes, CPU time): T=60 {w60:.2f} s, T=10 {w10:.2f} s -> "
              f"{e2e:.0f} steps/s over the 50 s between them ({rec['ticks']} ticks in the 60 s run)")
        parts, total, top = breakdown(long, d / "prof")
        parts10, total10, _ = breakdown(short, d / "prof10")
        print(f"\nbreakdown under cProfile (T=60 {total:.2f} s, T=10 {total10:.2f} s; profiling inflates every part), "
              "per simulated second (T=60 minus T=10, over 50 s) and per run (the T=10 run less 10 of those seconds):")
        marg = {g: (parts[g] - parts10[g]) / 50.0 for g in parts}
        for g in parts:
            fixed = parts10[g] - 10.0 * marg[g]
            print(f"  {g:28s} {1000 * marg[g]:8.1f} ms/s  {100 * marg[g] / ((total - total10) / 50.0):5.1f} %"
                  f"   start-up {fixed:6.2f} s")
        print("  (groups nest where one calls another: loading includes the map, deriving includes nothing it reruns)")
        print("\ntop functions by own time (T=60):\n" + "\n".join(top.splitlines()[6:26]))
        if not args.quick:
            print("\ngrowth, ms of CPU time per simulated second (execute_run, minus a T=10 run of the same file):")
            for n in (5, 10, 20, 40):
                a, b = write_file(d / f"n{n}", n, 60.0), write_file(d / f"n{n}", n, 10.0)
                wa, _ = run_once(a, d / f"on{n}a")
                wb, _ = run_once(b, d / f"on{n}b")
                print(f"  N={n:3d} vehicles, T=60: {1000 * (wa - wb) / 50.0:7.1f} ms/s")
            for T in (30.0, 120.0):
                a = write_file(d / f"t{T:g}", 20, T)
                wa, _ = run_once(a, d / f"ot{T:g}")
                print(f"  N= 20 vehicles, T={T:g}: {1000 * (wa - w10) / (T - 10.0):7.1f} ms/s")
        print(f"\nratios, {args.rounds} rounds of: end to end (T=60 minus T=10), the core, highway-env env.step "
              "(CPU time each; medians of the rounds' ratios, so a busy machine slows the sides alike):")
        rows = []
        for r in range(args.rounds):
            a, _ = run_once(long, d / f"r{r}a")
            b, _ = run_once(short, d / f"r{r}b")
            rows.append((steps / (a - b), core_rate(), highway_rate()))
            hw_txt = f"{rows[-1][2]:6.0f}" if rows[-1][2] else "   n/a"
            print(f"  round {r + 1}: end to end {rows[-1][0]:6.0f} steps/s, core {rows[-1][1]:6.0f}, highway-env env.step {hw_txt}")
        med = statistics.median
        print(f"core (sim_vs_highwayenv RoadtestRun, ego + 20 IDM vehicles) / end to end = "
              f"{med(c / e for e, c, _ in rows):.2f}x (target <= 1.5x)")
        if all(h for _, _, h in rows):
            print(f"end to end / highway-env env.step (sim_vs_highwayenv HighwayStepRun, 20 IDM vehicles) = "
                  f"{med(e / h for e, _, h in rows):.1f}x (target >= 15x)")
        else:
            print("end to end / highway-env env.step: n/a (highway-env not importable here; pip install highway-env)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
