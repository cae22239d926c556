"""Hostile input to the Gang of Four kernels and the search (issue 12).

Nothing a caller passes may crash the process or be silently misread: every
bad value gets a ``FourCardsError`` (``TypeError`` for a wrong type), and the
compiled kernels refuse exactly what the twin refuses.  Cases that used to
crash the interpreter run in a subprocess, so a regression fails the test
instead of killing pytest.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from fourcards.errors import FourCardsError, InvalidTypeError, NotYourTurnError
from fourcards.gangoffour import _kernels, _reference
from fourcards.gangoffour.match import GangOfFour

if not _kernels.COMPILED:
    pytest.skip("the compiled core is not in use", allow_module_level=True)
#: The compiled kernels as one namespace, like the twin (they are one module per concern).
COMPILED: Any = SimpleNamespace(**{name: getattr(module, name)
                                   for module in (_kernels.combos, _kernels.parse, _kernels.sim, _kernels.bots,
                                                  _kernels.search, _kernels.playouts)
                                   for name in dir(module) if not name.startswith("__")})
core: Any = COMPILED
KERNELS = [pytest.param(COMPILED, id="compiled"), pytest.param(_reference, id="twin")]


def run_isolated(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (a crash kills it, not the tests)."""
    env = dict(os.environ, FOURCARDS_REQUIRE_EXTENSIONS="1")
    env.pop("FOURCARDS_NO_EXTENSIONS", None)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env=env)


def assert_clean_error(code: str, error: str) -> None:
    """``code`` raises ``error`` (or a subclass: the class names are printed) and the process exits normally."""
    result = run_isolated(f"""
        try:
{textwrap.indent(textwrap.dedent(code), ' ' * 12)}
        except Exception as e:
            print('RAISED', *[c.__name__ for c in type(e).__mro__], isinstance(e, (ValueError, TypeError)), e)
        else:
            print('NO ERROR')
    """)
    assert result.returncode == 0, f"the process died ({result.returncode}): {result.stderr[-2000:]}"
    line = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert line.startswith("RAISED") and f" {error} " in line, result.stdout + result.stderr[-2000:]
    if error != "RuntimeError":  # a bad value: a ValueError or TypeError
        assert " True " in line, line


# -- the kernels: wrong types, ranges and floats, the same on both sides -------------------

