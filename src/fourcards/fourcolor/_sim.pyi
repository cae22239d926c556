"""Type stubs for the compiled Four Color simulator (see ``_sim.pyx``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

def fc_simulate(seeds: Any, policies: Any, players: int, threshold: int, rounds: int, lucky_rank_only: bool,
                record: bool = False, bot_seeds: Any = None, same_colour_soldiers: bool = True,
                generals_hu: bool = True) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_],
                                                   npt.NDArray[np.int64], list[npt.NDArray[np.int32]] | None]: ...
