"""One error taxonomy for every game: unparseable action text is an InvalidActionError,
a seat off the table an UnknownSeatError, an action after the end a GameOverError,
and every FourCardsError carries a stable ``code`` (the bundled server's strings),
documented in one table in docs/engine.md."""

from __future__ import annotations

import importlib
import pkgutil
import random
import re
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest

import fourcards
from fourcards.errors import (
    ERROR_CODES, FourCardsError, GameOverError, IllegalMoveError, ImpossibleCardsError, InvalidActionError,
    InvalidCardError, InvalidComboError, InvalidTypeError, NotYourTurnError, StaleActionError, UnknownGameError,
    UnknownSeatError,
)
from fourcards.games import get_game

from .hosting_helpers import BUILTIN, PLUGIN, new_state, play, plugin

__all__ = ["plugin"]

ENGINE_DOC = Path(__file__).parent.parent / "docs" / "engine.md"

#: Text no game reads as an action.
NONSENSE = ["", "   ", "no such action", "pass pass", "\u00e9\ud800", "x" * 500, "G99", "claim", "ask P1", "call"]


@pytest.mark.parametrize("name", (*BUILTIN, PLUGIN))
def test_unparseable_action_text_is_an_invalid_action_error_in_every_game(plugin: str, name: str) -> None:
    state = play(new_state(name, {}, 2), random.Random(2), 3)
    before = state.to_json()
    for text in NONSENSE:
        for call in (state.apply, state.verify, state.action_to_int, state.parse_action):
            with pytest.raises(InvalidActionError) as caught:
                call(text)
            assert caught.value.code == "bad_action"
            # what callers caught before still catches it
            assert isinstance(caught.value, (IllegalMoveError, FourCardsError, ValueError))
        assert state.why_illegal(text) is not None and not state.can_apply(text)
    for number in (-1, state.game.num_distinct_actions, 2**40):
        with pytest.raises(InvalidActionError, match="is not an action of this game"):
            state.apply(number)
        with pytest.raises(InvalidActionError):
            state.int_to_action(number)
    assert state.to_json() == before  # nothing changed


def test_gang_of_four_text_errors_keep_their_old_classes() -> None:
    """``except InvalidCardError`` (or InvalidComboError, ImpossibleCardsError) written
    for Gang of Four before keeps catching what it caught."""
    state = new_state("gang-of-four", {}, 1)
    for text, old in (("zz", InvalidCardError), ("G2 Y3 R9", InvalidComboError), ("M1 M1 M1", ImpossibleCardsError),
                      ("give zz", InvalidCardError)):
        with pytest.raises(old) as caught:
            state.apply(text)
        assert isinstance(caught.value, InvalidActionError) and caught.value.code == "bad_action"
        assert caught.value.args[0] != ""  # the game's own reason is kept


@pytest.mark.parametrize("name", (*BUILTIN, PLUGIN))
def test_a_seat_off_the_table_is_an_unknown_seat_error(plugin: str, name: str) -> None:
    state = new_state(name, {}, 3)
    n = state.game.num_players
    action = state.legal_actions()[0]
    for seat in (-1, n, 2**40):
        with pytest.raises(UnknownSeatError) as caught:
            state.apply(action, player=seat)
        assert caught.value.code == "unknown_seat" and isinstance(caught.value, IllegalMoveError)
        with pytest.raises(UnknownSeatError):
            state.observation(seat)
    with pytest.raises(InvalidTypeError) as wrong_type:
        state.apply(action, player=True)  # a wrong type: a FourCardsError that is also a TypeError
    assert wrong_type.value.code == "bad_type" and isinstance(wrong_type.value, TypeError)
    other = (state.current_player + 1) % n
    if other != state.current_player:
        with pytest.raises(NotYourTurnError) as turn:
            state.apply(action, player=other)
        assert turn.value.code == "not_your_turn"
    with pytest.raises(StaleActionError) as stale:
        state.apply(action, expected_step=state.step + 1)
    assert stale.value.code == "stale"


@pytest.mark.parametrize("name", (*BUILTIN, PLUGIN))
def test_an_action_after_the_end_is_a_game_over_error(plugin: str, name: str) -> None:
    short = {"gang-of-four": {"target_score": 1}, "four-color": {"rounds": 1}, "zangle": {"rounds": 1}}
    state = play(new_state(name, short.get(name, {}), 4), random.Random(4), 100_000)
    assert state.is_terminal
    for player in (None, 0):
        with pytest.raises(GameOverError, match="the game is over") as caught:
            state.apply(0, player=player)
        assert caught.value.code == "game_over" and isinstance(caught.value, IllegalMoveError)


def test_an_unknown_game_is_an_unknown_game_error() -> None:
    with pytest.raises(UnknownGameError) as caught:
        get_game("chess")
    assert caught.value.code == "unknown_game"


def every_error_class() -> list[type[FourCardsError]]:
    """Every FourCardsError class of the installed package (every module imported first)."""
    for module in pkgutil.walk_packages(fourcards.__path__, "fourcards."):
        if (module.name.startswith("fourcards.rl") or ".benchmarks" in module.name or "__main__" in module.name
                or any(part.startswith("_") for part in module.name.split("."))):
            continue  # optional dependencies, compiled kernels and private helpers: no error class there
        try:
            importlib.import_module(module.name)
        except ImportError as error:  # a module of an extra that is not installed (the server's)
            if (error.name or "fourcards").startswith("fourcards"):
                raise
    found: list[type[FourCardsError]] = []
    pending: list[type[FourCardsError]] = [FourCardsError]
    while pending:
        cls = pending.pop()
        if cls.__module__.startswith("fourcards") and cls not in found:
            found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