BAD_CALLS: list[tuple[str, Callable[[Any], Any], type[Exception]]] = [
    ("classify_mask(-1)", lambda k: k.classify_mask(-1), FourCardsError),
    ("classify_mask(2**64)", lambda k: k.classify_mask(1 << 64), FourCardsError),
    ("classify_mask(3.5)", lambda k: k.classify_mask(3.5), InvalidTypeError),
    ("classify_mask('G2')", lambda k: k.classify_mask("G2"), InvalidTypeError),
    ("legal_actions(3.99)", lambda k: k.legal_actions(3.99), InvalidTypeError),
    ("legal_actions('G2 Y2')", lambda k: k.legal_actions("G2 Y2"), InvalidTypeError),
    ("legal_actions(1, 2**40)", lambda k: k.legal_actions(1, 1 << 40), FourCardsError),
    ("legal_actions(1, 12352)", lambda k: k.legal_actions(1, 12352), FourCardsError),
    ("legal_actions(1, 0.5)", lambda k: k.legal_actions(1, 0.5), InvalidTypeError),
    ("beats(1.5, 0)", lambda k: k.beats(1.5, 0), InvalidTypeError),
    ("beats(0, 10**30)", lambda k: k.beats(0, 10**30), FourCardsError),
    ("beats(-2, 0)", lambda k: k.beats(-2, 0), FourCardsError),
    ("legal_mask(1, -1, 2**70)", lambda k: k.legal_mask(1, -1, 1 << 70), FourCardsError),
    ("legal_mask(1, -1, 100)", lambda k: k.legal_mask(1, -1, 100), FourCardsError),
    ("legal_mask(1, -1, 20000.0)", lambda k: k.legal_mask(1, -1, 20000.0), InvalidTypeError),
    ("greedy_choose(3.5, ...)", lambda k: k.greedy_choose(3.5, -1, 0, 0, [1, 1], [0]), InvalidTypeError),
    ("greedy_choose(player=7)", lambda k: k.greedy_choose(1, -1, 0, 7, [1, 1], [0]), FourCardsError),
    ("greedy_choose(phase=5)", lambda k: k.greedy_choose(1, -1, 5, 0, [1, 1], [0]), FourCardsError),
    ("greedy_choose(sizes=[-1, 1])", lambda k: k.greedy_choose(1, -1, 0, 0, [-1, 1], [0]), FourCardsError),
    ("greedy_choose(legal=[0.5])", lambda k: k.greedy_choose(1, -1, 0, 0, [1, 1], [0.5]), InvalidTypeError),
    ("greedy_choose(legal=[2**40])", lambda k: k.greedy_choose(1, -1, 0, 0, [1, 1], [1 << 40]), ValueError),
]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("label, call, error", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_kernel_arguments_get_the_library_errors(kernel: Any, label: str, call: Callable[[Any], Any],
                                                     error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        call(kernel)
    assert not isinstance(info.value, OverflowError), f"{label}: {info.value!r}"


@pytest.mark.parametrize("kernel", KERNELS)
def test_numpy_integers_are_ints_and_bools_are_refused(kernel: Any) -> None:
    assert kernel.classify_mask(np.uint64(1)) == kernel.classify_mask(1) == 0
    assert kernel.beats(np.int32(5), -1) is True or kernel.beats(np.int32(5), -1) == True  # noqa: E712
    assert list(kernel.legal_actions(np.int64(1), np.int16(-1))) == [0]
    # a first user's find: legal_actions(hand, True) played on table action 1, classify_mask(True) was G1
    calls: list[Callable[[], Any]] = [lambda: kernel.classify_mask(True), lambda: kernel.legal_actions(3, True),
                                      lambda: kernel.legal_actions(np.bool_(True)), lambda: kernel.beats(False, -1)]
    for call in calls:
        with pytest.raises(InvalidTypeError, match="bool"):
            call()


@pytest.mark.parametrize("text", ["G01", "m01", "G0010 Y10", "Y02", "R010", "G00"])
def test_the_text_fast_path_refuses_leading_zeros(text: str) -> None:
    from fourcards.gangoffour.cards import parse_cards

    assert COMPILED.fast_mask(text) == -1 == _reference.fast_mask(text)
    assert COMPILED.fast_classify(text) == -2 == _reference.fast_classify(text)
    with pytest.raises(FourCardsError):
        parse_cards(text)


def test_the_text_fast_path_still_reads_ten() -> None:
    assert COMPILED.fast_mask("G10 y10") == _reference.fast_mask("G10 y10") > 0


def test_classify_batch_counts_every_invalid_code() -> None:
    # 2**24 invalid codes of weight 256 each wrapped a 32-bit count to 0: "an empty row"
    rows = np.full((1, 1 << 24), 200, dtype=np.uint8)
    with pytest.raises(FourCardsError, match="200 is not a card code"):
        COMPILED.classify_batch(rows)


# -- the rules reaching the simulator ------------------------------------------------------

def rules(**changes: Any) -> dict[str, Any]:
    from fourcards.gangoffour.match import Rules

    packed: dict[str, Any] = _kernels.pack_rules(Rules(players=3))
    packed.update(changes)
    return packed


@pytest.mark.parametrize("change, error", [
    ({"dealer": -1}, ValueError), ({"dealer": 3}, ValueError), ({"players": 9}, ValueError),
    ({"players": 3.5}, InvalidTypeError), ({"target": 10**12}, FourCardsError), ({"target": 0}, ValueError),
])
def test_gof_simulate_refuses_bad_rules(change: dict[str, Any], error: type[Exception]) -> None:
    seeds = np.arange(2, dtype=np.uint64)
    with pytest.raises(error):
        COMPILED.gof_simulate(seeds, [0, 1, 1], rules(**change))


def test_gof_simulate_refuses_missing_and_extra_fields() -> None:
    packed = rules()
    del packed["chinese"]
    with pytest.raises(ValueError, match="exactly the fields"):
        COMPILED.gof_simulate(np.arange(1, dtype=np.uint64), [0, 1, 1], packed)
    with pytest.raises(ValueError, match="exactly the fields"):
        COMPILED.gof_simulate(np.arange(1, dtype=np.uint64), [0, 1, 1], rules(extra=1))


def test_gof_simulate_with_a_negative_dealer_exits_cleanly() -> None:
    assert_clean_error("""
        import numpy as np
        from fourcards.gangoffour import _kernels
        from fourcards.gangoffour.match import Rules
        packed = _kernels.pack_rules(Rules(players=3)); packed["dealer"] = -5
        _kernels.sim.gof_simulate(np.arange(3, dtype=np.uint64), [1, 1, 1], packed)
    """, "ValueError")


# -- the search ------------------------------------------------------------------------------

def observation_and_legal(seed: int = 2) -> tuple[Any, list[int]]:
    state = GangOfFour().new_match(seed)
    return state.observation(state.current_player), state.legal_actions()


@pytest.mark.parametrize("exploration", [-1.0, -5, float("nan"), float("inf"), 10**400, 1e9])
def test_search_bot_refuses_a_bad_exploration(exploration: float) -> None:
    from fourcards.gangoffour.bots import SearchBot

    with pytest.raises(FourCardsError, match="exploration"):
        SearchBot(exploration=exploration)


@pytest.mark.parametrize("options, error", [
    ({"capacity": 0}, FourCardsError), ({"capacity": -1}, FourCardsError), ({"capacity": 1 << 40}, FourCardsError),
    ({"capacity": 10.5}, InvalidTypeError), ({"iterations": 1.5}, InvalidTypeError),
    ({"time_per_move": float("nan")}, FourCardsError),
    ({"exploration": "1"}, InvalidTypeError),
])
def test_search_bot_refuses_bad_options(options: dict[str, Any], error: type[Exception]) -> None:
    from fourcards.gangoffour.bots import SearchBot

    with pytest.raises(error):
        SearchBot(**options)


@pytest.mark.parametrize("code, error", [
    ("SearchBot(exploration=-1.0, iterations=50).choose(obs, legal)", "FourCardsError"),
    ("SearchBot(exploration=float('nan'), iterations=50).choose(obs, legal)", "FourCardsError"),
    ("SearchBot(capacity=0, iterations=50).choose(obs, legal)", "FourCardsError"),
    ("SearchBot(iterations=50).choose(dataclasses.replace(obs, player=40), legal)", "FourCardsError"),
    ("SearchBot(iterations=50).choose(dataclasses.replace(obs, hand_sizes=(16, 99, 16, 16)), legal)",
     "FourCardsError"),
    ("SearchBot(iterations=50).choose(dataclasses.replace(obs, direction=7), legal)", "ValueError"),
    ("SearchBot(iterations=50).choose(dataclasses.replace(obs, hand_mask=0), legal)", "ValueError"),
    ("SearchBot(iterations=50).choose(dataclasses.replace(obs, played_mask=obs.hand_mask), legal)",
     "ImpossibleCardsError"),
    ("SearchBot(iterations=50).choose(dataclasses.replace(obs, scores=(0, -1, 0, 0)), legal)", "FourCardsError"),
    ("SearchBot(iterations=50).choose(dataclasses.replace(obs, out=(False, True, False, False)), legal)",
     "ValueError"),
])
def test_search_with_bad_values_exits_cleanly(code: str, error: str) -> None:
    assert_clean_error(f"""
        import dataclasses
        from fourcards.gangoffour.bots import SearchBot
        from fourcards.gangoffour.match import GangOfFour
        state = GangOfFour().new_match(2)
        obs, legal = state.observation(state.current_player), state.legal_actions()
        {code}
    """, error)


def test_tournament_with_a_negative_exploration_fails_fast() -> None:
    assert_clean_error("""
        from fourcards.tournament import Entrant, run_tournament
        entrants = [Entrant.of("search", exploration=-5), Entrant("greedy"), Entrant("greedy")]
        run_tournament(entrants, deals=1, seed=1, target_score=10)
    """, "FourCardsError")


def test_gof_search_entry_points_before_reset_and_with_bad_arguments() -> None:
    assert_clean_error("""
        from fourcards.gangoffour import _search
        _search.GofSearch(10).statistics()
    """, "RuntimeError")
    search = core.GofSearch(10)
    with pytest.raises(RuntimeError, match="reset"):
        search.run(5)
    with pytest.raises(InvalidTypeError):
        search.run(2.5)
    with pytest.raises(FourCardsError):
        search.run(-1)


def test_a_small_tree_still_answers() -> None:
    from fourcards.gangoffour.bots import SearchBot

    obs, legal = observation_and_legal()
    bot = SearchBot(seed=1, iterations=200, capacity=1)
    assert bot.choose(obs, legal) in legal


def test_zero_exploration_is_allowed() -> None:
    from fourcards.gangoffour.bots import SearchBot

    obs, legal = observation_and_legal()
    assert SearchBot(seed=1, iterations=100, exploration=0).choose(obs, legal) in legal


def test_one_search_bot_shared_by_threads_stays_whole() -> None:
    from fourcards.gangoffour.bots import SearchBot

    obs, legal = observation_and_legal()
    alone = SearchBot(seed=4, iterations=300)
    expected = [alone.choose(obs, legal) for _ in range(8)]
    shared = SearchBot(seed=4, iterations=300)
    answers: list[int] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(2):
                answers.append(shared.choose(obs, legal))
        except BaseException as error:  # pragma: no cover - the failure we look for
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(answers) == 8 and set(answers) <= set(legal)
    # the same eight searches ran (one at a time), so the same multiset of answers
    assert sorted(answers) == sorted(expected)
    assert shared.total_iterations == alone.total_iterations


def test_gof_search_refuses_use_while_it_runs_in_another_thread() -> None:
    from fourcards.gangoffour.bots import SearchBot

    obs, legal = observation_and_legal()
    bot = SearchBot(seed=1, iterations=10)
    bot.choose(obs, legal)
    search: Any = bot._search
    failures: list[str] = []
    thread = threading.Thread(target=search.run, args=(3_000,))
    thread.start()
    try:
        while thread.is_alive() and not failures:
            try:
                search.statistics()
            except RuntimeError as error:
                failures.append(str(error))
    finally:
        thread.join()
    # run() holds the tree for its whole length; the other thread is told so
    assert failures and "another thread" in failures[0]
    assert search.statistics()  # usable again afterwards


def test_observation_fields_out_of_range_are_named() -> None:
    from fourcards.gangoffour.bots import SearchBot

    obs, legal = observation_and_legal()
    with pytest.raises(FourCardsError, match="me=40"):
        SearchBot(iterations=10).choose(dataclasses.replace(obs, player=40, current_player=40), legal)
    with pytest.raises(NotYourTurnError, match="seat 2's, but it is seat 3's turn"):
        SearchBot(iterations=10).choose(dataclasses.replace(obs, player=2, current_player=3), legal)
