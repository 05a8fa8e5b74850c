"""Lane graph: nodes (road, section, lane); edges from lane links across sections, roads and
junctions, oriented by each lane's driving direction; Dijkstra routing with lane changes."""

from __future__ import annotations

import heapq
import itertools

from roadtest.sim.road.api import LaneSegment
from roadtest.sim.road.model import DRIVING_TYPES, Road, states_links
from roadtest.sim.road.reader import ParsedMap

__all__ = ["LaneGraph", "Node", "LANE_CHANGE_COST", "driving"]

Node = tuple[str, int, int]  # (road id, section index, lane id)
LANE_CHANGE_COST = 10.0  # m added per lane change, so a route keeps its lane when it can


class LaneGraph:
    """Directed successor edges between lane nodes, built from the parsed links."""

    def __init__(self, pm: ParsedMap):
        self.roads = pm.roads
        self.succ: dict[Node, list[tuple[Node, bool]]] = {}  # node -> [(next node, crosses to another road?)]
        self.pred: dict[Node, list[tuple[Node, bool]]] = {}
        links: dict[tuple[tuple[Node, str], tuple[Node, str]], bool] = {}  # -> crosses to another road

        def add(a: Node, ea: str, b: Node, eb: str, cross: bool = True) -> None:
            key = ((a, ea), (b, eb)) if (a, ea) <= (b, eb) else ((b, eb), (a, ea))
            links[key] = links.get(key, False) or cross

        for road in pm.roads.values():
            secs = road.sections
            for k, sec in enumerate(secs):
                for lane in sec.lanes.values():
                    if lane.id == 0:
                        continue
                    if k + 1 < len(secs):
                        nxt = lane.succ or ([lane.id] if lane.id in secs[k + 1].lanes and not states_links(sec) else [])
                        for m in nxt:
                            if m in secs[k + 1].lanes:
                                add((road.id, k, lane.id), "end", (road.id, k + 1, m), "start", False)
                    if k > 0:
                        for m in lane.pred:
                            if m in secs[k - 1].lanes:
                                add((road.id, k - 1, m), "end", (road.id, k, lane.id), "start", False)
            for link, k, end, attr in ((road.succ, len(secs) - 1, "end", "succ"), (road.pred, 0, "start", "pred")):
                if link is None or link.element_type != "road":
                    continue
                other = pm.roads[link.element_id]
                ok = len(other.sections) - 1 if link.contact == "end" else 0
                for lane in secs[k].lanes.values():
                    for m in getattr(lane, attr):
                        if lane.id != 0 and m in other.sections[ok].lanes:
                            add((road.id, k, lane.id), end, (other.id, ok, m), link.contact)
        for j in pm.junctions.values():
            for c in j.connections:
                inc, con = pm.roads[c.incoming], pm.roads[c.connecting]
                if inc.succ is not None and inc.succ.element_type == "junction" and inc.succ.element_id == j.id:
                    ik, iend = len(inc.sections) - 1, "end"
                elif inc.pred is not None and inc.pred.element_type == "junction" and inc.pred.element_id == j.id:
                    ik, iend = 0, "start"
                else:
                    continue
                ck = 0 if c.contact == "start" else len(con.sections) - 1
                for fr, to in c.lane_links:
                    if fr in inc.sections[ik].lanes and to in con.sections[ck].lanes:
                        add((inc.id, ik, fr), iend, (con.id, ck, to), c.contact)
        for ((a, ea), (b, eb)), cross in sorted(links.items()):
            for (p, ep), (q, eq) in (((a, ea), (b, eb)), ((b, eb), (a, ea))):
                if self._exits(p, ep) and self._enters(q, eq):
                    self.succ.setdefault(p, []).append((q, cross))
                    self.pred.setdefault(q, []).append((p, cross))

    def sign(self, node: Node) -> int:
        return self.roads[node[0]].lane_sign(node[2], node[1])

    def _exits(self, node: Node, end: str) -> bool:
        return (end == "end") == (self.sign(node) > 0)

    def _enters(self, node: Node, end: str) -> bool:
        return (end == "start") == (self.sign(node) > 0)

    def sections_with(self, road: str, lane: int) -> list[int]:
        """Section indices holding the lane, in the lane's driving order."""
        r = self.roads[road]
        ks = [k for k, sec in enumerate(r.sections) if lane in sec.lanes]
        return ks if r.lane_sign(lane) > 0 else ks[::-1]

    def road_neighbours(self, road: str, lane: int, forward: bool, s: float | None = None) -> list[tuple[str, int]]:
        """Lanes reached beyond this road's end (forward) or before its start, following sections."""
        table = self.succ if forward else self.pred
        ks = self.sections_with(road, lane)
        if not ks:
            return []
        if s is not None:
            si = self.roads[road].section_index(s, lane)
            start = si if si in ks else (ks[-1] if forward else ks[0])
        else:
            start = ks[-1] if forward else ks[0]
        out: list[tuple[str, int]] = []
        seen = {(road, start, lane)}
        stack = [(road, start, lane)]
        while stack:
            node = stack.pop()
            for nxt, cross in table.get(node, []):
                if cross:
                    if (nxt[0], nxt[2]) not in out:
                        out.append((nxt[0], nxt[2]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return out

    def route(self, start: tuple[str, int, float], goal: tuple[str, int, float],
              lane_changes) -> list[LaneSegment]:
        """Dijkstra over (node, entry s); lane changes happen at the entry s of a node, cost LANE_CHANGE_COST.

        lane_changes(node) yields adjacent nodes of the same section one may change to.
        """
        sr, sl, ss = start
        gr, gl, gs = goal
        s_node = (sr, self.roads[sr].section_index(ss, sl), sl)
        g_node = (gr, self.roads[gr].section_index(gs, gl), gl)
        tie = itertools.count()
        heap = [(0.0, next(tie), s_node, ss, None, False)]
        best: dict[tuple[Node, float], float] = {}
        parent: dict[tuple[Node, float], tuple[Node, float] | None] = {}
        while heap:
            cost, _, node, entry, prev, final = heapq.heappop(heap)
            key = (node, round(entry, 6))
            if final:
                parent_chain = [(node, entry, gs)]
                cur = parent[prev]  # prev is this node's own state
                while cur is not None:
                    parent_chain.append((cur[0], cur[1], None))
                    cur = parent[cur]
                return self._segments(parent_chain[::-1])
            if key in best:
                continue
            best[key] = cost
            parent[key] = prev
            road = self.roads[node[0]]
            sign = self.sign(node)
            sec = road.sections[node[1]]
            if node == g_node and (gs - entry) * sign >= -1e-9:
                heapq.heappush(heap, (cost + abs(gs - entry), next(tie), node, entry, key, True))
            exit_s = sec.s_end if sign > 0 else sec.s
            for nxt, _ in self.succ.get(node, []):
                nsec = self.roads[nxt[0]].sections[nxt[1]]
                n_entry = nsec.s if self.sign(nxt) > 0 else nsec.s_end
                heapq.heappush(heap, (cost + abs(exit_s - entry), next(tie), nxt, n_entry, key, False))
            for nb in lane_changes(node, entry):
                heapq.heappush(heap, (cost + LANE_CHANGE_COST, next(tie), nb, entry, key, False))
        return []

    def _segments(self, chain: list[tuple[Node, float, float | None]]) -> list[LaneSegment]:
        segs: list[LaneSegment] = []
        for i, (node, entry, end) in enumerate(chain):
            if end is None:
                nxt_node, nxt_entry, _ = chain[i + 1]
                if nxt_node[:2] == node[:2] and abs(nxt_entry - entry) < 1e-9 and nxt_node[2] != node[2]:
                    continue  # a lane change at the entry: nothing driven in this lane
                sec = self.roads[node[0]].sections[node[1]]
                end = sec.s_end if self.sign(node) > 0 else sec.s
            if segs and segs[-1].road == node[0] and segs[-1].lane == node[2] and abs(segs[-1].s_end - entry) < 1e-6:
                segs[-1] = LaneSegment(node[0], node[2], segs[-1].s_start, end)
            else:
                segs.append(LaneSegment(node[0], node[2], entry, end))
        return [g for g in segs if abs(g.s_end - g.s_start) > 1e-9] or segs[-1:]


def driving(road: Road, si: int, lane: int) -> bool:
    ln = road.sections[si].lanes.get(lane)
    return ln is not None and ln.type in DRIVING_TYPES
