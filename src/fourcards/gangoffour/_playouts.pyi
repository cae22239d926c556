"""Type stubs for the compiled Gang of Four random playouts (see ``_playouts.pyx``)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

MAX_PLAYOUT_STEPS: int
def gof_random_playouts(
    rules: dict[str, int], hands: Sequence[int], totals: Sequence[int], round_: int, dealer: int,
    direction: int, phase: int, current: int, table: int, table_player: int, passed: int,
    announced: int, out: int, m1_lead: bool, played: int, loser: int, given: int, returned: int,
    match_rng: int, playouts: int, seed: int, record: bool = False,
) -> tuple[npt.NDArray[np.float64], list[npt.NDArray[np.int32]] | None]: ...
