"""Sign faces for the renderer: one RGBA texture atlas of every sign face a map shows, by OpenDRIVE code."""

from __future__ import annotations

import zlib

import numpy as np

from roadtest.sim.road.api import Signal

__all__ = ["SignAtlas", "face_for", "TILE"]

TILE = 256  # px per face in the atlas
_PAD = 4  # px of transparent border around each tile (mipmaps do not bleed neighbours)


def _placeholder_face(sign_id: str, country: str, value: float | None = None, px: int = TILE) -> np.ndarray:
    """STAND-IN until roadtest.signs.faces lands: a white disc with a red ring and the value (or the sign id's
    initials) in black, RGBA uint8; its colours vary by sign id so that different signs differ."""
    import cv2

    img = np.zeros((px, px, 4), np.uint8)
    c, r = (px // 2, px // 2), px // 2 - 2
    hue = zlib.crc32(sign_id.encode()) % 180
    ring = cv2.cvtColor(np.uint8([[[hue, 220, 200]]]), cv2.COLOR_HSV2RGB)[0, 0].tolist()
    if sign_id.startswith("speed_limit") or sign_id == "minimum_speed":
        ring = [200, 20, 20]
    cv2.circle(img, c, r, (*ring, 255), -1, cv2.LINE_AA)
    cv2.circle(img, c, int(r * 0.8), (255, 255, 255, 255), -1, cv2.LINE_AA)
    text = f"{value:g}" if value is not None else "".join(w[0] for w in sign_id.split("_"))[:3].upper()
    scale = px / 256 * (3.2 if len(text) <= 2 else 2.3)
    thick = max(2, int(px / 256 * 12))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
    cv2.putText(img, text, (c[0] - tw // 2, c[1] + th // 2), cv2.FONT_HERSHEY_DUPLEX, scale, (0, 0, 0, 255), thick,
                cv2.LINE_AA)
    return img


def face_for(sign_id: str, country: str, value: float | None = None, px: int = TILE) -> np.ndarray:
    """The RGBA face the renderer draws for a sign id in a country."""
    return _placeholder_face(sign_id, country, value, px)


def _sign_id(sg: Signal) -> str:
    from roadtest.dsl.signs import sign_for_code

    return sign_for_code(sg.country, sg.type, sg.subtype) or sg.name or f"{sg.type}"


class SignAtlas:
    """Tiles of sign faces keyed by (country, type, subtype, value); `uv(key)` gives the tile's corners."""

    def __init__(self, signals: list[Signal]):
        keys: dict[tuple, Signal] = {}
        for sg in signals:
            keys.setdefault(self.key(sg), sg)
        self.keys = sorted(keys, key=str)
        n = max(1, len(self.keys))
        self.cols = int(np.ceil(np.sqrt(n)))
        rows = int(np.ceil(n / self.cols))
        self.size = (self.cols * TILE, rows * TILE)
        self.image = np.zeros((rows * TILE, self.cols * TILE, 4), np.uint8)
        inner = TILE - 2 * _PAD
        import cv2

        self._rect: dict[tuple, tuple[int, int, int, int]] = {}  # key -> (x0, y0, w, h) px in the atlas
        for i, k in enumerate(self.keys):
            sg = keys[k]
            face = face_for(_sign_id(sg), sg.country, sg.value, inner)
            h, w = face.shape[:2]
            if max(h, w) != inner:
                scale = inner / max(h, w)
                face = cv2.resize(face, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
                h, w = face.shape[:2]
            r, c = divmod(i, self.cols)
            x0, y0 = c * TILE + _PAD + (inner - w) // 2, r * TILE + _PAD + (inner - h) // 2
            self.image[y0:y0 + h, x0:x0 + w] = face
            self._rect[k] = (x0, y0, w, h)

    @staticmethod
    def key(sg: Signal) -> tuple:
        return (sg.country, sg.type, sg.subtype, sg.value)

    def uv(self, sg: Signal) -> np.ndarray:
        """uv of the face's corners: bottom-left, bottom-right, top-right, top-left."""
        x0, y0, fw, fh = self._rect[self.key(sg)]
        w, h = self.size
        u0, u1 = x0 / w, (x0 + fw) / w
        v0, v1 = y0 / h, (y0 + fh) / h  # image row 0 is texture row 0
        return np.array([[u0, v1], [u1, v1], [u1, v0], [u0, v0]])

    def aspect(self, sg: Signal) -> tuple[float, float]:
        """(width, height) of the face, the longer side 1."""
        _, _, fw, fh = self._rect[self.key(sg)]
        return fw / max(fw, fh), fh / max(fw, fh)
