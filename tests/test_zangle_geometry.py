"""Zangle geometry: polyiamonds from the lattice, their symmetries, and tilings."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards import FourCardsError
from fourcards.zangle import SHAPES, TILINGS, all_tilings, ascii_art, canonical, free_shapes, svg, tiles
from fourcards.zangle.geometry import images, neighbours, one_sided_shapes, placements

ROOT = Path(__file__).resolve().parent.parent


def test_enumeration_gives_the_known_counts() -> None:
    assert [len(free_shapes(n)) for n in range(1, 7)] == [1, 1, 1, 3, 4, 12]
    assert [len(one_sided_shapes(n)) for n in range(1, 7)] == [1, 1, 1, 4, 6, 19]


def test_the_ten_shapes_and_their_stable_names() -> None:
    assert list(SHAPES) == ["1", "2", "3", "4a", "4b", "4c", "5a", "5b", "5c", "5d"]
    assert SHAPES["1"].name == "monoiamond" and SHAPES["2"].name == "diamond"
    assert SHAPES["4b"].cells == ((0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0))  # the big triangle
    for shape in SHAPES.values():
        assert canonical(shape.cells) == shape.cells
        assert len(shape.cells) == shape.size and str(shape) == shape.notation


def test_symmetries() -> None:
    big_triangle = SHAPES["4b"].cells
    assert len(set(images(big_triangle))) == 2  # up or down
    chiral = [n for n, shape in SHAPES.items()
              if len(set(images(shape.cells, mirror=False))) != len(set(images(shape.cells)))]
    # one-sided counts 4 and 6 against free counts 3 and 4: one chiral tetriamond, two pentiamonds
    assert sorted(n[0] for n in chiral) == ["4", "5", "5"]
    for shape in SHAPES.values():
        assert all(canonical(image) == shape.cells for image in images(shape.cells))
        assert len(set(images(shape.cells))) in (1, 2, 3, 4, 6, 12)


def test_cells_and_neighbours() -> None:
    for cell in [(0, 0, 0), (2, -1, 1)]:
        for other in neighbours(cell):
            assert cell in neighbours(other) and other[2] != cell[2]


def test_rendering() -> None:
    assert ascii_art(SHAPES["1"].cells) == "/\\"
    assert ascii_art(SHAPES["4b"].cells) == " /\\\n/\\/\\"
    picture = svg(SHAPES["5a"].cells)
    assert picture.startswith("<svg") and picture.count("<polygon") == 5


def test_placements_cover_only_target_cells() -> None:
    target = SHAPES["5b"].cells
    for piece in ("1", "2", "3"):
        for placed in placements(SHAPES[piece].cells, target):
            assert placed <= set(target) and len(placed) == SHAPES[piece].size


def test_tiling_examples_and_errors() -> None:
    assert tiles("2", ["1", "1"]) and tiles("4b", ["1", "3"]) and not tiles("4b", ["2", "2"])
    assert tiles("5a", ["5a"]) and not tiles("5a", ["5b"])
    assert not tiles("3", ["1", "1"])  # areas differ
    with pytest.raises(FourCardsError, match="'6x' is not a shape"):
        tiles("6x", ["1"])


def test_shipped_tilings_are_regenerated_exactly() -> None:
    shipped = json.loads(resources.files("fourcards.zangle").joinpath("tilings.json").read_text())
    assert shipped == all_tilings() == TILINGS


@pytest.mark.skipif(not (ROOT / "tools" / "generate_zangle_tilings.py").exists(), reason="source tree only")
def test_generator_check() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "generate_zangle_tilings.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@given(st.sampled_from(list(SHAPES)), st.lists(st.sampled_from(list(SHAPES)), min_size=1, max_size=5))
def test_a_tiling_balances_area_and_orientation(target: str, pieces: list[str]) -> None:
    if tiles(target, pieces):
        assert sum(SHAPES[p].size for p in pieces) == SHAPES[target].size
        assert sorted(pieces) in TILINGS[target]
    else:
        assert sorted(pieces) not in TILINGS[target]
