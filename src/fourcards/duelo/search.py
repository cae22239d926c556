"""The Duelo search player: information-set Monte Carlo with category playouts.

The player to call knows its own top card, every card revealed so far and
where each card won went (to the bottom of the winner's pile, in an order
the rules fix). :func:`state_of` rebuilds from its observation a state with
that knowledge (the piles' unseen tops, their known bottoms, the table), and
:class:`SearchBot` searches over the states it cannot tell apart
(:class:`fourcards.search.RootSearch`): each iteration deals the unseen cards
again, calls one category, plays the next hands with the rule-based player
in every seat (:class:`~fourcards.duelo.bots.CategoryBot`'s choice, from a
table of each card's strength in each category), and scores the seat's share
of the cards after ``horizon`` hands (a win: 1, a loss: 0).

>>> from fourcards.duelo.game import Duelo
>>> game = Duelo()
>>> state = game.new_match(4)
>>> bot = SearchBot(game, seed=1, iterations=50)
>>> action = bot.choose(state.observation(state.current_player), state.legal_actions())
>>> action in state.legal_actions(), sum(visits for _, visits, _ in bot.last_statistics)
(True, 50)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine import State, check_to_act, checked_legal
from ..errors import FourCardsError, InvalidTypeError
from ..rng import Rng
from ..search import RootSearch, SearchPlayer, check_budget, check_game, int_option
from .bots import CategoryBot
from .game import Duelo, DueloObservation, DueloState, TableTaken

__all__ = ["SearchBot", "state_of", "strength_table"]


def strength_table(game: Duelo) -> list[list[float]]:
    """Per card code and category: the share of the other 31 cards it beats (ties
    count half): what :class:`~fourcards.duelo.bots.CategoryBot` weighs, against
    every card."""
    deck = game.deck
    table = []
    for card in deck.cards:
        row = []
        for k, category in enumerate(deck.categories):
            mine = card.values[k]
            score = sum(1.0 if category.beats(mine, other.values[k]) else 0.5 if mine == other.values[k] else 0.0
                        for other in deck.cards if other.code != card.code)
            row.append(score / 31)
        table.append(row)
    return table


def state_of(game: Duelo, observation: DueloObservation) -> DueloState:
    """A state whose information set for the observer is the observer's own: each
    pile's unseen top cards (the observer's own top card in place) and its known
    bottom, and the cards on the table, from the public hands of the observation;
    the unseen cards are placed arbitrarily (sample the information set to deal
    them). Raises :class:`FourCardsError` for an observation no match can show."""
    n = len(observation.pile_sizes)
    if n != game.num_players:
        raise FourCardsError(f"the observation shows {n} seats; this game has {game.num_players}")
    appended: list[list[int]] = [[] for _ in range(n)]
    revealed = [0] * n
    table: list[int] = []
    played = 0
    first = observation.current_player
    for hand in observation.hands:
        if isinstance(hand, TableTaken):
            appended[hand.player] += [card.code for card in hand.taken]
            table = []
            continue
        if played == 0:
            first = hand.chooser
        played += 1
        for seat, _card in hand.revealed:
            revealed[seat] += 1
        if hand.winner >= 0:
            appended[hand.winner] += [card.code for card in hand.taken]
            table = []
        else:
            table += [card.code for _, card in hand.revealed]
    if len(table) != observation.table:
        raise FourCardsError("the observation's table does not follow from its hands")
    piles: list[list[int]] = []
    unseen = []
    known: set[int] = set(table)
    for seat in range(n):
        dealt = observation.pile_sizes[seat] - len(appended[seat]) + revealed[seat]
        if dealt < 0:
            raise FourCardsError(f"seat {seat}'s pile is smaller than the cards it won")
        left = max(0, dealt - revealed[seat])
        bottom = appended[seat][max(0, revealed[seat] - dealt):]
        unseen.append(left)
        piles.append(bottom)
        known.update(bottom)
    me = observation.player
    top = observation.top_card.code if observation.top_card is not None else -1
    if unseen[me]:
        known.add(top)
    pool = [code for code in range(32) if code not in known]
    if sum(unseen) - (1 if unseen[me] else 0) > len(pool):
        raise FourCardsError("the observation leaves too few unseen cards for the piles")
    for seat in range(n):
        count = unseen[seat]
        head = []
        if seat == me and count:
            head, count = [top], count - 1
        head += pool[:count]
        pool = pool[count:]
        piles[seat] = head + piles[seat]
    state: DueloState = object.__new__(DueloState)
    State.__init__(state, game, 0)
    state._piles = piles
    state._unseen = unseen
    state._table = table
    state._order = [(seat - first) % n for seat in range(n)]
    state._contenders = tuple(observation.contenders)
    state._current = observation.current_player
    state._hands_played = played
    state._over = state._draw = False
    state._winners = ()
    node: Any = None
    for hand in observation.hands:
        node = (hand, node)
    state._hands = node
    state._out = sum(1 << seat for seat in range(n) if not piles[seat])
    return state


class SearchBot(SearchPlayer):
    """Information-set Monte Carlo search over category playouts (see the module).

    ``iterations`` playouts a call (repeatable), else ``time_per_move`` seconds;
    ``horizon`` hands a playout plays after the call; ``exploration`` UCB1's
    constant. When the clock runs out before every call was tried once, it plays
    the category bot's call. One bot may be shared by threads (its searches take turns)."""

    def __init__(self, game: Duelo, seed: int = 0, iterations: int | None = None, time_per_move: float | None = None,
                 exploration: float = 0.5, horizon: int = 6) -> None:
        self.iterations, self.time_per_move, self.exploration = check_budget(iterations, time_per_move,
                                                                             exploration, 0.05)
        check_game(game, Duelo, "Duelo")
        self.game, self.horizon = game, int_option(horizon, "horizon", 0, 10_000)
        self.rng = Rng(seed)
        self._strength = strength_table(game)
        SearchPlayer.__init__(self)
        self.last_statistics: list[tuple[int, int, float]] = []

    def choose(self, observation: DueloObservation, legal_actions: Sequence[int]) -> int:
        if not isinstance(observation, DueloObservation):
            raise InvalidTypeError(f"observation must be a Duelo observation, not {type(observation).__name__}")
        legal_actions = checked_legal(legal_actions, self.game.num_distinct_actions, observation)
        check_to_act(observation)
        with self._lock:
            legal = [int(a) for a in legal_actions]
            if len(legal) == 1:
                return legal[0]
            me = observation.player
            information = state_of(self.game, observation).information_set(me)
            search = RootSearch(information.sample, legal, lambda world, rng: self._playout(world, me), self.rng,
                                self.exploration)
            search.run(self.iterations, self.time_per_move)
            self.last_statistics = search.statistics()
            if not search.complete:  # one playout or none for some calls: the rule bot's judgement, not luck
                return CategoryBot(self.game.deck).choose(observation, legal)
            return search.best()

    def _playout(self, world: DueloState, me: int) -> float:
        strength = self._strength
        for _ in range(self.horizon):
            if world._over:
                break
            pile = world._piles[world._current]
            row = strength[pile[0]]
            world._apply(max(range(len(row)), key=row.__getitem__))
        if world._over:
            return 1.0 if me in world._winners else 0.5 if not world._winners else 0.0
        return len(world._piles[me]) / 32

    def _options_text(self) -> str:
        return f", horizon={self.horizon}"
