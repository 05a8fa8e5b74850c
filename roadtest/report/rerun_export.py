"""`roadtest replay RUN_DIR --rerun -o run.rrd`: a recording for the Rerun viewer, on the simulation timeline.

Entities (all under the `sim_time` timeline, seconds):
  world/road          lane boundaries as line strips (static)
  world/route         the ego's route (static)
  world/signs         signs and lights of the map as labelled points (static)
  world/actors        every actor as a box, each tick
  world/lights        traffic lights coloured by their state, each tick
  world/ego/planned   the agent's planned trajectory in the world frame
  world/reference     the expert's ego at the same time
  plots/speed, plots/speed_limit (km/h), plots/robustness/<rule>, plots/controls/{throttle,brake,steer}
  log/agent           what the agent said (text, and the VLM record's signs and reason)
  log/events          collisions and rule violations as warnings
  camera/<view>       saved camera frames, when the run kept them
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from roadtest.errors import DependencyMissing, UserError
from roadtest.report.rundata import RunData

__all__ = ["export_rerun", "rerun_command", "TIMELINE", "ROBUST_CLIP"]

TIMELINE = "sim_time"
ROBUST_CLIP = 50.0  # robustness beyond this is plotted at the bound (the signals' NONE value is 1000)


def _rr():
    try:
        import rerun as rr
    except ImportError as e:
        raise DependencyMissing("rerun-sdk", "replay") from e
    return rr


def _rgb(bgr) -> list[int]:
    return [int(bgr[2]), int(bgr[1]), int(bgr[0])]


def _static(rec, rr, run: RunData) -> None:
    from roadtest.report.bev import ROUTE_COLOR

    if run.network is not None:
        from roadtest.sim.road.draw import lane_strips

        strips = []
        for road, si, lane, s, inner, outer in lane_strips(run.network):
            if lane.id != 0:
                strips.append(np.column_stack([outer, np.zeros(len(outer))]))
            if abs(lane.id) == 1:  # the reference line side, once per side
                strips.append(np.column_stack([inner, np.zeros(len(inner))]))
        rec.log("world/road", rr.LineStrips3D(strips, colors=[[90, 90, 90]], radii=[0.05]), static=True)
        pts, labels = [], []
        for sg in run.network.placed_signals:
            x, y, _ = run.network.roads[sg.road].world(sg.s, sg.t)
            pts.append([float(x[0]), float(y[0]), 2.0])
            labels.append(f"{sg.type}" + (f".{sg.subtype}" if sg.subtype not in ("-1", "", "none") else ""))
        if pts:
            rec.log("world/signs", rr.Points3D(pts, labels=labels, radii=[0.4], colors=[[220, 40, 40]]), static=True)
    route = (run.meta.get("route") or {}).get("waypoints") or []
    if len(route) >= 2:
        r = np.asarray(route, dtype=float)
        rec.log("world/route", rr.LineStrips3D([np.column_stack([r, np.full(len(r), 0.05)])],
                                               colors=[_rgb(ROUTE_COLOR)], radii=[0.15]), static=True)


def _series(rec, rr, run: RunData) -> None:
    """The time series, sent as columns (one call per series)."""
    ego_t = [st.time for st in run.states if st.ego is not None]
    speed = [st.ego.speed * 3.6 for st in run.states if st.ego is not None]
    send = lambda path, ts, vs: rec.send_columns(path, indexes=[rr.TimeColumn(TIMELINE, duration=ts)],
                                                 columns=rr.Scalars.columns(scalars=vs))
    if ego_t:
        send("plots/speed", ego_t, speed)
    if run.signals is not None:
        lim = [(v * 3.6 if v < 999.0 else math.nan) for v in run.limit_series()]
        send("plots/speed_limit", run.signals.time, lim)
        for r in run.rules or []:
            vs = [float(np.clip(v, -ROBUST_CLIP, ROBUST_CLIP)) if math.isfinite(v) else math.nan for v in r.robustness]
            send(f"plots/robustness/{r.id}", list(r.times), vs)
    if run.trace.agent:
        ts = [a.time for a in run.trace.agent]
        for name in ("throttle", "brake", "steer"):
            send(f"plots/controls/{name}", ts, [float(getattr(a.control, name)) for a in run.trace.agent])


def export_rerun(run: RunData, out: Path, cameras: list | None = None) -> None:
    """Write the run as a Rerun recording to `out`."""
    from roadtest.report.bev import LIGHT_COLORS, PLAN_COLOR, REFERENCE_COLOR, ROLE_COLORS, planned_world
    from roadtest.report.vlm_answers import answer_of

    rr = _rr()
    out.parent.mkdir(parents=True, exist_ok=True)
    rec = rr.RecordingStream("roadtest", recording_id=run.run_id)
    rec.save(str(out))
    _static(rec, rr, run)
    _series(rec, rr, run)
    lights = []
    if run.network is not None:
        for lt in ((run.meta.get("scene") or {}).get("lights") or []):
            sg = run.network.signals.get(str(lt.get("signal_id") or lt.get("id")))
            if sg is not None:
                x, y, _ = run.network.roads[sg.road].world(sg.s, sg.t)
                lights.append((sg.id, [float(x[0]), float(y[0]), 3.0]))
    ref = {round(st.time, 6): st.ego for st in run.reference.states if st.ego is not None} if run.reference else {}
    last_text, last_light = None, None
    agent_k = 0
    violation_starts = {(rid, round(t, 6)) for rid, t, _ in run.violations()}
    for st in run.states:
        rec.set_time(TIMELINE, duration=st.time)
        acts = [a for a in st.actors if a.visible]
        rec.log("world/actors", rr.Boxes3D(
            centers=[[a.x, a.y, a.z + a.height / 2] for a in acts],
            half_sizes=[[a.length / 2, a.width / 2, a.height / 2] for a in acts],
            rotation_axis_angles=[rr.RotationAxisAngle(axis=[0, 0, 1], radians=a.h) for a in acts],
            colors=[_rgb(ROLE_COLORS.get(a.role, ROLE_COLORS["background"])) for a in acts],
            labels=[f"{a.id} {a.speed * 3.6:.0f} km/h" for a in acts]))
        if lights:
            state = tuple(str(st.signals.get(sid, "off")) for sid, _ in lights)
            if state != last_light:
                rec.log("world/lights", rr.Points3D([p for _, p in lights], radii=[0.8], labels=list(state),
                                                    colors=[_rgb(LIGHT_COLORS.get(s, LIGHT_COLORS["off"])) for s in state]))
                last_light = state
        g = ref.get(round(st.time, 6))
        if g is not None:
            rec.log("world/reference", rr.Boxes3D(centers=[[g.x, g.y, g.height / 2]],
                                                  half_sizes=[[g.length / 2, g.width / 2, g.height / 2]],
                                                  rotation_axis_angles=[rr.RotationAxisAngle(axis=[0, 0, 1], radians=g.h)],
                                                  colors=[_rgb(REFERENCE_COLOR)], labels=["expert"]))
        while agent_k < len(run.trace.agent) and run.trace.agent[agent_k].time <= st.time + 1e-9:
            a = run.trace.agent[agent_k]
            if a.planned and st.ego is not None:
                p = planned_world(st.ego, a.planned)
                rec.log("world/ego/planned", rr.LineStrips3D([np.column_stack([p, np.full(len(p), 0.3)])],
                                                             colors=[_rgb(PLAN_COLOR)], radii=[0.12]))
            ans = answer_of(run.agent_records[agent_k] if agent_k < len(run.agent_records) else None, a.time)
            text = a.text or ""
            if ans is not None:
                extra = [f"signs: {', '.join(ans.signs) or 'none'}"] + [f"{k}: {v}" for k, v in
                                                                         (("light", ans.light), ("reason", ans.reason)) if v]
                text = " | ".join([text] + extra if text else extra)
            if text and text != last_text:
                rec.log("log/agent", rr.TextLog(text, level="INFO"))
                last_text = text
            agent_k += 1
        for ev in st.events:
            if ev.kind == "collision" and st.ego is not None and ev.actor == st.ego.id:
                rec.log("log/events", rr.TextLog(f"collision with {ev.other}", level="WARN"))
        for r in run.rules or []:
            if (r.id, round(st.time, 6)) in violation_starts:
                rec.log("log/events", rr.TextLog(f"{r.id} violated", level="WARN"))
        for cam in cameras or []:
            img = cam.image(st.frame)
            if img is not None:
                rec.log(f"camera/{cam.name}", rr.Image(img[:, :, ::-1]).compress(jpeg_quality=85))
    rec.flush()
    rec.disconnect()


def rerun_command(run_dir: Path, out: Path) -> int:
    """Write RUN_DIR as a .rrd recording."""
    from roadtest.report.cameras import CameraSource, saved_views
    from roadtest.report.rundata import load_run

    if not str(out).endswith(".rrd"):
        raise UserError(f"-o {out}: expected a .rrd file name with --rerun")
    _rr()
    run = load_run(run_dir)
    cams = [CameraSource(v, run.run_dir / "sensors" / v) for v in saved_views(run.run_dir)]
    export_rerun(run, out, cams)
    print(f"wrote {out} ({len(run.states)} ticks, open with: rerun {out})")
    return 0
