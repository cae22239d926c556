"""A small game that implements the engine contract and nothing else, for the
tests that a registered game needs no edit to fourcards: Ends Pick.

A seeded row of cards 1..9 (two of each); in turn, each player takes the card
at the left or the right end of the row. When the row is empty, the highest
total wins (ties share)."""

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

ROW = 18


@dataclass(frozen=True)
class Rules(GameRules):
    players: int = option(2, low=2, high=3)
    bonus_for_last: bool = False
    ends: str = option("both", choices=("both", "left"))


@dataclass(frozen=True)
class Take:
    side: str

    def __str__(self) -> str:
        return f"take {self.side}"


@dataclass(frozen=True)
class Took:
    player: int
    side: str
    card: int


@dataclass(frozen=True)
class Over:
    winners: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True)
class Observation:
    seat: int
    current_player: int
    row: tuple[int, ...]
    totals: tuple[int, ...]


class EndsPick(Game["EndsPickState"]):
    """Ends Pick: take a card from either end of the row; the highest total wins."""

    name = "ends-pick"
    rules_type = Rules

    @property
    def num_distinct_actions(self) -> int:
        return 2

    @property
    def max_game_length(self) -> int:
        return ROW

    @property
    def observation_size(self) -> int:
        return ROW + self.num_players

    def new_match(self, seed: int, **setup: Any) -> EndsPickState:
        self._no_setup(setup)
        return EndsPickState(self, seed)

    def rules_dict(self) -> dict[str, Any]:
        return asdict(self.rules)


class EndsPickState(State[Take]):
    __slots__ = ("_row", "_totals", "_turn")
    _copied = {"_row": "list", "_totals": "list"}

    def __init__(self, game: EndsPick, seed: int) -> None:
        super().__init__(game, seed)
        row = [1 + k // 2 for k in range(ROW)]
        Rng(seed).shuffle(row)
        self._row: list[int] = row
        self._totals: list[int] = [0] * self._n
        self._turn = 0

    @property
    def current_player(self) -> int:
        return -1 if self.is_terminal else self._turn

    @property
    def is_terminal(self) -> bool:
        return not self._row

    def _legal_actions(self) -> list[int]:
        return [0] if self.game.rules.ends == "left" else [0, 1]

    def _why_illegal(self, action: int) -> str | None:
        return "only the left end may be taken" if action == 1 and self.game.rules.ends == "left" else None

    def parse_action(self, text: str) -> Take:
        words = text.lower().split()
        if len(words) != 2 or words[0] != "take" or words[1] not in ("left", "right"):
            raise IllegalMoveError(f"{text!r} is not an Ends Pick action: take left or take right")
        return Take(words[1])

    def _action_code(self, action: Any) -> int:
        if not isinstance(action, Take):
            raise TypeError(f"not an Ends Pick action: {action!r}")
        return 0 if action.side == "left" else 1

    def _int_to_action(self, action: int) -> Take:
        return Take("left" if action == 0 else "right")

    def _apply(self, action: int) -> Any:
        card = self._row.pop(0 if action == 0 else -1)
        self._totals[self._turn] += card
        first = self._record(Took(self._turn, "left" if action == 0 else "right", card))
        if not self._row and self.game.rules.bonus_for_last:
            self._totals[self._turn] += 1
        self._turn = (self._turn + 1) % self._n
        if not self._row:
            self._record(Over(self.winners, tuple(self._totals)))
        return first

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._totals)

    @property
    def winners(self) -> tuple[int, ...]:
        if not self.is_terminal:
            return ()
        best = max(self._totals)
        return tuple(p for p, t in enumerate(self._totals) if t == best)

    def describe(self) -> str:
        return f"row of {len(self._row)}, player {self.current_player} to act"

    def summary(self) -> dict[str, Any]:
        return {"row": list(self._row), "totals": list(self._totals)}

    def _observation(self, player: int) -> Observation:
        return Observation(player, self.current_player, tuple(self._row), tuple(self._totals))

    def _observation_tensor(self, player: int, out: npt.NDArray[np.float32]) -> None:
        out[:len(self._row)] = self._row
        out[ROW:] = self._totals


class GreedyBot:
    """Takes the larger end."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def choose(self, observation: Any, legal_actions: Any) -> int:
        row = observation.row
        return 1 if 1 in legal_actions and row[-1] > row[0] else 0


def _random(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    return RandomBot(seed)


def _greedy(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    return GreedyBot()


ENTRY = GameEntry("ends-pick", "Ends Pick", EndsPick, {"random": _random, "greedy": _greedy}, best_bot="greedy",
                  variants={"left-only": {"ends": "left"}})
