"""Sign faces for the renderer: one RGBA texture atlas of every sign face a map shows, by OpenDRIVE code."""

from __future__ import annotations

import numpy as np

from roadtest.sim.road.api import Signal

__all__ = ["SignAtlas", "face_for", "TILE"]

TILE = 256  # px per face in the atlas
_PAD = 4  # px of transparent border around each tile (mipmaps do not bleed neighbours)


def _unknown_face(code: str, px: int) -> np.ndarray:
    """A signal roadtest has no face for (a code outside the catalogue, a country without faces): a white plate
    with a grey border and the code, so that the map's sign still stands where it is."""
    import cv2

    img = np.zeros((px, px, 4), np.uint8)
    cv2.rectangle(img, (2, 2), (px - 3, px - 3), (235, 235, 235, 255), -1)
    cv2.rectangle(img, (2, 2), (px - 3, px - 3), (90, 90, 90, 255), max(2, px // 32))
    scale = px / 256 * (2.0 if len(code) <= 4 else 1.2)
    (tw, th), _ = cv2.getTextSize(code[:8], cv2.FONT_HERSHEY_DUPLEX, scale, max(1, px // 64))
    cv2.putText(img, code[:8], ((px - tw) // 2, (px + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, (20, 20, 20, 255),
                max(1, px // 64), cv2.LINE_AA)
    return img


def face_for(sign_id: str | None, country: str, value: float | None = None, px: int = TILE,
             code: str = "?") -> np.ndarray:
    """The RGBA face the renderer draws: roadtest.signs' face of the sign in that country, else a plain plate."""
    from roadtest.errors import UserError
    from roadtest.signs.faces import sign_face

    if sign_id is not None:
        try:
            return sign_face(sign_id, country, value, px)
        except UserError:  # no face for this country or sign: the plate below
            pass
    return _unknown_face(code, px)


def _sign_id(sg: Signal) -> str | None:
    from roadtest.signs.faces import sign_id_for_code

    return sign_id_for_code(sg.country, sg.type, sg.subtype)


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
            face = face_for(_sign_id(sg), sg.country, sg.value, inner, code=sg.type)
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
