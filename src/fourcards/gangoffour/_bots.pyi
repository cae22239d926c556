"""Type stubs for the compiled Gang of Four rule-based player (see ``_bots.pyx``)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

def greedy_choose(
    hand: int, table: int, phase: int, player: int, sizes: Sequence[int], legal: npt.NDArray[np.int32] | Sequence[int]
) -> int: ...
