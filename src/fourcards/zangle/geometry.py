"""Polyiamonds: shapes made of equilateral triangles on the triangular lattice.

Lattice vertices are integer pairs ``(i, j)`` in the basis ``e1 = (1, 0)``,
``e2 = (1/2, sqrt(3)/2)``.  A *cell* ``(i, j, 0)`` is the upward triangle
``(i, j) (i+1, j) (i, j+1)``; ``(i, j, 1)`` the downward one
``(i+1, j) (i, j+1) (i+1, j+1)``.  The 12 symmetries are the rotations by
multiples of 60 degrees, with or without a reflection; a shape's canonical
form is the least of its 12 images, each translated to touch the axes.

>>> [len(free_shapes(n)) for n in range(1, 6)]
[1, 1, 1, 3, 4]
>>> [len(one_sided_shapes(n)) for n in range(1, 6)]
[1, 1, 1, 4, 6]
>>> print(ascii_art(SHAPES["4b"].cells))
 /\\
/\\/\\
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["Cell", "Shape", "SHAPES", "SHAPE_ORDER", "canonical", "one_sided_canonical", "images",
           "neighbours", "free_shapes", "one_sided_shapes", "ascii_art", "svg", "placements"]

Cell = tuple[int, int, int]
Vertex = tuple[int, int]


def _vertices(cell: Cell) -> tuple[Vertex, Vertex, Vertex]:
    i, j, down = cell
    if down:
        return (i + 1, j), (i, j + 1), (i + 1, j + 1)
    return (i, j), (i + 1, j), (i, j + 1)


def _cell(vertices: Iterable[Vertex]) -> Cell:
    vs = sorted(vertices)
    (a, b), (c, d), (e, f) = vs
    i, j = min(v[0] for v in vs), min(v[1] for v in vs)
    # upward: (i,j) (i,j+1) (i+1,j); downward: (i,j+1) (i+1,j) (i+1,j+1)
    if (i, j) in vs:
        return (i, j, 0)
    return (i, j, 1)


def _rotate(v: Vertex) -> Vertex:
    """60 degrees counter-clockwise about the origin."""
    i, j = v
    return (-j, i + j)


def _reflect(v: Vertex) -> Vertex:
    """Mirror in the e1 axis."""
    i, j = v
    return (i + j, -j)


def _normalise(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    cells = list(cells)
    min_i = min(c[0] for c in cells)
    min_j = min(c[1] for c in cells)
    return tuple(sorted((i - min_i, j - min_j, d) for i, j, d in cells))


def images(cells: Iterable[Cell], mirror: bool = True) -> list[tuple[Cell, ...]]:
    """The shape under each symmetry (6 rotations, and their mirror images), normalised."""
    triangles = [_vertices(c) for c in cells]
    result = []
    for flip in ((False, True) if mirror else (False,)):
        current = [tuple(_reflect(v) for v in t) if flip else t for t in triangles]
        for _ in range(6):
            result.append(_normalise(_cell(t) for t in current))
            current = [tuple(_rotate(v) for v in t) for t in current]
    return result


def canonical(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """The free canonical form: the least image under all 12 symmetries."""
    return min(images(cells))


def one_sided_canonical(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """The least image under the 6 rotations (mirror images stay distinct)."""
    return min(images(cells, mirror=False))


def neighbours(cell: Cell) -> list[Cell]:
    """The three cells sharing an edge with ``cell``."""
    i, j, down = cell
    if down:
        return [(i, j, 0), (i + 1, j, 0), (i, j + 1, 0)]
    return [(i, j, 1), (i - 1, j, 1), (i, j - 1, 1)]


def _grow(size: int, key: object) -> list[tuple[Cell, ...]]:
    level = {canonical([(0, 0, 0)]) if key is canonical else one_sided_canonical([(0, 0, 0)])}
    form = canonical if key is canonical else one_sided_canonical
    for _ in range(size - 1):
        grown = set()
        for shape in level:
            cells = set(shape)
            for cell in shape:
                for other in neighbours(cell):
                    if other not in cells:
                        grown.add(form(cells | {other}))
        level = grown
    return sorted(level)


def free_shapes(size: int) -> list[tuple[Cell, ...]]:
    """Every free polyiamond of ``size`` cells, found by adding cells one at a time."""
    return _grow(size, canonical)


def one_sided_shapes(size: int) -> list[tuple[Cell, ...]]:
    return _grow(size, one_sided_canonical)


@dataclass(frozen=True)
class Shape:
    """One of the 10 free polyiamonds of 1-5 cells: a stable notation and name."""

    notation: str
    name: str
    cells: tuple[Cell, ...]

    @property
    def size(self) -> int:
        return len(self.cells)

    def __str__(self) -> str:
        return self.notation


def _shapes() -> dict[str, Shape]:
    names = {1: "monoiamond", 2: "diamond", 3: "triamond", 4: "tetriamond", 5: "pentiamond"}
    result = {}
    for size in range(1, 6):
        forms = free_shapes(size)
        for k, form in enumerate(forms):
            notation = str(size) if len(forms) == 1 else f"{size}{'abcd'[k]}"
            name = names[size] if len(forms) == 1 else f"{names[size]} {'abcd'[k]}"
            result[notation] = Shape(notation, name, form)
    return result


SHAPES: Final[dict[str, Shape]] = _shapes()
"""The 10 shapes by notation: ``1``, ``2``, ``3``, ``4a``-``4c``, ``5a``-``5d``
(within a size, in the order of their canonical forms)."""
SHAPE_ORDER: Final[tuple[str, ...]] = tuple(SHAPES)


def ascii_art(cells: Iterable[Cell]) -> str:
    """The shape drawn with ``/\\`` (upward) and ``\\/`` (downward) triangles."""
    cells = list(cells)
    top = max(c[1] for c in cells)
    rows: dict[int, dict[int, str]] = {}
    for i, j, down in cells:
        row = rows.setdefault(top - j, {})
        column = 2 * i + j + down
        row[column], row[column + 1] = ("\\", "/") if down else ("/", "\\")
    left = min(col for row in rows.values() for col in row)
    lines = []
    for r in range(top + 1):
        row = rows.get(r, {})
        width = max(row, default=left) + 1
        lines.append("".join(row.get(col, " ") for col in range(left, width)).rstrip())
    return "\n".join(lines)


def svg(cells: Iterable[Cell], size: float = 40.0, fill: str = "#4a90d9") -> str:
    """The shape as a standalone SVG document."""
    h = math.sqrt(3) / 2
    polygons = []
    points_all = []
    for cell in cells:
        pts = [(size * (i + j / 2), -size * h * j) for i, j in _vertices(cell)]
        points_all += pts
        polygons.append(" ".join(f"{x:.2f},{y:.2f}" for x, y in pts))
    min_x = min(p[0] for p in points_all)
    min_y = min(p[1] for p in points_all)
    width = max(p[0] for p in points_all) - min_x
    height = max(p[1] for p in points_all) - min_y
    body = "".join(f'<polygon points="{p}" fill="{fill}" stroke="#222" stroke-width="1.5"/>' for p in polygons)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{min_x - 2:.2f} {min_y - 2:.2f} '
            f'{width + 4:.2f} {height + 4:.2f}" width="{width + 4:.0f}" height="{height + 4:.0f}">{body}</svg>')


def placements(piece: Iterable[Cell], target: Iterable[Cell]) -> list[frozenset[Cell]]:
    """Every way to place ``piece`` (rotated and/or mirrored) inside ``target``."""
    target_set = set(target)
    found = set()
    for image in set(images(piece)):
        anchor = image[0]
        for cell in target_set:
            if cell[2] != anchor[2]:
                continue
            di, dj = cell[0] - anchor[0], cell[1] - anchor[1]
            moved = frozenset((i + di, j + dj, d) for i, j, d in image)
            if moved <= target_set:
                found.add(moved)
    return sorted(found, key=sorted)
