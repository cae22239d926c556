"""Zangle: polyiamond shapes, their geometry and tilings.

The geometry (:mod:`fourcards.zangle.geometry`) derives the 10 shapes of 1-5
triangles from the triangular lattice; :mod:`fourcards.zangle.tiling` decides
which pieces cover which target.  The Zangle checks, the search for Zangles and
the games build on these.

>>> from fourcards.zangle import ZangleGame, best_zangle
>>> best_zangle("4b 2 Z 3", "1 5a 1")
<Zangle 5a(own) = Z(centre) + 1(own) + 1(own) + 3(centre)>
>>> ZangleGame(players=3).new_match(seed=1).current_player
0
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .cards import KINDS, Check, Zangle, best_zangle, check_zangle, find_zangles, has_zangle
from .geometry import SHAPES, Shape, ascii_art, canonical, free_shapes, one_sided_shapes, svg
from .tiling import TILINGS, all_tilings, tiles

__all__ = ["Check", "GreedyBot", "KINDS", "RandomBot", "Rules", "SHAPES", "Shape", "SpeedsterBot", "TILINGS",
           "Zangle", "ZangleGame", "ZangleObservation", "ZangleState", "all_tilings", "ascii_art",
           "best_zangle", "canonical", "check_zangle", "find_zangles", "free_shapes", "has_zangle",
           "one_sided_shapes", "svg", "tiles"]

# The game and its bots load on first use.
_LAZY = {"Rules": ".game", "ZangleGame": ".game", "ZangleObservation": ".game", "ZangleState": ".game",
         "GreedyBot": ".bots", "RandomBot": ".bots", "SpeedsterBot": ".bots"}
if TYPE_CHECKING:
    from .bots import GreedyBot, RandomBot, SpeedsterBot
    from .game import Rules, ZangleGame, ZangleObservation, ZangleState


__getattr__ = lazy_exports(globals(), _LAZY)
