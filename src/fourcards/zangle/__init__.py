"""Zangle: polyiamond shapes, their geometry and tilings.

The geometry (:mod:`fourcards.zangle.geometry`) derives the 10 shapes of 1-5
triangles from the triangular lattice; :mod:`fourcards.zangle.tiling` decides
which pieces cover which target.  The Zangle checks, the search for Zangles and
the games build on these.
"""

from .geometry import SHAPES, Shape, ascii_art, canonical, free_shapes, one_sided_shapes, svg
from .tiling import TILINGS, all_tilings, tiles

__all__ = ["SHAPES", "Shape", "TILINGS", "all_tilings", "ascii_art", "canonical", "free_shapes",
           "one_sided_shapes", "svg", "tiles"]
