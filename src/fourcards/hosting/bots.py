"""Bots a host makes again for every turn: declared, seeded from the match, their memory kept with it.

A host that keeps no bot object between requests (:class:`~fourcards.hosting.MatchService`)
or across restarts (the bundled server) makes the bot of a seat again for each
of its turns. That is safe only for a bot that says so (:class:`fourcards.engine.Bot`):

- ``stateless = True``: its choice depends on the observation, the legal actions
  and its seed alone;
- or ``save_memory()`` / ``load_memory(data)``: it hands its memory (JSON data)
  over after each decision and takes it back before the next; the host keeps it
  with the match (``data["memory"]``, never sent to a client).

A bot that says neither is refused when a match is made (:func:`checked_bot`,
``bad_seats``). Each turn's bot is seeded from the match's bot seed, the seat and
the step (:func:`bot_for_turn`), so a match plays the same whether its host
kept running or was restarted in between (a search on a clock aside: it chooses
from how far it searched in its time).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Final

from ..engine import Bot, Game, derive_seed
from ..errors import FourCardsError, InvalidSeatsError
from ..games import GameEntry

__all__ = ["bot_kind", "checked_bot", "bot_for_turn", "bot_seed_of", "remember", "BOT_SEED_STREAM"]

#: The stream of a match's seed its bots' seeds come from (:func:`bot_seed_of`).
BOT_SEED_STREAM: Final = 0x5EA7


def bot_kind(bot: Bot) -> str | None:
    """``"memory"`` (it hands its memory over) or ``"stateless"``, as the bot declares; None
    when it declares neither (a host cannot make it again for each turn)."""
    if callable(getattr(bot, "save_memory", None)) and callable(getattr(bot, "load_memory", None)):
        return "memory"
    if getattr(bot, "stateless", None) is True:
        return "stateless"
    return None


def bot_seed_of(seed: int) -> int:
    """The seed of a match's bots, derived from the match's ``seed`` (63 bits: JSON-safe)."""
    return derive_seed(seed, BOT_SEED_STREAM) >> 1


def checked_bot(entry: GameEntry, game: Game[Any], kind: str, seat: int) -> str:
    """The bot kind ``kind`` (``"best"`` too) of ``entry`` resolved, once a bot of it was made
    for ``game`` and declared itself; :class:`~fourcards.errors.InvalidSeatsError` (naming
    ``seat``) for an unknown kind or a bot that declares neither ``stateless`` nor its memory."""
    try:
        resolved = entry.kind_of(kind)
        bot = entry.new_bot(resolved, game, seed=0)
    except (FourCardsError, TypeError, ValueError, RuntimeError) as error:
        raise InvalidSeatsError(f"seat {seat}: {error}") from None
    if bot_kind(bot) is None:
        raise InvalidSeatsError(f"seat {seat}: the {resolved} bot of {entry.name} declares neither "
                                "stateless = True nor its memory (save_memory/load_memory), so a host "
                                "cannot keep it between requests")
    return resolved


def bot_for_turn(entry: GameEntry, game: Game[Any], kind: str, bot_seed: int, seat: int, step: int,
                 memory: MutableMapping[str, Any]) -> Bot:
    """The bot of ``seat`` for its turn at ``step``: made again, seeded from the match's
    ``bot_seed``, the seat and the step, with its memory (``memory[str(seat)]``) given back
    when it keeps one. After its decision, :func:`remember` stores its memory again."""
    bot = entry.new_bot(kind, game, seed=derive_seed(derive_seed(bot_seed, seat), step))
    if bot_kind(bot) == "memory" and str(seat) in memory:
        bot.load_memory(memory[str(seat)])  # type: ignore[attr-defined]
    return bot


def remember(bot: Bot, seat: int, memory: MutableMapping[str, Any]) -> None:
    """Store ``bot``'s memory after its decision (``memory[str(seat)]``), when it keeps one."""
    if bot_kind(bot) == "memory":
        memory[str(seat)] = bot.save_memory()  # type: ignore[attr-defined]
