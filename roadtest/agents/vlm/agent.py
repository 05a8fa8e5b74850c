"""The VLM agent: at a decision rate it asks a model what it sees (perception), then where to drive (planning),
or both at once (end_to_end); a tracking controller follows the latest valid plan every tick.

Each decision leaves a record in the trace (AgentOutput.record): prompt ids and hashes, the frames sent
(numbers and image hashes), the raw answers, what was parsed and repaired, tokens and latency. A bad
answer keeps the last valid plan until it expires (`plan_hold_s` past the next decision), then the car
brakes; `max_consecutive_failures` failed calls in a row (after bounded retries) end the run as agent_error.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Mapping

from roadtest.agents.base import AutonomousAgent, load_config, sensor_data, sensor_spec
from roadtest.agents.vlm import answers
from roadtest.agents.vlm.backends import Answer, BackendCallError, make_backend
from roadtest.agents.vlm.config import merge_config
from roadtest.agents.vlm.inputs import camera_specs, image_digest, pose_from, rgb_image, route_ahead, route_command, stitch
from roadtest.agents.vlm.prompts import country_info, load_prompts, speed_unit_factor
from roadtest.agents.vlm.tracker import Plan, Tracker
from roadtest.errors import RoadtestError
from roadtest.sim.route_path import RoutePath

__all__ = ["VLMAgent", "ModelServerError", "RECORD_KIND"]

RECORD_KIND = "vlm_decision"
RAW_LIMIT = 4000  # characters of a raw answer kept in the record


class ModelServerError(RoadtestError):
    """The model failed too many decisions in a row; the runner ends the run as agent_error with this message."""


class VLMAgent(AutonomousAgent):
    """`roadtest run ... --agent vlm --agent-config my_vlm.yaml` (keys: roadtest/agents/vlm/config.py)."""

    track = "SENSORS"

    @classmethod
    def check_config(cls, path: str | Path) -> None:
        """Raise UserError for a config file that setup() would refuse, before any worker starts."""
        merge_config(load_config(path), path)

    @classmethod
    def server_scope(cls, path: str | Path) -> dict[str, Any]:
        """The model server and its run limit (`max_concurrency`), for the runner's server limits."""
        c = merge_config(load_config(path), path)
        url = c["openai"]["base_url"] if c["backend"] == "openai" else f"{c['backend']}:{c['transformers']['model_path']}"
        return {"base_url": url, **({"max_concurrency": c["max_concurrency"]} if c["max_concurrency"] is not None else {})}

    def setup(self, path_to_conf_file: Any) -> None:
        source = path_to_conf_file if isinstance(path_to_conf_file, (str, Path)) else None
        self.config = merge_config(load_config(path_to_conf_file), source)
        c = self.config
        self.prompts = load_prompts(c["prompts"])
        from roadtest.signs.catalogue import sign_ids

        self.sign_ids = sorted(sign_ids())
        self.schemas = {"perception": answers.perception_schema(self.sign_ids), "planning": answers.plan_schema(),
                        "end_to_end": answers.end_to_end_schema(self.sign_ids)}
        self.backend = make_backend(c)
        self.tracker = Tracker(c["controller"])
        self.period = 1.0 / float(c["decision_hz"])
        self.country = country_info(None if c["country"] == "auto" else c["country"])
        self.route: RoutePath | None = None
        self.route_s = 0.0
        self.plan: Plan | None = None
        self.pending: Plan | None = None
        self.next_decision = 0.0
        self.failures = 0  # failed decisions in a row
        self.prev_t: float | None = None
        self.wall0 = time.monotonic()
        self.decisions = 0

    def set_country(self, country: str | None, driving_side: str | None = None) -> None:
        """The scenario's country, from the runner; a country in the config wins."""
        if self.config["country"] == "auto" and country:
            self.country = country_info(country, driving_side)

    def sensors(self) -> list[dict[str, Any]]:
        specs = camera_specs(self.config["cameras"], self.period) + [sensor_spec("sensor.speedometer", "speed"),
                                                        sensor_spec("sensor.other.gnss", "gnss"),
                                                        sensor_spec("sensor.other.imu", "imu")]
        if self.config["privileged_hints"]:
            specs.append(sensor_spec("roadtest.objects", "objects"))
        return specs

    def destroy(self) -> None:
        self.backend.close()

    # ------------------------------------------------------------------ step
    def run_step(self, input_data: Mapping[str, Any], timestamp: float) -> Any:
        t = float(timestamp)
        dt = t - self.prev_t if self.prev_t is not None and t > self.prev_t else 0.05
        self.prev_t = t
        speed = float((sensor_data(input_data, "speed") or {}).get("speed", 0.0))
        pose = pose_from(input_data)
        if self.route is None and self.global_plan and len(self.global_plan) >= 2:
            self.route = RoutePath(self.global_plan)
        if pose is not None and self.route is not None:
            self.route_s = self.route.project(pose["x"], pose["y"], s_min=self.route_s - 5.0, s_max=self.route_s + 60.0)[0]
        has_image = any(input_data.get(str(cam["id"])) is not None for cam in self.config["cameras"])
        if t + 1e-9 >= self.next_decision and pose is not None and has_image:  # no frame this tick: decide on the next
            self._decide(input_data, t, speed, pose)
        if self.pending is not None and t + 1e-9 >= self.pending.effective_at:
            self.plan, self.pending = self.pending, None
        stale = self.plan is not None and t > self._expiry(self.plan)
        return self.tracker.control(self.plan, pose, speed, dt, t, braking=stale)

    def _expiry(self, plan: Plan) -> float:
        return plan.effective_at + max(self.period, plan.effective_at - plan.made_at) + float(self.config["plan_hold_s"])

    # -------------------------------------------------------------- decision
    def _decide(self, input_data: Mapping[str, Any], t: float, speed: float, pose: Mapping[str, float]) -> None:
        c = self.config
        wall_start = time.monotonic()
        images, frames = [], []
        for cam in c["cameras"]:
            item = input_data.get(str(cam["id"]))
            if item is None:
                continue
            frame, data = item if isinstance(item, tuple) and len(item) == 2 else (None, item)
            img = rgb_image(data)
            images.append(img)
            frames.append({"camera": str(cam["id"]), "frame": frame, "sha256": image_digest(img),
                           "shape": list(img.shape), "fov": float(cam.get("fov", 60.0)),
                           "mount": [float(cam.get(k, 0.0)) for k in ("x", "y", "yaw")]})
        if c["image"]["stitch"] and len(images) > 1:
            images = [stitch(images)]
        unit = self.country["speed_unit"]
        f = speed_unit_factor(unit)
        command = route_command(self.route, self.route_s) if self.route is not None else "follow the lane"
        ahead = route_ahead(self.route, pose, self.route_s) if self.route is not None else [[5.0 * k, 0.0] for k in range(1, 7)]
        hints = self._hints(input_data) if c["privileged_hints"] else ""
        fields = {**self.country, "cameras": ", ".join(fr["camera"] for fr in frames) or "none",
                  "sign_ids": ", ".join(self.sign_ids), "speed": round(speed / f, 1), "command": command,
                  "route": json.dumps(ahead), "hints": hints}
        context = {"stage": None, "t": t, "speed": speed, "command": command, "route_ahead": ahead, "country": self.country}
        record: dict[str, Any] = {"kind": RECORD_KIND, "t": t, "backend": self.backend.name, "model": self.backend.model,
                                  "not_a_vlm": not self.backend.is_vlm, "mode": c["mode"], "latency_mode": c["latency"],
                                  "privileged_hints": bool(c["privileged_hints"]), "frames": frames, "speed": speed,
                                  "country": self.country["country"], "command": command, "stages": []}
        plan_value, perception, failed_call = None, None, None
        if c["mode"] == "two_stage":
            ans, rec = self._stage("perception", fields, images, {**context, "stage": "perception"})
            record["stages"].append(rec)
            failed_call = rec["error"] if ans is None else None
            if rec["parsed"] is not None:
                perception = rec["parsed"]
                p_fields = {**fields, "perception": json.dumps(perception)}
                ans, rec = self._stage("planning", p_fields, [], {**context, "stage": "planning", "perception": perception})
                record["stages"].append(rec)
                failed_call = rec["error"] if ans is None else None
                plan_value = rec["parsed"]
        else:
            ans, rec = self._stage("end_to_end", fields, images, {**context, "stage": "end_to_end"})
            record["stages"].append(rec)
            failed_call = rec["error"] if ans is None else None
            if rec["parsed"] is not None:
                perception = {k: rec["parsed"][k] for k in ("signs", "light", "road_users")}
                plan_value = {k: rec["parsed"][k] for k in ("waypoints", "target_speed", "reason")}
        latency = sum(s["latency_s"] for s in record["stages"])
        effective = t + (latency if c["latency"] == "realtime" else 0.0)
        self.next_decision = t + max(self.period, latency if c["latency"] == "realtime" else 0.0)
        record["perception"] = perception
        record["latency_s"] = latency
        if plan_value is not None:
            plan = Plan.from_ego(plan_value["waypoints"], pose, plan_value["target_speed"] * f, t, effective,
                                 plan_value["reason"], speed0=speed)
            self.pending = plan
            self.failures = 0
            record["plan"] = {"waypoints": [list(p) for p in plan_value["waypoints"]], "target_speed": plan.target_speed,
                              "reason": plan.reason, "effective_at": effective}
            record["outcome"] = "new_plan"
            self.planned = tuple(tuple(p) for p in plan_value["waypoints"])
            self.text = plan.reason or None
        else:
            self.failures += 1
            record["plan"] = None
            held = self.plan is not None and t <= self._expiry(self.plan)
            record["outcome"] = "kept_last_plan" if held else "braking"
            self.text = f"decision failed ({record['stages'][-1]['error']}); " + ("keeping the last plan" if held else "braking")
            if failed_call is not None and self.failures >= int(c["max_consecutive_failures"]):
                raise ModelServerError(f"{self.failures} decisions in a row failed; last: {failed_call}")
        record["wall_s"] = round(time.monotonic() - self.wall0, 6)
        record["agent_overhead_s"] = round(time.monotonic() - wall_start - latency, 6)
        self.decisions += 1
        self.record = record

    def _stage(self, stage: str, fields: dict[str, Any], images: list[Any], context: dict[str, Any]) -> tuple[Answer | None, dict[str, Any]]:
        """One model call with bounded retries, then its answer read; the record says what happened."""
        c = self.config
        prompt = self.prompts[stage]
        text = prompt.render(**fields)
        messages = [{"role": "user", "content": text, "context": context}]
        rec: dict[str, Any] = {"stage": stage, "prompt_id": prompt.id, "prompt_sha256": prompt.sha256, "raw": None,
                               "parsed": None, "repairs": [], "error": None, "tokens_in": None, "tokens_out": None,
                               "latency_s": 0.0, "attempts": 0}
        ans, err, delay = None, None, float(c["backoff_s"])
        t0 = time.perf_counter()
        for attempt in range(int(c["retries"]) + 1):
            rec["attempts"] = attempt + 1
            try:
                ans = self.backend.complete(messages, images, self.schemas[stage], float(c["timeout_s"]))
                break
            except BackendCallError as e:
                err = str(e)
                if not e.retryable or attempt == int(c["retries"]):
                    break
                time.sleep(min(delay, float(c["backoff_max_s"])))
                delay *= 2.0
        rec["latency_s"] = round(time.perf_counter() - t0, 6)
        if ans is None:
            rec["error"] = f"call failed after {rec['attempts']} attempt(s): {err}"
            return None, rec
        rec.update(raw=None if ans.text is None else ans.text[:RAW_LIMIT], tokens_in=ans.tokens_in, tokens_out=ans.tokens_out,
                   model_latency_s=round(ans.latency_s, 6))
        parsed = answers.extract_json(ans.text)
        rec["repairs"] = list(parsed.repairs)
        if not parsed.ok:
            rec["error"] = f"unreadable answer: {parsed.error}"
            return ans, rec
        value, why = self._read(stage, parsed.value, rec["repairs"])
        if value is None:
            rec["error"] = f"invalid answer: {why}"
        rec["parsed"] = value
        return ans, rec

    def _read(self, stage: str, raw: dict[str, Any], repairs: list[str]) -> tuple[dict[str, Any] | None, str | None]:
        ids = set(self.sign_ids)
        if stage == "perception":
            return answers.read_perception(raw, ids, repairs)
        if stage == "planning":
            return answers.read_plan(raw, repairs)
        per, why = answers.read_perception(raw, ids, repairs)
        if per is None:
            return None, why
        plan, why = answers.read_plan(raw, repairs)
        return (None, why) if plan is None else ({**per, **plan}, None)

    def _hints(self, input_data: Mapping[str, Any]) -> str:
        """Ground truth for the prompt, only with privileged_hints: true (and marked in every record)."""
        view = sensor_data(input_data, "objects") or {}
        unit = self.country["speed_unit"]
        f = speed_unit_factor(unit)
        signs = [{"id": s.get("kind"), "value": s.get("value"), "distance_m": round(float(s["distance"]), 1)}
                 for s in view.get("signs") or [] if 0.0 < float(s.get("distance", -1)) <= 60.0]
        lights = [{"state": lt.get("state"), "stop_distance_m": round(float(lt["stop_distance"]), 1)}
                  for lt in view.get("lights") or [] if 0.0 < float(lt.get("stop_distance", -1)) <= 80.0]
        stops = [round(float(sl["distance"]), 1) for sl in view.get("stop_lines") or []
                 if sl.get("stop_sign") and 0.0 < float(sl["distance"]) <= 60.0]
        limit = view.get("speed_limit")
        return ("PRIVILEGED HINTS (ground truth, not seen by a real driver): " + json.dumps(
            {"signs": signs, "lights": lights, "stop_lines_m": stops,
             "speed_limit": None if limit is None else round(float(limit) / f, 1)}))
