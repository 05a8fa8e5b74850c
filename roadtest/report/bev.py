"""Bird's-eye view of one tick: the map from `roadtest map`'s drawer, then actors, route, plan and reference over it.

North-up, centred on the ego. The road is drawn once, at the view's scale, by
roadtest.sim.road.draw; each frame crops it and draws what moves. A long east-west band of road (a straight
road) would leave most of a square frame empty, so there the frame stacks rows, each `span` metres of the
band at the same scale, the first from just behind the ego, like lines of text.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from roadtest.report.rundata import RunData
from roadtest.sim.api import ActorState, WorldState

__all__ = ["BevRenderer", "ROLE_COLORS", "LIGHT_COLORS", "planned_world"]

ROLE_COLORS = {"ego": (235, 120, 20), "scenario": (30, 140, 255), "background": (150, 150, 150)}  # BGR
LIGHT_COLORS = {"red": (40, 40, 230), "yellow": (0, 215, 255), "green": (60, 200, 60), "red_yellow": (0, 140, 255),
                "off": (90, 90, 90)}
ROUTE_COLOR = (200, 200, 0)
PLAN_COLOR = (200, 40, 220)
REFERENCE_COLOR = (40, 170, 40)
_BG = (205, 225, 205)
_MAX_MAP_PX = 60e6  # pixels of the pre-drawn map; larger maps are drawn coarser


def planned_world(ego: ActorState, planned: Sequence[Sequence[float]]) -> np.ndarray:
    """The agent's plan (ego frame: x forward, y left) in world coordinates."""
    p = np.asarray(planned, dtype=float).reshape(-1, 2)
    c, s = math.cos(ego.h), math.sin(ego.h)
    return np.column_stack([ego.x + c * p[:, 0] - s * p[:, 1], ego.y + s * p[:, 0] + c * p[:, 1]])


