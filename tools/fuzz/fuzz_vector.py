"""Fuzz the vectorized Gang of Four environment (``fourcards.rl.VectorGangOfFour``):
hostile construction arguments, action arrays of any dtype, shape and value,
thread counts, and calls out of order.  Every call answers or refuses with a
library error; a refused step changes nothing; a legal step agrees with a twin
environment stepped on one thread with the same actions."""

from __future__ import annotations

import sys
from typing import Any

import atheris
import numpy  # noqa: F401  (imported before instrumenting: only fourcards is traced)

with atheris.instrument_imports(include=["fourcards", "_common"]):
    import numpy as np

    from _common import Finding, clean_error
    from fourcards.errors import FourCardsError
    from fourcards.gangoffour.match import Rules
    from fourcards.rl.vector import VectorGangOfFour

DTYPES = [np.int64, np.int32, np.uint64, np.uint8, np.int8, np.float64, np.bool_, object]


def hostile_int(fdp: atheris.FuzzedDataProvider, good: int) -> Any:
    choice = fdp.ConsumeIntInRange(0, 9)
    if choice <= 5:
        return good
    return [float(good), -good - 1, good + (1 << 64), str(good)][choice - 6]


def build(fdp: atheris.FuzzedDataProvider) -> tuple[Any, Any] | None:
    players = fdp.ConsumeIntInRange(2, 4)
    rules = Rules(players=players, target_score=fdp.ConsumeIntInRange(1, 30),
                  manual_last_card=fdp.ConsumeBool(), pass_is_final=fdp.ConsumeBool())
    names: Any
    kind = fdp.ConsumeIntInRange(0, 3)
    if kind == 0:
        names = fdp.PickValueInList(["random", "greedy", "clever", ""])
    elif kind == 1:
        names = None
    else:
        names = [fdp.PickValueInList(["random", "greedy", None, 3]) for _ in range(fdp.ConsumeIntInRange(0, 5))]
    kwargs = dict(seed=hostile_int(fdp, fdp.ConsumeIntInRange(0, 2**64 - 1)), opponents=names, rules=rules,
                  packed_masks=fdp.ConsumeBool())
    if fdp.ConsumeBool():
        kwargs["seat"] = hostile_int(fdp, fdp.ConsumeIntInRange(0, 4))
    n = hostile_int(fdp, fdp.ConsumeIntInRange(1, 6))
    try:
        env = VectorGangOfFour(n, **kwargs)
        twin = VectorGangOfFour(n, **kwargs)
    except Exception as error:
        if not clean_error(error):
            raise
        return None
    return env, twin


def actions_for(fdp: atheris.FuzzedDataProvider, env: Any) -> Any:
    legal = np.array([env.legal_actions(i)[fdp.ConsumeIntInRange(0, 1000) % len(env.legal_actions(i))]
                      for i in range(env.num_envs)], dtype=np.int64)
    choice = fdp.ConsumeIntInRange(0, 7)
    if choice <= 3:
        return legal
    bad: Any = legal.copy()
    if choice == 4:
        bad[fdp.ConsumeIntInRange(0, env.num_envs - 1)] = fdp.ConsumeIntInRange(-(2**63), 2**63 - 1)
        return bad
    if choice == 5:
        return bad[: fdp.ConsumeIntInRange(0, env.num_envs)]
    if choice == 6:
        return bad.astype(fdp.PickValueInList(DTYPES))
    return [int(a) for a in bad] + [0] * fdp.ConsumeIntInRange(0, 2)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    built = build(fdp)
    if built is None:
        return
    env, twin = built
    try:
        if fdp.ConsumeBool():  # a step before any reset is refused
            try:
                env.step(np.zeros(env.num_envs, dtype=np.int64))
            except FourCardsError as error:  # as the Gymnasium vector env refuses it
                if "reset" not in str(error):
                    raise
            else:
                raise Finding("step before reset was accepted")
        threads = hostile_int(fdp, fdp.ConsumeIntInRange(1, 5))
        try:
            env.reset(threads=threads)
        except Exception as error:
            if not clean_error(error):
                raise
            env.reset()
        twin.reset()
        for _ in range(fdp.ConsumeIntInRange(1, 12)):
            actions = actions_for(fdp, env)
            before = env.observations.copy(), env.masks.copy(), env.steps.copy()
            try:
                env.step(actions, threads=fdp.ConsumeIntInRange(1, 4))
            except Exception as error:
                if not clean_error(error):
                    raise
                if not (np.array_equal(env.observations, before[0]) and np.array_equal(env.masks, before[1])
                        and np.array_equal(env.steps, before[2])):
                    raise Finding(f"a refused step changed the environment: {error}") from None
                continue
            twin.step(np.asarray(actions, dtype=np.int64))
            if not (np.array_equal(env.observations, twin.observations) and np.array_equal(env.masks, twin.masks)
                    and np.array_equal(env.rewards, twin.rewards) and np.array_equal(env.steps, twin.steps)):
                raise Finding("threads and one thread disagree")
    finally:
        env.close()
        twin.close()


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
