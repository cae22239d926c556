"""Type stubs for the compiled vectorized environment (see ``_vector.pyx``)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

OBSERVATION_SIZE: int

class IllegalAction(ValueError):
    env: int
    def __init__(self, env: int) -> None: ...

class GofVector:
    seat: int
    num_envs: int
    num_actions: int
    packed: bool
    observations: npt.NDArray[np.float32]
    final_observations: npt.NDArray[np.float32]
    final_returns: npt.NDArray[np.float32]
    acting_seats: npt.NDArray[np.int32]
    masks: npt.NDArray[np.bool_] | npt.NDArray[np.uint8]
    rewards: npt.NDArray[np.float32]
    dones: npt.NDArray[np.bool_]
    episodes: npt.NDArray[np.int64]
    steps: npt.NDArray[np.int64]
    match_steps: npt.NDArray[np.int64]
    seeds: npt.NDArray[np.uint64]
    final_scores: npt.NDArray[np.int32]
    match_numbers: npt.NDArray[np.int64]
    candidates: npt.NDArray[np.float32]
    candidate_actions: npt.NDArray[np.int32]
    candidate_counts: npt.NDArray[np.int32]
    def __init__(
        self, num_envs: int, seed: int, rules: dict[str, int], policies: Sequence[int], seat: int, packed: bool,
        candidates: int = 0,
    ) -> None: ...
    spin: int
    await_spin: int
    @property
    def worker_count(self) -> int: ...
    def start_workers(self, count: int) -> None: ...
    def stop_workers(self) -> None: ...
    def run(self, job: int, actions: npt.NDArray[np.int64] | None, threads: int, chunk: int) -> int: ...
    def legal_actions(self, env: int) -> npt.NDArray[np.int32]: ...