class BevRenderer:
    """Draws state i of a run as a size x size BGR image covering `span` metres around the ego."""

    def __init__(self, run: RunData, size: int = 640, span: float = 80.0):
        self.run, self.size, self.span = run, size, span
        self.scale = size / span  # px/m wanted
        self.map = self.view = None
        if run.network is not None:
            from roadtest.sim.road.draw import render_map_view

            strips_hint = [r.length for r in run.network.roads.values()]
            area_guess = max(sum(strips_hint), 1.0) ** 2
            scale = min(self.scale, math.sqrt(_MAX_MAP_PX / area_guess)) if area_guess * self.scale ** 2 > _MAX_MAP_PX \
                else self.scale
            self.map, self.view = render_map_view(run.network, scale=scale, decorations=False)
            self.scale = self.view.scale
        self.win = max(8, int(round(span * self.scale)))
        self.strip = self._strip_layout()
        self.route = np.asarray((run.meta.get("route") or {}).get("waypoints") or [], dtype=float).reshape(-1, 2)
        self.lights = self._lights()
        ref = run.reference
        self.ref_ego = None
        if ref is not None:
            pts = [(st.time, st.ego.x, st.ego.y, st.ego.h) for st in ref.states if st.ego is not None]
            self.ref_ego = np.array(pts, dtype=float).reshape(-1, 4)

    def _strip_layout(self) -> tuple[int, int] | None:
        """(row height px, rows) when the map is an east-west band at least two rows of which fit the frame."""
        if self.map is None:
            return None
        lo, hi = self.view.lo, self.view.hi
        rh = int(math.ceil((hi[1] - lo[1]) * self.scale))
        rows = min(self.win // max(rh, 1), int(math.ceil((hi[0] - lo[0]) / self.span)))
        return (rh, rows) if rh > 0 and rows >= 2 else None

    def _lights(self) -> list[tuple[str, float, float]]:
        """(signal id, x, y) of each light of meta.scene, placed on the map."""
        out = []
        net = self.run.network
        for lt in ((self.run.meta.get("scene") or {}).get("lights") or []):
            sid = str(lt.get("signal_id") or lt.get("id"))
            sg = net.signals.get(sid) if net is not None else None
            if sg is not None:
                x, y, _ = net.roads[sg.road].world(sg.s, sg.t)
                out.append((sid, float(x[0]), float(y[0])))
            elif net is not None and lt.get("road") in net.roads:
                x, y, _ = net.roads[str(lt["road"])].world(float(lt.get("s", 0.0)), 0.0)
                out.append((sid, float(x[0]), float(y[0])))
        return out

    # world metres -> crop pixels (float), given the crop's world centre
    def _to_px(self, xy: np.ndarray, cx: float, cy: float) -> np.ndarray:
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        u = (xy[:, 0] - cx) * self.scale + self.win / 2
        v = (cy - xy[:, 1]) * self.scale + self.win / 2
        return np.column_stack([u, v])

    def _fx(self, pts: np.ndarray) -> np.ndarray:
        return np.round(pts * 4).astype(np.int32)

    def _crop(self, cx: float, cy: float) -> np.ndarray:
        img = np.full((self.win, self.win, 3), _BG, np.uint8)
        if self.map is None:
            return img
        v = self.view
        u0 = int(round((cx - v.lo[0]) * v.scale + v.margin - self.win / 2))
        v0 = int(round((v.hi[1] - cy) * v.scale + v.margin - self.win / 2))
        h, w = self.map.shape[:2]
        a0, b0 = max(0, u0), max(0, v0)
        a1, b1 = min(w, u0 + self.win), min(h, v0 + self.win)
        if a1 > a0 and b1 > b0:
            img[b0 - v0:b1 - v0, a0 - u0:a1 - u0] = self.map[b0:b1, a0:a1]
        # the crop's exact world centre, so overlays line up with the map's own pixels
        self._cx = v.lo[0] + (u0 + self.win / 2 - v.margin) / v.scale
        self._cy = v.hi[1] - (v0 + self.win / 2 - v.margin) / v.scale
        return img

    def _box(self, img: np.ndarray, a: ActorState, cx: float, cy: float, color, thick: int = -1) -> None:
        import cv2

        aa = dict(lineType=cv2.LINE_AA, shift=2)
        if a.kind in ("pedestrian", "walker", "officer", "police_officer"):
            c = self._fx(self._to_px([a.x, a.y], cx, cy))[0]
            r = int(4 * max(5, 0.5 * self.scale))
            cv2.circle(img, (int(c[0]), int(c[1])), r, color, thick, **aa)
            cv2.circle(img, (int(c[0]), int(c[1])), r, (30, 30, 30), 1, **aa)
            return
        c, s = math.cos(a.h), math.sin(a.h)
        loc = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]]) * [a.length / 2, a.width / 2]
        world = np.column_stack([a.x + c * loc[:, 0] - s * loc[:, 1], a.y + s * loc[:, 0] + c * loc[:, 1]])
        poly = self._fx(self._to_px(world, cx, cy))
        cv2.fillPoly(img, [poly], color, **aa) if thick < 0 else cv2.polylines(img, [poly], True, color, thick, **aa)
        nose = self._fx(self._to_px([[a.x + c * a.length * 0.2, a.y + s * a.length * 0.2],
                                     [a.x + c * a.length / 2, a.y + s * a.length / 2]], cx, cy))
        cv2.line(img, tuple(int(q) for q in nose[0]), tuple(int(q) for q in nose[1]), (255, 255, 255), 2, **aa)

    def center(self, st: WorldState) -> tuple[float, float]:
        ego = st.ego or (st.actors[0] if st.actors else None)
        return (ego.x, ego.y) if ego is not None else (0.0, 0.0)

    def draw(self, i: int) -> np.ndarray:
        """The view of state i."""
        import cv2

        img = self._draw_strips(i) if self.strip else self._draw_at(i, *self.center(self.run.states[i]))
        if img.shape[0] != self.size:
            img = cv2.resize(img, (self.size, self.size), interpolation=cv2.INTER_AREA)
        if self.map is None:
            cv2.putText(img, "no road.xodr found: road not drawn", (10, self.size - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                        (60, 60, 60), 1, cv2.LINE_AA)
        return img

    def _draw_strips(self, i: int) -> np.ndarray:
        """Rows of the band, each `span` metres long, the first starting a quarter span behind the ego."""
        import cv2

        rh, rows = self.strip
        lo, hi = self.view.lo, self.view.hi
        ex, _ = self.center(self.run.states[i])
        x0 = min(max(ex - self.span / 4, lo[0]), max(lo[0], hi[0] - rows * self.span))
        cy = (lo[1] + hi[1]) / 2
        img = np.full((self.win, self.win, 3), _BG, np.uint8)
        top = (self.win - rows * rh) // 2
        band = (self.win - rh) // 2
        for k in range(rows):
            a = x0 + k * self.span
            sq = self._draw_at(i, a + self.span / 2, cy)
            img[top + k * rh:top + (k + 1) * rh] = sq[band:band + rh]
            if k:
                cv2.line(img, (0, top + k * rh), (self.win - 1, top + k * rh), (60, 60, 60), 2)
            cv2.putText(img, f"x {a:.0f}..{a + self.span:.0f} m", (6, top + k * rh + 16), cv2.FONT_HERSHEY_SIMPLEX,
                        0.45, (40, 40, 40), 1, cv2.LINE_AA)
        return img

    def _draw_at(self, i: int, cx: float, cy: float) -> np.ndarray:
        """The win x win view of state i centred at world (cx, cy), before scaling to the frame."""
        import cv2

        run = self.run
        st = run.states[i]
        self._cx, self._cy = cx, cy
        img = self._crop(cx, cy)
        cx, cy = self._cx, self._cy
        aa = dict(lineType=cv2.LINE_AA, shift=2)
        lw = max(2, int(round(0.35 * self.scale)))
        if len(self.route) >= 2:
            cv2.polylines(img, [self._fx(self._to_px(self.route, cx, cy))], False, ROUTE_COLOR, lw, **aa)
        if self.ref_ego is not None and len(self.ref_ego):
            cv2.polylines(img, [self._fx(self._to_px(self.ref_ego[:, 1:3], cx, cy))], False, REFERENCE_COLOR,
                          max(1, lw // 2), **aa)
            k = int(np.searchsorted(self.ref_ego[:, 0], st.time - 1e-9))
            if k < len(self.ref_ego):
                t, x, y, h = self.ref_ego[k]
                ego = st.ego
                ghost = ActorState(id="reference", role="reference", kind="car", x=x, y=y, z=0.0, h=h, speed=0.0,
                                   length=ego.length if ego else 4.5, width=ego.width if ego else 1.8)
                self._box(img, ghost, cx, cy, REFERENCE_COLOR, thick=2)
        for sid, x, y in self.lights:
            state = str(st.signals.get(sid, "off")).lower()
            c = self._fx(self._to_px([x, y], cx, cy))[0]
            r = int(4 * max(6, 0.9 * self.scale))
            cv2.circle(img, (int(c[0]), int(c[1])), r, LIGHT_COLORS.get(state, LIGHT_COLORS["off"]), -1, **aa)
            cv2.circle(img, (int(c[0]), int(c[1])), r, (20, 20, 20), 2, **aa)
        for a in sorted(st.actors, key=lambda a: a.role == "ego"):
            if not a.visible:
                continue
            self._box(img, a, cx, cy, ROLE_COLORS.get(a.role, ROLE_COLORS["background"]))
            if a.role == "scenario":
                u, v = self._to_px([a.x, a.y], cx, cy)[0]
                cv2.putText(img, a.id[:16], (int(u) + 10, int(v) - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (20, 20, 20), 1,
                            cv2.LINE_AA)
        k = run.agent_at(st.time)
        if k is not None and st.ego is not None and run.trace.agent[k].planned:
            pts = self._fx(self._to_px(planned_world(st.ego, run.trace.agent[k].planned), cx, cy))
            cv2.polylines(img, [pts], False, PLAN_COLOR, max(2, lw // 2), **aa)
            for p in pts:
                cv2.circle(img, (int(p[0]), int(p[1])), 4 * 3, PLAN_COLOR, -1, **aa)
        return img
