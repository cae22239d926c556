"""Type stubs for the compiled Zangle kernel (see ``_core.pyx``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

def zangle_init(tilings: Any) -> None: ...
def zangle_find_packed(centre: int, own: int) -> npt.NDArray[np.uint8]: ...
def zangle_any_packed(centre: int, own: int) -> bool: ...
