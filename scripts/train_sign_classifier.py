"""Train the builtin backend's sign classifier on roadtest's own sign faces and write its checkpoint.

    PYTHONPATH=. python scripts/train_sign_classifier.py            # -> roadtest/agents/vlm/builtin/sign_classifier.npz

Training images are the faces of every country (roadtest.signs.faces.sign_face), shrunk to the sizes a
0.8 m board has from 5 to 45 m in the default camera (1024 px wide, 60 degrees), turned up to +-40 degrees,
composited on sky, grass, road and building backgrounds, tinted as lit boards, sometimes edged, with fog (blend towards grey), night (dark, noisy),
rain (blur, streaks) and detector jitter; plus background crops. Input 40 x 40 px. Labels: "background", the sign id, and for
speed signs the printed value ("speed_limit:50"; US and GB faces print mph). Needs torch (the vlm extra); the
checkpoint is float16 numpy, read at run time without torch. Seeded: the same command gives the same file.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np

OUT = Path(__file__).resolve().parents[1] / "roadtest" / "agents" / "vlm" / "builtin" / "sign_classifier.npz"
SPEEDS_KMH = (20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120)
MPH = {"US", "GB"}
VALUED = {"speed_limit", "minimum_speed"}  # read with their value; an end sign is learnt without it
INPUT = 40  # px, the classifier's square input


def printed(value_kmh: float, country: str) -> int:
    """The number a face prints for a catalogue value in km/h (mph to the nearest 5 in the US and GB)."""
    return int(5 * round(value_kmh / 1.609344 / 5)) if country in MPH else int(value_kmh)


def catalogue() -> list[tuple[str, str, float | None, str]]:
    """(country, sign id, value in km/h or None, label) of every face to learn."""
    from roadtest.signs.catalogue import load_signs
    from roadtest.signs.faces import COUNTRIES, face_ids

    signs = load_signs()
    out = []
    for country in COUNTRIES:
        for sid in face_ids(country):
            kind = signs[sid].get("value", "none")
            if sid in VALUED and kind in ("required", "optional"):
                for v in SPEEDS_KMH:
                    out.append((country, sid, float(v), f"{sid}:{printed(v, country)}"))
                if kind == "optional":
                    out.append((country, sid, None, sid))
            elif kind == "required":
                out.append((country, sid, _typical(signs[sid]), sid))
            else:
                out.append((country, sid, None, sid))
    return out


def _typical(entry: dict) -> float:
    return 3.5 if entry.get("unit") == "m" else 10.0 if entry.get("unit") == "t" else 50.0


def background(rng: np.random.Generator, size: int) -> np.ndarray:
    """A flat-shaded scene patch: sky, grass, road, sidewalk or a building, with a pole or an edge sometimes."""
    kind = rng.integers(5)
    base = [(150, 160, 175), (60, 110, 50), (50, 50, 55), (140, 140, 135), (150, 140, 125)][kind]
    img = np.empty((size, size, 3), np.float32)
    img[:] = np.array(base) * rng.uniform(0.6, 1.3)
    if rng.random() < 0.5:  # a horizon, roof line or kerb
        cut = rng.integers(size)
        img[cut:] = np.array([(60, 110, 50), (50, 50, 55), (150, 140, 125)][rng.integers(3)]) * rng.uniform(0.6, 1.2)
    if rng.random() < 0.4:  # a pole
        x = rng.integers(size)
        img[:, x:x + rng.integers(1, 4)] = rng.uniform(60, 200)
    img += rng.normal(0, 4, img.shape)
    return img


def weather(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Fog, night, rain or clear, chosen at random."""
    w = rng.random()
    if w < 0.2:  # fog: towards grey
        a = rng.uniform(0.2, 0.8)
        img = img * (1 - a) + a * rng.uniform(150, 200)
    elif w < 0.4:  # night: dark, noisy, sometimes lit by headlights
        img = img * rng.uniform(0.08, 0.6) + rng.normal(0, 3, img.shape)
    elif w < 0.55:  # rain
        img = cv2.GaussianBlur(img, (3, 3), rng.uniform(0.3, 1.0))
        for _ in range(rng.integers(0, 4)):
            x = rng.integers(img.shape[1])
            img[:, x:x + 1] = img[:, x:x + 1] * 0.5 + 100
    tint = rng.uniform(0.7, 1.05, 3)  # the renderer's lighting: a white board reads light grey-blue
    return np.clip(img * tint * rng.uniform(0.8, 1.2) + rng.uniform(-15, 15), 0, 255)


