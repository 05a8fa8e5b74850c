"""The end-to-end model server: UniAD, VAD or any model behind `POST /reset` and `POST /infer` over HTTP + JSON.

Run it in the model's own environment (for UniAD/VAD: Bench2DriveZoo's Python 3.8 env, with its checkout
and checkpoints); it needs only the standard library there, plus what the model itself imports:

    python e2e_server.py --model uniad --config <zoo>/adzoo/uniad/configs/stage2_e2e/base_e2e_b2d.py \
        --checkpoint uniad_base_b2d.pth --zoo <zoo checkout> [--host 127.0.0.1] [--port 8765] [--token-env VAR]
    python e2e_server.py --model my_module:MyModel [--model-arg key=value ...]

A model is any object with `reset(request) -> None` and `infer(request) -> dict` (the dict holds at least
`trajectory`: six [x, y] points, 0.5 s apart, in the lidar frame x right, y forward, as UniAD/VAD plan).
The file is deliberately self-contained and Python 3.8 compatible: roadtest's client imports its constants,
the model's environment runs it without roadtest installed.
"""

from __future__ import annotations

import argparse
import base64
import importlib
import json
import os
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL = "roadtest-e2e/1"
CAMERAS = ("CAM_FRONT", "CAM_FRONT_LEFT", "CAM_FRONT_RIGHT", "CAM_BACK", "CAM_BACK_LEFT", "CAM_BACK_RIGHT")
TOKEN_HEADER = "X-Roadtest-Token"
MAX_BODY = 64 * 1024 * 1024  # bytes: six 1600x900 JPEGs at quality 20 are about 0.5 MB
BODY_SECONDS = 30.0  # s to receive a whole request body once its head is in; slower is refused with 408
IDLE_SECONDS = 60.0  # s a connection may sit without a request (or in the middle of one) before it is closed
LOOPBACK = ("127.0.0.1", "localhost", "::1")

__all__ = ["PROTOCOL", "CAMERAS", "TOKEN_HEADER", "MAX_BODY", "BODY_SECONDS", "IDLE_SECONDS", "make_server",
           "decode_jpeg", "ZooModel", "main"]


def decode_jpeg(b64):
    """A base64 JPEG as an H x W x 3 uint8 array in the byte order it was encoded from (cv2, the model env's)."""
    import cv2
    import numpy as np

    buf = np.frombuffer(base64.b64decode(b64), dtype=np.uint8)
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError("an image is not a decodable JPEG")
    return img


class ZooModel(object):
    """UniAD or VAD from a Bench2DriveZoo checkout, loaded as its agents load them (mmcv Config, build_model,
    load_checkpoint, the config's inference_only_pipeline without the file loader); temporal memory lives in
    the model object, so `reset` rebuilds nothing but clears it by a fresh scene token."""

    def __init__(self, kind, config, checkpoint, zoo=None, device="cuda"):
        if zoo:
            sys.path.insert(0, zoo)
        from mmcv import Config
        from mmcv.datasets.pipelines import Compose
        from mmcv.models import build_model
        from mmcv.utils import load_checkpoint

        self.kind = kind
        cfg = Config.fromfile(config)
        head = cfg.model.get("motion_head")
        if head and zoo and not os.path.isabs(head.get("anchor_info_path", "/")):
            head["anchor_info_path"] = os.path.join(zoo, head["anchor_info_path"])
        if getattr(cfg, "plugin", False) and hasattr(cfg, "plugin_dir"):
            importlib.import_module(os.path.dirname(cfg.plugin_dir).replace("/", "."))
        self.model = build_model(cfg.model, train_cfg=cfg.get("train_cfg"), test_cfg=cfg.get("test_cfg"))
        load_checkpoint(self.model, checkpoint, map_location="cpu", strict=True)
        self.device = device
        self.model.to(device)
        self.model.eval()
        steps = [p for p in cfg.inference_only_pipeline if p["type"] not in ("LoadMultiViewImageFromFilesInCeph",)]
        self.pipeline = Compose(steps)
        self.scene = 0

    def reset(self, request):
        self.scene += 1

    def infer(self, request):
        import numpy as np
        import torch
        from mmcv.core.bbox import get_box_type
        from mmcv.parallel.collate import collate

        imgs = [decode_jpeg(request["images"][c]) for c in CAMERAS]
        cal = request["calibration"]
        results = {
            "img": imgs, "folder": " ", "scene_token": "scene-%d" % self.scene, "frame_idx": 0,
            "timestamp": float(request["timestamp"]),
            "lidar2img": np.stack([np.array(cal["lidar2img"][c]) for c in CAMERAS]),
            "lidar2cam": np.stack([np.array(cal["lidar2cam"][c]) for c in CAMERAS]),
            "can_bus": np.array(request["can_bus"], dtype=float),
            "command": int(request["command"]),
            "l2g_r_mat": np.array(request["l2g_r_mat"]), "l2g_t": np.array(request["l2g_t"]),
        }
        results["box_type_3d"], _ = get_box_type("LiDAR")
        shape = np.stack(imgs, axis=-1).shape
        results.update(img_shape=shape, ori_shape=shape, pad_shape=shape)
        if self.kind == "vad":
            results["ego_fut_cmd"] = np.eye(6)[int(request["command"])]  # their agent's one-hot, shape (6,)
        batch = collate([self.pipeline(results)], samples_per_gpu=1)
        for key, data in batch.items():
            if key != "img_metas" and torch.is_tensor(data[0]):
                data[0] = data[0].to(self.device)
        with torch.no_grad():
            out = self.model(batch, return_loss=False, rescale=True)[0]
        answer = {}
        if self.kind == "vad":
            modes = out["pts_bbox"]["ego_fut_preds"].cpu().numpy().cumsum(axis=-2)
            answer["modes"] = modes.tolist()
            answer["trajectory"] = modes[int(request["command"])].tolist()
        else:
            answer["trajectory"] = out["planning"]["result_planning"]["sdc_traj"][0].cpu().numpy().tolist()
        if request.get("want_objects"):
            objects = _objects(out)
            if objects is not None:
                answer["objects"] = objects
        if torch.cuda.is_available():
            answer["gpu_memory_mb"] = round(torch.cuda.max_memory_allocated() / 2 ** 20, 1)
        return answer


