"""The Zangle search player: information-set Monte Carlo with greedy playouts.

Everything in Zangle is face up but the draw piles (no peeking: a seat does
not see its own). :func:`state_of` rebuilds from an observation a state with
what the seat sees (the centre, every seat's face-up cards, the pile sizes,
the cards of this round's Zangles), and :class:`SearchBot` searches over the
states it cannot tell apart (:class:`fourcards.search.PairedSearch`): each
round of the search deals the face-down cards again (the seats' piles, the
centre draw pile, the cards out of play of a position) and plays every
Zangle it may make from that same deal, the round out, with the rule-based
player (:class:`~fourcards.zangle.bots.GreedyBot`'s choice) in every seat; a
playout scores the seat's total against the best other seat's (at the end
of the game, its share of the win). In a bonus round, and in solitaire with
nothing face down, the bot plays the rule-based choice.

>>> from fourcards.zangle.game import ZangleGame
>>> game = ZangleGame()
>>> state = game.new_match(4)
>>> bot = SearchBot(game, seed=1, iterations=40)
>>> action = bot.choose(state.observation(state.current_player), state.legal_actions())
>>> action in state.legal_actions()
True
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import FourCardsError, InvalidTypeError
from ..rng import Rng
from ..search import (PairedSearch, RootSearch, SearchPlayer, check_allowed, check_budget, check_game, int_option,
                      number_option)
from .cards import KINDS
from .game import ZangleGame, ZangleObservation, ZangleState
from ..engine import check_flag, check_to_act, checked_legal

__all__ = ["SearchBot", "state_of", "playout"]


def state_of(game: ZangleGame, observation: ZangleObservation) -> ZangleState:
    """A state of a (non-bonus) round whose information set for the observer is the
    observer's own: the face-up cards and sizes it sees, this round's Zangles
    set aside; the face-down cards are placed arbitrarily (sample the
    information set to deal them). Raises :class:`FourCardsError` (or the
    position's own error) for an observation no game can show."""
    obs = observation
    if obs.bonus:
        raise FourCardsError("a bonus round is not rebuilt from an observation")
    n = len(obs.piles)
    if n != game.num_players:
        raise FourCardsError(f"the observation shows {n} seats; this game has {game.num_players}")
    left = list(game.rules.deck_cards())
    counts = [left.count(k) for k in range(len(KINDS))]
    for text in list(obs.centre) + [c for cards in obs.cards for c in cards] + list(obs.made):
        code = KINDS.index(text)
        counts[code] -= 1
        if counts[code] < 0:
            raise FourCardsError(f"the observation shows more {text} cards than the deck holds")
    pool = [k for k in range(len(KINDS)) for _ in range(counts[k])]
    need = sum(obs.piles) + obs.centre_pile
    if need > len(pool):
        raise FourCardsError("the piles hold more cards than the observer cannot see")
    piles, at = [], 0
    for size in obs.piles:
        piles.append([KINDS[k] for k in pool[at:at + size]])
        at += size
    centre_pile = [KINDS[k] for k in pool[at:at + obs.centre_pile]]
    state = game.from_position(centre=list(obs.centre), cards=[list(c) for c in obs.cards], piles=piles,
                               centre_pile=centre_pile, current=obs.current_player, totals=list(obs.totals),
                               hits=list(obs.hits), round=obs.round)
    state._zangle_piles[0] = [KINDS.index(text) for text in obs.made]
    return state


def playout(world: ZangleState, me: int, scale: float = 8.0, horizon: int = 1000) -> float:
    """Play the round of ``world`` on with the rule-based choice in every seat, to its
    end or for ``horizon`` Zangles; the seat's score in [0, 1]: its total against the
    best other seat's (``scale`` points move it by a half; before the round's end,
    the cards each seat holds count as its points), or at the end of the game its
    share of the win (solitaire: its score, 0 to 2 * ``scale`` points)."""
    game = world.game
    rank, row_index = game.greedy_rank, game.row_index
    start = world._round
    for _ in range(horizon):
        if world._over or world._round != start:
            break
        rows = world._available_rows(world._current)
        if rows is None:
            world._apply(min(world._legal_actions(), key=rank.__getitem__))
            continue
        world._apply(min((row_index[key] for key in rows if key in row_index), key=rank.__getitem__))
    totals = world._totals
    if not world._over and world._round == start:
        totals = [t + len(c) + len(p) for t, c, p in zip(totals, world._cards, world._piles)]
    if len(totals) == 1:
        return max(0.0, min(1.0, 1.0 - totals[0] / (2 * scale)))
    if world._over:
        return 1.0 / len(world._winners) if me in world._winners else 0.0
    best_other = min(t for seat, t in enumerate(totals) if seat != me)
    return max(0.0, min(1.0, 0.5 + (best_other - totals[me]) / (2 * scale)))


class SearchBot(SearchPlayer):
    """Information-set Monte Carlo search over greedy playouts (see the module).

    ``iterations`` playouts a decision at most (repeatable), else ``time_per_move``
    seconds; ``paired`` every Zangle on the same deals with the weaker half set
    aside as rounds double, the first time after ``halve_after`` rounds (else
    UCB1 with ``exploration``); ``scale`` the points
    that move a playout's score by a half; ``horizon`` the Zangles a playout plays
    at most (then the cards held count); ``margin`` (paired only): another Zangle
    than the rule-based player's own only on a gain above that many standard
    errors on the same deals (None: the best mean, however small the gain);
    ``settle`` (with ``margin``): stop before the budget is spent once that many
    rounds are played and more would hardly change the choice
    (:meth:`fourcards.search.PairedSearch.settled`), so that the close
    decisions get the time the clear ones leave (None: always the whole budget).
    Unpaired, when the clock runs out before every Zangle was tried once, it
    plays the rule-based player's. One bot may be shared by threads."""

    def __init__(self, game: ZangleGame, seed: int = 0, iterations: int | None = None,
                 time_per_move: float | None = None, exploration: float = 0.5, scale: float = 8.0,
                 paired: bool = True, horizon: int = 1000,
                 margin: float | None = 2.0, settle: int | None = 6, halve_after: int = 6) -> None:
        self.iterations, self.time_per_move, self.exploration = check_budget(iterations, time_per_move,
                                                                             exploration, 0.2)
        check_game(game, ZangleGame, "Zangle")
        self.scale = number_option(scale, "scale", 0.1, 1e6)
        self.paired = check_flag(paired, "paired")
        self.horizon = int_option(horizon, "horizon", 1, 100_000)
        self.margin = None if margin is None else number_option(margin, "margin", 0, 100, optional=True)
        self.settle = None if settle is None else int_option(settle, "settle", 2, 1_000_000, optional=True)
        self.halve_after = int_option(halve_after, "halve_after", 1, 1_000_000)
        self.game = game
        self.rng = Rng(seed)
        SearchPlayer.__init__(self)
        self.last_statistics: list[tuple[int, int, float]] = []

    def choose(self, observation: ZangleObservation, legal_actions: Sequence[int]) -> int:
        if not isinstance(observation, ZangleObservation):
            raise InvalidTypeError(f"observation must be a Zangle observation, not {type(observation).__name__}")
        legal_actions = checked_legal(legal_actions, self.game.num_distinct_actions, observation)
        check_to_act(observation)
        with self._lock:
            legal = [int(a) for a in legal_actions]
            rank = self.game.greedy_rank
            if len(legal) == 1 or observation.bonus or (len(observation.piles) == 1 and not sum(
                    observation.piles) + observation.centre_pile):
                return min(legal, key=rank.__getitem__)
            me = observation.player
            surrogate = state_of(self.game, observation)
            check_allowed(legal, surrogate, me)  # before the generator moves: a refused call changes nothing
            information = surrogate.information_set(me)
            score = lambda world, rng: playout(world, me, self.scale, self.horizon)  # noqa: E731
            if not self.paired:
                root = RootSearch(information.sample, legal, score, self.rng, self.exploration)
                root.run(self.iterations, self.time_per_move)
                self.last_statistics = root.statistics()
                if not root.complete:  # the clock ran out before every Zangle was tried: the rule bot's
                    return min(legal, key=rank.__getitem__)
                return root.best()
            rule = min(legal, key=rank.__getitem__) if self.margin is not None else None
            search = PairedSearch(information.sample, legal, score, self.rng, baseline=rule,
                                  halve_after=self.halve_after)
            search.run(self.iterations, self.time_per_move, self.settle if self.margin is not None else None,
                       2.0 if self.margin is None else self.margin)
            self.last_statistics = search.statistics()
            if not search.complete:  # the clock ran out before every Zangle was tried once: the rule bot's
                return min(legal, key=rank.__getitem__)
            return search.best() if self.margin is None else search.choice(self.margin)