def test_every_error_class_carries_a_documented_code() -> None:
    classes = every_error_class()
    assert len(classes) >= 17
    for cls in classes:
        assert isinstance(cls.code, str) and cls.code in ERROR_CODES, cls
    from fourcards.decks import DeckError

    assert DeckError.code == "bad_deck"


def documented_codes() -> dict[str, str]:
    """The code table of docs/engine.md: code -> the class named in its row."""
    text = ENGINE_DOC.read_text(encoding="utf-8")
    section = text.split("## Errors", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| `([A-Za-z]+)`", section, re.M)
    return {code: cls for code, cls in rows}


def test_docs_engine_lists_every_code_once_with_its_class() -> None:
    table = documented_codes()
    assert set(table) == set(ERROR_CODES)
    classes = {cls.__name__: cls for cls in every_error_class()}
    for code, name in table.items():
        assert classes[name].code == code
    text = ENGINE_DOC.read_text(encoding="utf-8")
    section = text.split("## Errors", 1)[1].split("\n## ", 1)[0]
    assert all(section.count(f"| `{code}` |") == 1 for code in ERROR_CODES)


def test_docs_embedding_gives_every_code_its_http_status() -> None:
    """A first user's trial (2026-12-05): the status table of docs/embedding.md left out
    ``bad_type``; it now lists every code of ``fourcards.hosting.HTTP_STATUS`` at its status, once."""
    from fourcards.hosting import HTTP_STATUS

    text = (ENGINE_DOC.parent / "embedding.md").read_text(encoding="utf-8")
    section = text.split("## Errors as HTTP answers", 1)[1].split("\n## ", 1)[0]
    documented: dict[str, int] = {}
    for status, codes in re.findall(r"^\| (\d{3}) \| ([^|]+) \|", section, re.M):
        for code in re.findall(r"`([a-z_]+)`", codes):
            assert code not in documented, code
            documented[code] = int(status)
    assert documented == HTTP_STATUS


def test_codes_are_the_bundled_servers_strings_where_it_has_one() -> None:
    """The server sends these codes today (over the WebSocket protocol or in HTTP answers)."""
    import fourcards.server
    from fourcards.server import protocol

    server = Path(fourcards.server.__file__).parent
    source = "\n".join(path.read_text(encoding="utf-8") for path in sorted(server.glob("*.py")))
    sent = set(protocol.ERROR_CODES) | set(re.findall(r'(?:Refusal|_HTTPError)\(\d+, "([a-z_]+)"', source)) \
        | set(re.findall(r'_refusal\(\w+, "([a-z_]+)"', source))
    shared = {"illegal_action", "not_your_turn", "stale", "game_over", "unknown_table", "bad_token", "bad_rules",
              "bad_deck", "unknown_game", "unknown_seat", "bad_seats", "bad_request"}
    assert shared <= sent and shared <= set(ERROR_CODES)
    # the codes of its own are for cases the server has no string for
    assert set(ERROR_CODES) - sent == {"bad_card", "impossible_cards", "bad_combo", "bad_save", "missing_extra",
                                       "too_costly", "bad_type"}  # a search falls back to its rule bot: never sent
    # the WebSocket protocol maps the library's errors by their code, in one place
    from fourcards.errors import InvalidActionError, InvalidCardError, UnknownSeatError

    for error, code in ((InvalidActionError("x"), "bad_action"), (UnknownSeatError("x"), "unknown_seat"),
                        (StaleActionError("x"), "stale"), (GameOverError("x"), "game_over"),
                        (type("Own", (IllegalMoveError,), {"code": "own_code"})("x"), "illegal_action"),
                        (InvalidCardError("x"), "bad_message"), (FourCardsError("x"), "bad_message")):
        assert protocol.ProtocolError.of(error, "m").code == code, (error, code)


def test_every_code_has_an_http_status() -> None:
    from fourcards.hosting import HTTP_STATUS, error_body, http_status

    assert set(HTTP_STATUS) == set(ERROR_CODES) and all(400 <= s <= 599 for s in HTTP_STATUS.values())
    error = StaleActionError("late")
    assert http_status(error) == 409 and error_body(error) == {"error": {"code": "stale", "reason": "late"}}
    custom: Any = type("Custom", (FourCardsError,), {"code": "something_else"})("x")
    assert http_status(custom) == 400


def test_no_wrong_type_is_a_bare_type_error() -> None:
    """A first user's trial: a float ``rng`` or ``deadline`` was a bare ``TypeError``, which an
    ``except FourCardsError`` around a library call let through.  Every wrong type the package
    refuses is an :class:`InvalidTypeError` (code ``bad_type``), also a ``TypeError``; this reads
    the installed package's sources for a bare one."""
    package = Path(fourcards.__file__).parent
    bare = re.compile(r"(?:raise|return) TypeError\(")
    sources = [path for suffix in ("*.py", "*.pyx") for path in package.rglob(suffix)]
    assert len(sources) > 50
    found = [f"{path.relative_to(package)}:{number}" for path in sources
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if bare.search(line)]
    assert found == []
    error = InvalidTypeError("x")
    assert isinstance(error, FourCardsError) and isinstance(error, TypeError) and isinstance(error, ValueError)
    assert error.code == "bad_type" and ERROR_CODES["bad_type"]
    calls: list[Callable[[], object]] = [
        lambda: get_game("gang-of-four").new_game().new_match(1.5),  # type: ignore[arg-type]
        lambda: get_game("zangle").new_game().new_match(1).observation(None),
        lambda: get_game("four-color").new_game().new_match(1).apply(True)]
    for call in calls:
        with pytest.raises(FourCardsError) as caught:
            call()
        assert caught.value.code == "bad_type", caught.value