def _objects(out, limit=100):
    """Detected boxes (lidar frame: x, y, z, w, l, h, yaw), scores and labels from the model's `pts_bbox`
    (UniAD and VAD both return one), best first; None when the output has none."""
    bbox = out.get("pts_bbox") if isinstance(out, dict) else None
    if not isinstance(bbox, dict) or "boxes_3d" not in bbox:
        return None
    boxes = bbox["boxes_3d"]
    boxes = getattr(boxes, "tensor", boxes)
    scores = bbox.get("scores_3d")
    labels = bbox.get("labels_3d")
    boxes = boxes.detach().cpu().numpy()[:, :7]
    scores = scores.detach().cpu().numpy() if scores is not None else [None] * len(boxes)
    labels = labels.detach().cpu().numpy() if labels is not None else [None] * len(boxes)
    rows = sorted(zip(boxes.tolist(), scores, labels), key=lambda r: -(r[1] if r[1] is not None else 0.0))
    return [{"box": b, "score": None if sc is None else float(sc), "label": None if lb is None else int(lb)}
            for b, sc, lb in rows[:limit]]


def _load(spec, args):
    """`uniad` / `uniad_tiny` / `vad` from the checkout, or `module:Class` built with --model-arg pairs."""
    if spec in ("uniad", "uniad_base", "uniad_tiny", "vad", "vad_base"):
        return ZooModel("vad" if spec.startswith("vad") else "uniad", args.config, args.checkpoint, args.zoo,
                        args.device)
    module, _, name = spec.partition(":")
    if not name:
        raise SystemExit("--model: expected uniad, uniad_tiny, vad or module:Class, got %r" % spec)
    kwargs = dict(kv.split("=", 1) for kv in args.model_arg)
    return getattr(importlib.import_module(module), name)(**kwargs)


class _Refused(Exception):
    """A request answered with `status` and a one-line `message`, before the model sees it."""

    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status


