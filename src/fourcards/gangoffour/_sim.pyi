"""Type stubs for the compiled Gang of Four simulator (see ``_sim.pyx``)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

def gof_simulate(
    seeds: npt.NDArray[np.uint64], policies: Sequence[int], rules: dict[str, int], record: bool = False
) -> tuple[
    npt.NDArray[np.int32], npt.NDArray[np.bool_], npt.NDArray[np.int32], npt.NDArray[np.int64],
    list[npt.NDArray[np.int32]] | None
]: ...