def sample(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One training crop of a face: shrunk, turned, composited, weathered, cropped with jitter, 32 x 32."""
    h, w = face.shape[:2]
    side = int(rng.uniform(9, 48))  # board's longer side in px
    sx = side * w / max(h, w) * math.cos(math.radians(rng.uniform(-40, 40)))
    sy = side * h / max(h, w)
    sx, sy = max(int(round(sx)), 3), max(int(round(sy)), 3)
    small = cv2.resize(face.astype(np.float32), (sx, sy), interpolation=cv2.INTER_AREA)
    canvas = int(max(sx, sy) * rng.uniform(1.05, 1.3)) + 2  # the finder crops 1.15 x the blob
    bg = background(rng, canvas)
    ox = (canvas - sx) // 2 + int(rng.integers(-max(1, canvas // 10), max(1, canvas // 10) + 1))
    oy = (canvas - sy) // 2 + int(rng.integers(-max(1, canvas // 10), max(1, canvas // 10) + 1))
    ox, oy = min(max(ox, 0), canvas - sx), min(max(oy, 0), canvas - sy)
    a = small[:, :, 3:4] / 255.0
    bg[oy:oy + sy, ox:ox + sx] = bg[oy:oy + sy, ox:ox + sx] * (1 - a) + small[:, :, :3] * a
    if rng.random() < 0.4:  # the board's edge, as the renderer shades it
        edge = float(rng.uniform(30, 90))
        cv2.rectangle(bg, (ox, oy), (ox + sx - 1, oy + sy - 1), (edge, edge, edge), 1)
    img = weather(bg, rng)
    return cv2.resize(img, (INPUT, INPUT), interpolation=cv2.INTER_AREA if canvas > INPUT else cv2.INTER_LINEAR)


def dataset(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    from roadtest.signs.faces import sign_face

    rng = np.random.default_rng(seed)
    items = catalogue()
    labels = ["background"] + sorted({lab for *_, lab in items})
    index = {lab: i for i, lab in enumerate(labels)}
    faces = [np.asarray(sign_face(sid, c, v, px=96)) for c, sid, v, _ in items]
    xs = np.empty((n, INPUT, INPUT, 3), np.uint8)
    ys = np.empty(n, np.int64)
    for i in range(n):
        if rng.random() < 0.15:
            bg = weather(background(rng, int(rng.uniform(10, 60))), rng)
            xs[i] = cv2.resize(bg, (INPUT, INPUT)).astype(np.uint8)
            ys[i] = 0
            continue
        k = int(rng.integers(len(items)))
        xs[i] = np.clip(sample(faces[k], rng), 0, 255).astype(np.uint8)
        ys[i] = index[items[k][3]]
    return xs, ys, labels


def train(n: int, epochs: int, seed: int, out: Path) -> float:
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    xs, ys, labels = dataset(n, seed)
    vx, vy, _ = dataset(max(n // 10, 500), seed + 1)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * (INPUT // 8) ** 2, 128), nn.ReLU(), nn.Linear(128, len(labels)))
    t = lambda a: torch.from_numpy(a.astype(np.float32) / 255.0 - 0.5).permute(0, 3, 1, 2)  # noqa: E731
    X, Y, VX, VY = t(xs), torch.from_numpy(ys), t(vx), torch.from_numpy(vy)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    gen = torch.Generator().manual_seed(seed)
    for ep in range(epochs):
        model.train()
        for idx in torch.randperm(len(X), generator=gen).split(128):
            opt.zero_grad()
            nn.functional.cross_entropy(model(X[idx]), Y[idx]).backward()
            opt.step()
        sched.step()
        model.eval()
        with torch.no_grad():
            acc = float((model(VX).argmax(1) == VY).float().mean())
        print(f"epoch {ep + 1}/{epochs}: held-out accuracy {acc:.3f}")
    names = ["conv1", None, None, "conv2", None, None, "conv3", None, None, None, "fc1", None, "fc2"]
    arrays = {"labels": np.array(labels), "input": np.array(INPUT)}
    for name, layer in zip(names, model):
        if name:
            arrays[f"{name}.weight"] = layer.weight.detach().numpy().astype(np.float16)
            arrays[f"{name}.bias"] = layer.bias.detach().numpy().astype(np.float16)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **arrays)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} kB, {len(labels)} labels)")
    return acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=30000)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--out", type=Path, default=OUT)
    a = ap.parse_args()
    train(a.samples, a.epochs, a.seed, a.out)


if __name__ == "__main__":
    main()
