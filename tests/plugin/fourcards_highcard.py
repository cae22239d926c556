"""High Card: a small game written the way a third party would, against
fourcards' public engine contract only, and installed as a plug-in (the
entry point ``high-card = fourcards_highcard:ENTRY`` in the group
``fourcards.games``). ``tests/test_plugin_game.py`` installs it and plays it
everywhere fourcards plays games, with no edit to fourcards.

Rules: 36 cards, four suits (C D H S) of ranks 1 to 9, written ``H7``. Each
player is dealt ``hand_size`` cards, kept hidden. In turn, each plays one card
of their hand face up. When every hand is empty, the highest total of played
ranks wins (a tie shares the win).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fourcards.bots import RandomBot
from fourcards.engine import Bot, Game, GameRules, State, option
from fourcards.errors import IllegalMoveError
from fourcards.games import GameEntry
from fourcards.rng import Rng
from fourcards.sampling import DealSampler

SUITS = "CDHS"
RANKS = 9
CARDS = len(SUITS) * RANKS


@dataclass(frozen=True)
class Card:
    code: int

    @property
    def rank(self) -> int:
        return self.code % RANKS + 1

    def __str__(self) -> str:
        return f"{SUITS[self.code // RANKS]}{self.rank}"

    @staticmethod
    def parse(text: str) -> Card:
        text = text.strip().upper()
        if len(text) != 2 or text[0] not in SUITS or not "1" <= text[1] <= "9":
            raise IllegalMoveError(f"{text!r} is not a High Card card (C1 .. S9)")
        return Card(SUITS.index(text[0]) * RANKS + int(text[1]) - 1)


@dataclass(frozen=True)
class Play:
    """Play ``card`` face up."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card}"


@dataclass(frozen=True)
class Played:
    player: int
    card: Card


@dataclass(frozen=True)
class GameEnd:
    winners: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True)
class Observation:
    player: int
    current_player: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    played: tuple[tuple[Card, ...], ...]
    totals: tuple[int, ...]


@dataclass(frozen=True)
class Rules(GameRules):
    players: int = option(2, low=2, high=4)
    hand_size: int = option(3, low=1, high=9)


class HighCard(Game["HighCardState"]):
    name = "high-card"
    rules_type = Rules
    rules: Rules

    @property
    def num_distinct_actions(self) -> int:
        return CARDS

    @property
    def max_game_length(self) -> int:
        return self.rules.players * self.rules.hand_size

    @property
    def observation_size(self) -> int:
        return 2 * CARDS + 1

    def observation_bounds(self) -> tuple[float, float]:
        return 0.0, 1.0

    def new_match(self, seed: int, **setup: Any) -> HighCardState:
        self._no_setup(setup)
        return HighCardState(self, seed)

    def rules_dict(self) -> dict[str, Any]:
        return asdict(self.rules)


class HighCardState(State[Play]):
    __slots__ = ("_hands", "_played", "_current", "_over")
    _copied = {"_hands": "lists", "_played": "lists"}

    def __init__(self, game: HighCard, seed: int) -> None:
        super().__init__(game, seed)
        deck = list(range(CARDS))
        Rng(seed).shuffle(deck)
        size = game.rules.hand_size
        self._hands = [sorted(deck[i * size:(i + 1) * size]) for i in range(game.num_players)]
        self._played: list[list[int]] = [[] for _ in range(game.num_players)]
        self._current = 0
        self._over = False

    @property
    def current_player(self) -> int:
        return -1 if self._over else self._current

    @property
    def is_terminal(self) -> bool:
        return self._over

    def _legal_actions(self) -> list[int]:
        return list(self._hands[self._current])

    def parse_action(self, text: str) -> Play:
        words = text.split()
        if len(words) != 2 or words[0].lower() != "play":
            raise IllegalMoveError(f"{text!r} is not a High Card action: play CARD, e.g. play H7")
        return Play(Card.parse(words[1]))

    def _action_code(self, action: Any) -> int:
        if not isinstance(action, Play):
            raise TypeError(f"a High Card action is a Play, not {type(action).__name__}")
        return action.card.code

    def _int_to_action(self, action: int) -> Play:
        return Play(Card(action))

    def _why_illegal(self, action: int) -> str | None:
        return None if action in self._hands[self._current] else f"they hold no {Card(action)}"

    def _apply(self, action: int) -> Any:
        seat = self._current
        self._hands[seat].remove(action)
        self._played[seat].append(action)
        first = self._record(Played(seat, Card(action)))
        self._current = (seat + 1) % self._n
        if not any(self._hands):
            self._over = True
            self._record(GameEnd(self.winners, self.scores))
        return first

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(sum(Card(c).rank for c in cards) for cards in self._played)

    @property
    def winners(self) -> tuple[int, ...]:
        if not self._over:
            return ()
        best = max(self.scores)
        return tuple(seat for seat, total in enumerate(self.scores) if total == best)

    def describe(self) -> str:
        return f"High Card, P{self._current} to play, totals {list(self.scores)}"

    def summary(self) -> dict[str, Any]:
        return {"totals": list(self.scores), "over": self._over}

    def _information_set(self, player: int) -> Any:
        """What ``player`` cannot see: the other hands and the cards nobody was dealt
        (nothing narrows them: every card played is face up)."""
        others = [seat for seat in range(self._n) if seat != player]
        seen = set(self._hands[player]) | {code for cards in self._played for code in cards}
        hidden = [code for code in range(CARDS) if code not in seen]
        sizes = [len(self._hands[seat]) for seat in others]
        deal = DealSampler([*sizes, len(hidden) - sum(sizes)], hidden)

        def write(state: HighCardState, cards: list[list[int]], rng: Rng) -> None:
            for index, seat in enumerate(others):
                state._hands[seat] = sorted(cards[index])

        return deal, write

    def _observation(self, player: int) -> Observation:
        return Observation(player, self.current_player, tuple(Card(c) for c in self._hands[player]),
                           tuple(len(h) for h in self._hands),
                           tuple(tuple(Card(c) for c in p) for p in self._played), self.scores)

    def _observation_tensor(self, player: int, out: npt.NDArray[np.float32]) -> None:
        out[np.array(self._hands[player], dtype=np.int64)] = 1.0
        for cards in self._played:
            out[CARDS + np.array(cards, dtype=np.int64)] = 1.0
        out[-1] = float(player == self._current)


class HighestBot:
    """Plays its highest card."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def choose(self, observation: Any, legal_actions: Any) -> int:
        return int(max(legal_actions, key=lambda code: (Card(code).rank, code)))


def _random(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    return RandomBot(seed)


def _highest(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    return HighestBot()


ENTRY = GameEntry("high-card", "High Card", HighCard, {"random": _random, "highest": _highest}, best_bot="highest")
