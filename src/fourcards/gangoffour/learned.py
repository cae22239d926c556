"""The learned Gang of Four bot: a small network that scores each legal action, in numpy.

The registry's ``learned`` bot of Gang of Four.  Each legal action is a row
of candidate features (:mod:`fourcards.gangoffour.features`), scored next
to the observation tensor (217 values) by

    score = w3 . relu(W2 relu(state @ state_w + row @ cand_w + b1) + b2) + b3

(a deeper policy, of format version 2, puts layers ``relu(h @ wh[i] + bh[i])``
between the second and the output)

and the bot plays the best-scoring action (the first on a tie: the same
choice for every seed).  The weights were distilled from the search (the
choices of 2,350 matches of four search players) by ``python -m
fourcards.rl.distil`` (:mod:`fourcards.rl.distil`, docs/rl-training.md) and ship in the
package as ``learned_policy.npz``; no torch is needed to play.

>>> from fourcards.engine import play_match
>>> from fourcards.gangoffour.bots import GreedyBot
>>> from fourcards.gangoffour.match import GangOfFour
>>> state = play_match(GangOfFour(target_score=20).new_match(5), [LearnedBot(), GreedyBot(), GreedyBot(), GreedyBot()])
>>> state.is_terminal
True

A policy file is an ``.npz`` of float32 arrays ``state_w (217, H)``,
``cand_w (50, H)``, ``b1 (H,)``, ``w2 (H, H2)``, ``b2 (H2,)``, ``w3 (H2,)``,
``b3 (1,)`` (version 2: and ``wh (L, H2, H2)``, ``bh (L, H2)``, ``L >= 1``
more layers) and three header strings: ``format`` (:data:`FORMAT`),
``version`` (one of :data:`FORMAT_VERSIONS`) and ``layout_hash`` (the
:data:`~fourcards.gangoffour.features.LAYOUT_HASH` of the features it was
trained on).  Anything else is refused with a :class:`FourCardsError` naming
the file and the problem.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from .._files import npz_arrays
from ..errors import FourCardsError, InvalidTypeError
from ..rng import check_seed
from .features import FEATURE_SIZE, LAYOUT_HASH, action_rows, observation_tensor
from .match import OBSERVATION_SIZE, Observation, legal_for, with_announcement

__all__ = ["LearnedBot", "PolicyWeights", "load_policy", "FORMAT", "FORMAT_VERSION", "FORMAT_VERSIONS",
           "POLICY_FILE"]

#: The ``format`` header of a policy file.
FORMAT: Final = "fourcards-candidate-mlp"
#: The ``version`` header of a policy file of two hidden layers (what every fourcards reads).
FORMAT_VERSION: Final = "1"
#: The ``version`` headers this module reads: "2", a policy of more layers (``wh``, ``bh``).
FORMAT_VERSIONS: Final = ("1", "2")
#: Candidate rows scored together (see :meth:`PolicyWeights.scores`).
BLOCK: Final = 8
#: The policy shipped in the package.
POLICY_FILE: Final = "learned_policy.npz"

_HEADERS = ("format", "version", "layout_hash")
_WEIGHTS = ("state_w", "cand_w", "b1", "w2", "b2", "w3", "b3")
_DEEPER = ("wh", "bh")

Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class PolicyWeights:
    """The arrays of a checked policy file."""

    state_w: Array
    cand_w: Array
    b1: Array
    w2: Array
    b2: Array
    w3: Array
    b3: Array
    source: str
    #: The layers between the second and the output (``L x H2 x H2``; none in a version 1 file).
    wh: Array | None = None
    bh: Array | None = None

    def scores(self, state: Array, rows: Array) -> Array:
        """One score a row of ``rows`` (``k x 50``) in the state ``state`` (217 values).

        The rows go through in blocks of :data:`BLOCK`: products that small
        stay on one thread in OpenBLAS, whose threads, on a busy machine, can
        make one decision wait for tens of milliseconds."""
        base = state @ self.state_w + self.b1
        result: Array = np.empty(len(rows), dtype=np.float32)
        for start in range(0, len(rows), BLOCK):
            hidden = np.maximum(rows[start:start + BLOCK] @ self.cand_w + base, 0.0)
            hidden2 = np.maximum(hidden @ self.w2 + self.b2, 0.0)
            if self.wh is not None and self.bh is not None:
                for layer, bias in zip(self.wh, self.bh):
                    hidden2 = np.maximum(hidden2 @ layer + bias, 0.0)
            result[start:start + BLOCK] = hidden2 @ self.w3 + self.b3[0]
        return result


def default_policy_path() -> Path:
    """Where the shipped policy is."""
    return Path(str(resources.files(__package__).joinpath(POLICY_FILE)))


def load_policy(path: str | Path | None = None) -> PolicyWeights:
    """The policy in ``path`` (default: the shipped one), checked (cached per path while the file is
    unchanged: a policy trained again to the same file is read again)."""
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise InvalidTypeError(f"policy must be a file path (str or Path) or None, not {type(path).__name__}")
    where = str(default_policy_path() if path is None else Path(path))
    try:
        stat = os.stat(where)
        version = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
    except (OSError, ValueError):  # missing, or a name the system refuses: _load says which
        version = (0, 0, 0)
    return _load(where, version)


@lru_cache(maxsize=8)
def _load(path: str, version: tuple[int, int, int]) -> PolicyWeights:  # noqa: ARG001 (the cache's key)
    def bad(problem: str) -> FourCardsError:
        return FourCardsError(f"policy file {path}: {problem}")

    with npz_arrays(path, f"policy file {path}", "as fourcards.rl.train and rl.distil write") as data:
        arrays = {name: data[name] for name in data.files}
    missing = [name for name in (*_HEADERS, *_WEIGHTS) if name not in arrays]
    if missing:
        raise bad(f"missing {', '.join(missing)} (a policy file holds {', '.join((*_HEADERS, *_WEIGHTS))})")
    headers = {}
    for name in _HEADERS:
        value = arrays[name]
        if value.shape != () or value.dtype.kind != "U":
            raise bad(f"header {name!r} must be a string")
        headers[name] = str(value)
    if headers["format"] != FORMAT:
        raise bad(f"format {headers['format']!r} is not {FORMAT!r}")
    if headers["version"] not in FORMAT_VERSIONS:
        raise bad(f"version {headers['version']!r}: this fourcards reads versions {', '.join(FORMAT_VERSIONS)}")
    names = (*_WEIGHTS, *_DEEPER) if headers["version"] == "2" else _WEIGHTS
    unread = sorted(set(arrays) - {*_HEADERS, *names})
    if unread:  # a deeper policy labelled version 1 would play without its layers
        raise bad(f"holds {', '.join(unread)}, which a version {headers['version']} policy file has not"
                  + (" (more layers: version 2)" if set(unread) & set(_DEEPER) else ""))
    missing = [name for name in names if name not in arrays]
    if missing:
        raise bad(f"missing {', '.join(missing)} (a version {headers['version']} policy file holds "
                  f"{', '.join(names)})")
    if headers["layout_hash"] != LAYOUT_HASH:
        raise bad(f"trained on candidate features {headers['layout_hash']!r}, but this fourcards writes "
                  f"{LAYOUT_HASH!r} (fourcards.gangoffour.features): retrain or use a matching version")
    weights = {}
    for name in names:
        value = arrays[name]
        if value.dtype.kind != "f":
            raise bad(f"{name} has dtype {value.dtype}, not floats")
        if not np.isfinite(value).all():
            raise bad(f"{name} holds NaN or infinite values")
        with np.errstate(over="ignore"):
            weights[name] = np.array(value, dtype=np.float32, order="C")  # 0-D stays 0-D
        if not np.isfinite(weights[name]).all():
            raise bad(f"{name} holds values too large for float32 (the policy's numbers)")
    for name in ("b1", "b2"):  # the widths the other shapes are checked against
        if weights[name].ndim != 1 or not weights[name].shape[0]:
            raise bad(f"{name} has shape {weights[name].shape}, expected a 1-D array of at least one value "
                      f"(b1 gives the hidden width, b2 the second)")
    hidden, hidden2 = weights["b1"].shape[0], weights["b2"].shape[0]
    expected = {"state_w": (OBSERVATION_SIZE, hidden), "cand_w": (FEATURE_SIZE, hidden), "b1": (hidden,),
                "w2": (hidden, hidden2), "b2": (hidden2,), "w3": (hidden2,), "b3": (1,)}
    if "wh" in weights:
        layers = weights["wh"].shape[0] if weights["wh"].ndim == 3 and weights["wh"].shape[0] else "L >= 1"
        expected.update({"wh": (layers, hidden2, hidden2), "bh": (layers, hidden2)})
    for name, shape in expected.items():
        if weights[name].shape != shape:
            shown = "(" + ", ".join(str(size) for size in shape) + ("," if len(shape) == 1 else "") + ")"
            raise bad(f"{name} has shape {weights[name].shape}, expected {shown} "
                      f"(b1 gives the hidden width, b2 the second, wh the layers after it)")
    return PolicyWeights(source=path, **weights)


class LearnedBot:
    """Plays the action the policy scores best (``policy``: a policy file; default: the shipped one).

    ``seed`` is taken as the random and search bots take theirs (a host may pass one to every seeded
    bot); the choice does not depend on it."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def __init__(self, seed: int = 0, policy: str | Path | None = None) -> None:
        self.seed = check_seed(seed)
        self.weights = load_policy(policy)
        self._state = np.zeros(OBSERVATION_SIZE, dtype=np.float32)

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int:
        legal_actions = legal_for(observation, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        state = observation_tensor(observation, out=self._state)
        rows, actions = action_rows(observation.hand_mask, legal_actions)
        return with_announcement(int(actions[int(np.argmax(self.weights.scores(state, rows)))]), observation,
                                 legal_actions)

    def __repr__(self) -> str:
        return f"LearnedBot(policy={self.weights.source!r})"


def _registry_bot(game: Any, seed: int, options: dict[str, Any]) -> LearnedBot:
    """The registry's factory: ``learned`` with the option ``policy`` (a file)."""
    unknown = sorted(set(options) - {"policy"})
    if unknown:
        raise FourCardsError(f"the learned bot of gang-of-four takes only the option policy=FILE, got {unknown}")
    return LearnedBot(seed, policy=options.get("policy"))
