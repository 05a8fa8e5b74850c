"""Triangle soup builder for the renderer: boxes, quads and strips with a colour, a CARLA tag and a material.

One vertex is 14 float32: position (3), normal (3), colour rgb + emissive (4), uv (2, negative = untextured),
tag (CARLA semantic id) and material (see MAT_*). Positions are world metres minus the scene origin.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MeshBuilder", "FLOATS", "MAT_PLAIN", "MAT_ASPHALT", "MAT_MARK", "MAT_TERRAIN", "MAT_FACE", "MAT_LAMP"]

FLOATS = 14
MAT_PLAIN, MAT_ASPHALT, MAT_MARK, MAT_TERRAIN, MAT_FACE, MAT_LAMP = 0.0, 1.0, 2.0, 3.0, 4.0, 5.0

# unit box corners and faces (outward normals), two triangles per face
_FACES = [((1, 0, 0), [(1, -1, -1), (1, 1, -1), (1, 1, 1), (1, -1, 1)]),
          ((-1, 0, 0), [(-1, 1, -1), (-1, -1, -1), (-1, -1, 1), (-1, 1, 1)]),
          ((0, 1, 0), [(1, 1, -1), (-1, 1, -1), (-1, 1, 1), (1, 1, 1)]),
          ((0, -1, 0), [(-1, -1, -1), (1, -1, -1), (1, -1, 1), (-1, -1, 1)]),
          ((0, 0, 1), [(-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]),
          ((0, 0, -1), [(-1, 1, -1), (1, 1, -1), (1, -1, -1), (-1, -1, -1)])]
_TRI = [0, 1, 2, 0, 2, 3]
_BOX_P = np.concatenate([np.array(q, float)[_TRI] for _, q in _FACES]) * 0.5
_BOX_N = np.repeat(np.array([n for n, _ in _FACES], float), 6, axis=0)


class MeshBuilder:
    """Collects triangles; `array()` gives the N x 14 float32 vertex array."""

    def __init__(self) -> None:
        self._parts: list[np.ndarray] = []

    def _add(self, pos: np.ndarray, nrm: np.ndarray, color, tag: int, mat: float, uv: np.ndarray | None = None) -> None:
        n = len(pos)
        v = np.empty((n, FLOATS), np.float32)
        v[:, 0:3] = pos
        v[:, 3:6] = nrm
        c = np.asarray(color, float)
        if c.shape[-1] == 3:  # no emissive given
            c = np.concatenate([c, np.zeros(c.shape[:-1] + (1,))], axis=-1)
        v[:, 6:10] = c
        v[:, 10:12] = -1.0 if uv is None else uv
        v[:, 12] = tag
        v[:, 13] = mat
        self._parts.append(v)

    def box(self, center, size, heading: float, color, tag: int, mat: float = MAT_PLAIN, pitch: float = 0.0) -> None:
        """An oriented box: centre (x, y, z), size (length, width, height), heading about z (rad)."""
        c, s = np.cos(heading), np.sin(heading)
        rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        if pitch:
            cp, sp = np.cos(pitch), np.sin(pitch)
            rot = rot @ np.array([[cp, 0.0, -sp], [0.0, 1.0, 0.0], [sp, 0.0, cp]])
        p = (_BOX_P * np.asarray(size, float)) @ rot.T + np.asarray(center, float)
        self._add(p, _BOX_N @ rot.T, color, tag, mat)

    def boxes(self, centers: np.ndarray, sizes: np.ndarray, headings: np.ndarray, colors: np.ndarray,
              tags: np.ndarray, mats: np.ndarray) -> None:
        """Many oriented boxes at once (vectorised box())."""
        n = len(centers)
        if n == 0:
            return
        c, s = np.cos(headings), np.sin(headings)
        local = _BOX_P[None, :, :] * sizes[:, None, :]  # n x 36 x 3
        x = local[..., 0] * c[:, None] - local[..., 1] * s[:, None] + centers[:, 0:1]
        y = local[..., 0] * s[:, None] + local[..., 1] * c[:, None] + centers[:, 1:2]
        z = local[..., 2] + centers[:, 2:3]
        nx = _BOX_N[None, :, 0] * c[:, None] - _BOX_N[None, :, 1] * s[:, None]
        ny = _BOX_N[None, :, 0] * s[:, None] + _BOX_N[None, :, 1] * c[:, None]
        nz = np.broadcast_to(_BOX_N[None, :, 2], nx.shape)
        v = np.empty((n, 36, FLOATS), np.float32)
        v[..., 0], v[..., 1], v[..., 2] = x, y, z
        v[..., 3], v[..., 4], v[..., 5] = nx, ny, nz
        v[..., 6:10] = colors[:, None, :]
        v[..., 10:12] = -1.0
        v[..., 12] = tags[:, None]
        v[..., 13] = mats[:, None]
        self._parts.append(v.reshape(-1, FLOATS))

    def quad(self, corners, color, tag: int, mat: float = MAT_PLAIN, uv=None) -> None:
        """A planar quad from four corners in order (two triangles); uv: four (u, v) or None."""
        q = np.asarray(corners, float)
        n = np.cross(q[1] - q[0], q[2] - q[0])
        n = n / max(np.linalg.norm(n), 1e-12)
        uvs = None if uv is None else np.asarray(uv, float)[_TRI]
        self._add(q[_TRI], np.tile(n, (6, 1)), color, tag, mat, uvs)

    def strip(self, left: np.ndarray, right: np.ndarray, color, tag: int, mat: float = MAT_PLAIN,
              normal=(0.0, 0.0, 1.0)) -> None:
        """A ribbon between two N x 3 polylines (flat shaded with one normal)."""
        if len(left) < 2:
            return
        a, b, c, d = left[:-1], right[:-1], right[1:], left[1:]
        tri = np.stack([a, b, c, a, c, d], axis=1).reshape(-1, 3)
        self._add(tri, np.tile(np.asarray(normal, float), (len(tri), 1)), color, tag, mat)

    def array(self) -> np.ndarray:
        if not self._parts:
            return np.zeros((0, FLOATS), np.float32)
        return np.concatenate(self._parts).astype(np.float32, copy=False)
