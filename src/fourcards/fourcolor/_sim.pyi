"""Type stubs for the compiled Four Color simulator (see ``_sim.pyx``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

def fc_simulate(seeds: Any, policies: Any, players: int, threshold: int, rounds: int, lucky_rank_only: bool,
                record: bool = False, bot_seeds: Any = None, same_colour_soldiers: bool = True,
                generals_hu: bool = True) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_],
                                                   npt.NDArray[np.int64], list[npt.NDArray[np.int32]] | None]: ...

class FcSearch:
    iterations: int
    def reset(self, players: int, threshold: int, rounds: int, rank_only: bool, round_: int, me: int, hand: Any,
              exposed: Any, exposed_points: Any, hidden: Any, sizes: Any, stock_n: int, phase: int, offer_card: int,
              offer_source: int, offer_player: int, order: Any, answered: int, answers: Any, totals: Any, legal: Any,
              seed: int, scale: float, burn: int, mixing: int, weight: float, same_colour_soldiers: bool = True,
              generals_hu: bool = True) -> None: ...
    def set_history(self, seat: int, events: Any) -> None: ...
    def agreement(self, seat: int, hand: Any) -> tuple[int, int]: ...
    def run(self, iterations: int) -> int: ...
    def statistics(self) -> list[tuple[int, int, float]]: ...
