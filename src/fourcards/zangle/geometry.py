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

import html
import math
import operator
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from typing import Any, Final

from ..engine import check_count, check_real
from ..errors import FourCardsError, InvalidTypeError

__all__ = ["Cell", "Shape", "SHAPES", "SHAPE_ORDER", "canonical", "one_sided_canonical", "images",
           "neighbours", "free_shapes", "one_sided_shapes", "ascii_art", "svg", "placements"]

Cell = tuple[int, int, int]
Vertex = tuple[int, int]

# -- input checks: bad input gets a FourCardsError naming the argument (InvalidTypeError for a
# wrong type), and nothing runs unbounded

MAX_SHAPE_SIZE: Final = 8
"""The largest ``size`` :func:`free_shapes` and :func:`one_sided_shapes` take: the deck's
shapes have 1-5 cells, and 8 (66 free shapes) still takes a fraction of a second (each
size up costs about three times more)."""
MAX_CELLS: Final = 1000
"""The most cells a shape given to :func:`canonical`, :func:`ascii_art` or :func:`svg` may have."""
MAX_DRAWN_SPAN: Final = 1000
"""How far apart (in lattice steps, along each axis) the cells :func:`ascii_art` and :func:`svg`
draw may lie, and :data:`MAX_DRAWN_COORDINATE` how far from the origin."""
MAX_DRAWN_COORDINATE: Final = 10**6
MAX_SVG_SIZE: Final = 10_000.0
"""The largest ``size`` (a triangle's side, in SVG units) :func:`svg` takes."""
MAX_FILL: Final = 100
"""The longest ``fill`` text :func:`svg` takes."""


def _shape_size(size: Any) -> int:
    count = check_count(size, "size")
    if not 1 <= count <= MAX_SHAPE_SIZE:
        shown = count if count < 10**20 else "a huge number"
        raise FourCardsError(f"size={shown} is out of range: shapes of 1..{MAX_SHAPE_SIZE} cells")
    return count


def _coordinate(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be an int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise InvalidTypeError(f"{name} must be an int, not {type(value).__name__} {value!r:.40}") from None


def _cells(cells: Any, name: str = "cells", drawn: bool = False) -> list[Cell]:
    """``cells`` checked: an iterable of 1..MAX_CELLS ``(i, j, down)`` triples, ``i`` and ``j``
    ints, ``down`` 0 or 1 (and, to be drawn, within :data:`MAX_DRAWN_SPAN` of each other)."""
    wrong = f"{name} must be an iterable of (i, j, down) cells"
    if isinstance(cells, (str, bytes, bytearray)):
        raise InvalidTypeError(f"{wrong}, not {type(cells).__name__} {cells!r:.40}")
    try:
        items = iter(cells)
    except TypeError:
        raise InvalidTypeError(f"{wrong}, not {type(cells).__name__} {cells!r:.40}") from None
    taken = list(islice(items, MAX_CELLS + 1))
    if not taken:
        raise FourCardsError(f"{name} is empty: a shape has at least one cell")
    if len(taken) > MAX_CELLS:
        raise FourCardsError(f"{name} has more than {MAX_CELLS} cells")
    checked: list[Cell] = []
    for index, cell in enumerate(taken):
        where = f"{name}[{index}]"
        if isinstance(cell, (str, bytes, bytearray)) or not isinstance(cell, (tuple, list)):
            raise InvalidTypeError(f"{where} must be an (i, j, down) tuple, not {type(cell).__name__} {cell!r:.40}")
        if len(cell) != 3:
            raise FourCardsError(f"{where} = {cell!r:.60} must be an (i, j, down) triple, not {len(cell)} values")
        i, j = _coordinate(cell[0], f"{where} i"), _coordinate(cell[1], f"{where} j")
        down = check_count(cell[2], f"{where} down")
        if down > 1:
            shown = down if down < 10**20 else "a huge number"
            raise FourCardsError(f"{where} down={shown} must be 0 (upward) or 1 (downward)")
        checked.append((i, j, down))
    if drawn:
        for axis, label in ((0, "i"), (1, "j")):
            low, high = min(c[axis] for c in checked), max(c[axis] for c in checked)
            if max(-low, high) > MAX_DRAWN_COORDINATE:
                raise FourCardsError(f"{name}: a cell's {label} is more than {MAX_DRAWN_COORDINATE:,} "
                                     "from the origin, too far to draw")
            if high - low > MAX_DRAWN_SPAN:
                raise FourCardsError(f"{name}: the cells' {label} coordinates span {high - low}, more than "
                                     f"{MAX_DRAWN_SPAN} to draw")
    return checked


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
    """The free canonical form: the least image under all 12 symmetries; ``cells`` are
    1..:data:`MAX_CELLS` ``(i, j, down)`` triples of ints, ``down`` 0 or 1.

    >>> canonical([(5, 2, 1)])
    ((0, 0, 0),)
    """
    return _free_form(_cells(cells))


def _free_form(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """:func:`canonical` of cells known to be good (the shapes grown here)."""
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
    level = {_free_form([(0, 0, 0)]) if key is _free_form else one_sided_canonical([(0, 0, 0)])}
    form = _free_form if key is _free_form else one_sided_canonical
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
    """Every free polyiamond of ``size`` cells, found by adding cells one at a time: ``size``
    is an int 1..:data:`MAX_SHAPE_SIZE` (8); another size raises :class:`FourCardsError`
    (:class:`InvalidTypeError` for a float, bool or str)."""
    return _grow(_shape_size(size), _free_form)


def one_sided_shapes(size: int) -> list[tuple[Cell, ...]]:
    """Every one-sided polyiamond (mirror images distinct) of ``size`` cells, ``size`` checked
    as by :func:`free_shapes`."""
    return _grow(_shape_size(size), one_sided_canonical)


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
        forms = _grow(size, _free_form)
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
    """The shape drawn with ``/\\`` (upward) and ``\\/`` (downward) triangles; ``cells`` checked
    as by :func:`canonical` and within :data:`MAX_DRAWN_SPAN` of each other."""
    cells = _cells(cells, drawn=True)
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
    """The shape as a standalone SVG document.

    ``cells`` are checked as by :func:`ascii_art`; ``size`` (a triangle's side) is a finite
    number, more than 0 and at most :data:`MAX_SVG_SIZE`; ``fill`` is a colour as SVG reads it
    (text of at most :data:`MAX_FILL` printable characters), written escaped, so it stays
    one attribute's value.

    >>> '"' in svg([(0, 0, 0)], fill='red" onload="x').split('fill="')[1].split('" stroke')[0]
    False
    """
    checked = _cells(cells, drawn=True)
    side = check_real(size, "size")
    if not (math.isfinite(side) and 0 < side <= MAX_SVG_SIZE):
        raise FourCardsError(f"size={side!r} must be a finite number more than 0 and at most {MAX_SVG_SIZE:g}")
    if not isinstance(fill, str):
        raise InvalidTypeError(f"fill must be a colour (a str), not {type(fill).__name__} {fill!r:.40}")
    if not fill or len(fill) > MAX_FILL or not fill.isprintable():
        raise FourCardsError(f"fill={fill!r:.60} must be a colour: 1..{MAX_FILL} printable characters")
    return _svg(checked, side, html.escape(fill, quote=True))


def _svg(cells: Iterable[Cell], size: float, fill: str) -> str:
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
