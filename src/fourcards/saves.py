"""Loading any saved match: :func:`load` reads the game and its full rules
from the save itself (``fourcards.load`` is this function).

A save (``State.to_json``) names its game and records every rule option the
game was made with (``Game.rules_dict()``, decks included), so nothing but the
text is needed to load it; a plug-in's game loads the same way once the
plug-in is installed:

>>> import fourcards
>>> from fourcards.games import DEFAULT_GAME, get_game
>>> state = get_game(DEFAULT_GAME).new_game(players=2).new_match(seed=5)
>>> loaded = fourcards.load(state.to_json())
>>> loaded == state, loaded.game.rules_dict() == state.game.rules_dict()
(True, True)

Signatures: with ``key``, the save must carry the HMAC-SHA256 signature
``to_json(key=...)`` made with it; without, a signed save is refused unless
the caller says ``verify=False`` (the save is then checked by replaying its
actions). A snapshot (``to_json(key, snapshot=True)``) is restored without
replaying when its signature is checked, so it loads in time independent of
the match's length. Every bad save raises :class:`~fourcards.errors.InvalidStateError`.

Every save reveals every hand (the seed and the actions deal and replay the
whole match): it belongs to the server; a client gets views
(:meth:`~fourcards.engine.State.view`, :mod:`fourcards.hosting`'s updates).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from ._snapshot import SnapshotCache
from .engine import Game, State, _key_bytes, _short, check_signature, read_envelope
from .errors import FourCardsError, InvalidStateError, InvalidTypeError
from .games import get_game

__all__ = ["load", "game_of", "SnapshotWriter"]

_GAMES_KEPT = 64
_games: OrderedDict[tuple[type, str], Game[Any]] = OrderedDict()
_games_lock = threading.Lock()


def game_of(name: str, rules: dict[str, Any]) -> Game[Any]:
    """The registered game ``name`` under ``rules`` (a save's ``rules``: what its
    ``rules_dict()`` gave); :class:`InvalidStateError` when the game is not
    installed or the rules do not make it.

    The latest games made are kept (64 of them: a game is immutable, and some
    take a while to make), so loading many saves of one game makes it once."""
    if not isinstance(name, str):
        raise InvalidStateError(f"saved match names no game ({_short(name)})")
    try:
        entry = get_game(name)
    except FourCardsError:
        raise InvalidStateError(f"saved match is of the game {_short(name)}, which is not installed") from None
    if not isinstance(rules, dict):
        raise InvalidStateError(f"saved match has rules {_short(rules)}, not an object")
    try:
        text = json.dumps(rules, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        raise InvalidStateError(f"saved match has rules that are not JSON data: {_short(rules)}") from None
    key = (entry.game_class, text)
    with _games_lock:
        game = _games.get(key)
        if game is not None:
            _games.move_to_end(key)
            return game
    try:
        game = entry.new_game(**rules)
    except (FourCardsError, TypeError, ValueError, OverflowError, RecursionError) as error:
        raise InvalidStateError(f"saved match's rules do not make a {entry.name} game: "
                                f"{type(error).__name__}: {error}") from None
    if not game._same_rules(rules):
        raise InvalidStateError(f"saved match's rules {_short(rules)} make a {entry.name} game whose rules are "
                                f"{_short(game.rules_dict())}")
    with _games_lock:
        _games[key] = game
        while len(_games) > _GAMES_KEPT:
            _games.popitem(last=False)
    return game


def load(text: str | bytes, key: str | bytes | None = None, *, verify: bool = True) -> State[Any]:
    """The match saved in ``text`` (see the module docstring): any registered game,
    its rules read from the save; a signed save needs its ``key`` unless
    ``verify=False``; a snapshot loads without replaying when signed with ``key``."""
    secret = _key_bytes(key)
    data = read_envelope(text)
    check_signature(data, secret, verify)
    game = game_of(data["game"], data["rules"])
    state: State[Any] = game._from_envelope(data, trusted=secret is not None)
    return state


class SnapshotWriter:
    """Signed snapshots of one match as it goes on (a host that saves after every action):
    each :meth:`save` is ``state.to_json(key, snapshot=True)``, text for text, but encodes
    only what the match added since the writer's previous save. A game whose observations
    list the whole past (every ask, every hand played) keeps that list in its
    snapshot; without a writer each save encodes all of it again, so a save costs more
    with every action.

    One writer per match (and not shared between threads); a state of another lineage
    (restored from a save, or a clone that went another way) is simply encoded whole.

    >>> from fourcards.games import GAMES
    >>> state = next(iter(GAMES.values())).new_game().new_match(seed=2)
    >>> writer = SnapshotWriter("server secret")
    >>> for _ in range(5):
    ...     _ = state.apply(state.legal_actions()[0])
    ...     assert writer.save(state) == state.to_json("server secret", snapshot=True)
    """

    __slots__ = ("_secret", "_cache")

    def __init__(self, key: str | bytes) -> None:
        secret = _key_bytes(key)
        if secret is None:
            raise InvalidTypeError("a SnapshotWriter needs a key (str or bytes): snapshots are accepted only signed")
        self._secret = secret
        self._cache = SnapshotCache()

    def save(self, state: State[Any]) -> str:
        """``state.to_json(key, snapshot=True)``, encoding only what is new since the last save."""
        return state._save(self._secret, True, self._cache)