def _host_name(value):
    """The host part of a Host header or an Origin's authority ('[::1]:8765' -> '::1'), lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def make_server(model, host="127.0.0.1", port=0, token=None, name="model", body_seconds=BODY_SECONDS,
                idle_seconds=IDLE_SECONDS, max_body=MAX_BODY):
    """A threading HTTP server for `model` (calls are serialised: one model, one GPU); `.server_address` holds
    the bound port. A token is required whenever the server listens beyond the loopback interface.

    Safe on a shared machine: on loopback a request must name a loopback Host (DNS rebinding names another),
    a request with an Origin header (what a browser's page sends) must come from a loopback origin, and a POST
    must be `application/json` with a Content-Length within `max_body`, received within `body_seconds`;
    connections idle for `idle_seconds` are closed. Refusals are 400/403/408/411/413/415 with one line of JSON
    {"error": ...}; a model's own failure is 500 with one line, never a traceback."""
    if host not in LOOPBACK and not token:
        raise SystemExit("refusing to listen on %s without a token (--token-env)" % host)
    lock = threading.Lock()
    state = {"session": None, "steps": 0}
    check_host = host in LOOPBACK

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = idle_seconds  # every read of a request line, header or body; an idle connection is closed

        def log_message(self, *args):
            pass

        def _send(self, status, body, close=False):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if close:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)

        def _check_origin(self):
            if check_host:
                got = self.headers.get("Host")
                if got is None or _host_name(got) not in LOOPBACK:
                    raise _Refused(403, "Host %r is not this loopback server (a DNS-rebinding request?)" % got)
            origin = self.headers.get("Origin")
            if origin is not None:
                authority = origin.split("://", 1)[1] if "://" in origin else ""
                if not check_host or _host_name(authority) not in LOOPBACK:
                    raise _Refused(403, "cross-origin request from %r refused" % origin)

        def _body(self):
            ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if ctype != "application/json":
                raise _Refused(415, "Content-Type %r: expected application/json"
                               % (self.headers.get("Content-Type") or ""))
            declared = self.headers.get("Content-Length")
            if declared is None:
                raise _Refused(411, "a Content-Length header is required")
            try:
                n = int(declared.strip())
            except ValueError:
                raise _Refused(400, "Content-Length %r is not a number of bytes" % declared)
            if n < 0:
                raise _Refused(400, "Content-Length %d is negative" % n)
            if n > max_body:
                raise _Refused(413, "request of %d bytes is over the %d-byte limit" % (n, max_body))
            deadline = time.monotonic() + body_seconds
            chunks, got = [], 0
            while got < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _Refused(408, "body of %d bytes not received within %g s (%d came)" % (n, body_seconds, got))
                self.connection.settimeout(min(left, idle_seconds))
                try:
                    chunk = self.rfile.read1(min(n - got, 1 << 20))
                except OSError:  # the read timed out: too slow, or a Content-Length larger than the body
                    raise _Refused(408, "body of %d bytes not received within %g s (%d came)"
                                   % (n, min(body_seconds, idle_seconds), got))
                if not chunk:
                    raise _Refused(400, "body ended after %d of its %d declared bytes" % (got, n))
                chunks.append(chunk)
                got += len(chunk)
            self.connection.settimeout(idle_seconds)
            try:
                request = json.loads(b"".join(chunks).decode("utf-8") or "{}")
            except (ValueError, UnicodeDecodeError) as e:
                raise _Refused(400, "body is not JSON: %s" % " ".join(str(e).split())[:200])
            if not isinstance(request, dict):
                raise _Refused(400, "body is a JSON %s, expected an object" % type(request).__name__)
            return request

        def _authorised(self):
            if token and self.headers.get(TOKEN_HEADER) != token:
                self._send(401, {"error": "missing or wrong %s header" % TOKEN_HEADER})
                return False
            return True

        def do_GET(self):
            try:
                self._check_origin()
            except _Refused as e:
                self._send(e.status, {"error": str(e)}, close=True)
                return
            if not self._authorised():
                return
            if self.path.rstrip("/") == "/health":
                self._send(200, {"protocol": PROTOCOL, "model": name, "session": state["session"],
                                 "steps": state["steps"]})
            else:
                self._send(404, {"error": "unknown path %s" % self.path})

        def do_POST(self):
            try:
                self._check_origin()
            except _Refused as e:
                self._send(e.status, {"error": str(e)}, close=True)
                return
            if not self._authorised():
                self.close_connection = True  # the unread body would be taken for the next request
                return
            path = self.path.rstrip("/")
            if path not in ("/reset", "/infer"):
                self._send(404, {"error": "unknown path %s" % self.path}, close=True)
                return
            try:
                request = self._body()
            except _Refused as e:  # the body may be partly unread: this connection is done
                self._send(e.status, {"error": str(e)}, close=True)
                return
            try:
                if request.get("protocol") != PROTOCOL:
                    self._send(400, {"error": "protocol %r, this server speaks %r" % (request.get("protocol"), PROTOCOL)})
                    return
                session = request.get("session")
                if path == "/infer" and session is not None and state["session"] not in (None, session):
                    self._send(409, {"error": "session %r is not this server's current session %r: one run per "
                                              "server at a time (max_concurrency: 1)" % (session, state["session"])})
                    return
                start = time.perf_counter()
                with lock:
                    if path == "/reset":
                        model.reset(request)
                        state.update(session=request.get("session"), steps=0)
                        answer = {}
                    else:
                        answer = dict(model.infer(request))
                        state["steps"] += 1
                answer.update(protocol=PROTOCOL, model=name, latency_ms=round(1000 * (time.perf_counter() - start), 3))
                self._send(200, answer)
            except Exception as e:  # the model's failure goes back to the client, which ends the run
                sys.stderr.write("roadtest-e2e: %s failed:\n%s" % (path, traceback.format_exc(limit=5)))
                self._send(500, {"error": "%s: %s" % (type(e).__name__, " ".join(str(e).split())[:500])})

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def main(argv=None):
    ap = argparse.ArgumentParser(description="Serve an end-to-end driving model to roadtest (%s)." % PROTOCOL)
    ap.add_argument("--model", required=True, help="uniad, uniad_tiny, vad, or module:Class")
    ap.add_argument("--config", help="the model's mmcv config (UniAD/VAD)")
    ap.add_argument("--checkpoint", help="the model's checkpoint (.pth)")
    ap.add_argument("--zoo", help="the Bench2DriveZoo checkout (put on sys.path; anchors resolved in it)")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--model-arg", action="append", default=[], help="key=value for a module:Class model")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--token-env", help="name of the environment variable that holds the access token")
    args = ap.parse_args(argv)
    token = os.environ.get(args.token_env) if args.token_env else None
    if args.token_env and not token:
        raise SystemExit("--token-env %s: the variable is not set" % args.token_env)
    server = make_server(_load(args.model, args), args.host, args.port, token, name=args.model)
    print("%s serving %s on http://%s:%d" % (PROTOCOL, args.model, args.host, server.server_address[1]), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
