"""Gang of Four as an OpenSpiel Python game.

>>> import pyspiel
>>> from fourcards.rl import openspiel
>>> game = pyspiel.load_game("python_fourcards_gang_of_four", {"players": 2, "target_score": 10})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes()) == openspiel.DEALS
(True, True)
>>> state.apply_action(7)
>>> state.current_player() in (0, 1), len(state.information_state_tensor()) == game.information_state_tensor_size()
(True, True)

The game is registered on import of this module as
``python_fourcards_gang_of_four`` with the parameters ``players`` (2-4, default
4), ``target_score`` (default 100) and the boolean rule options of
:class:`fourcards.gangoffour.match.Rules`. The match starts with one chance
node, the deal: one of :data:`DEALS` seeds from which the engine shuffles every
round (hidden from the players). Then the players act with the engine's integer
actions; the returns are the engine's ``returns()`` (the share of the win minus
1/n: zero-sum).

Tensors: the observation tensor is the engine's ``observation_tensor``; the
information-state tensor adds, for the current round, the hand the player was
dealt (34 card codes) and the cards each seat has played (4 seats x 34,
relative to the player). The information-state string is perfect recall: the
player's dealt hand at the start of every round and every action of the match
(all are public). States serialize through their history (OpenSpiel's default).

:meth:`GangOfFourSpielState.resample_from_infostate` deals the cards a player
cannot see (the other hands, and the cards set aside with 2 or 3 players) at
random among the other seats, keeping their hand sizes, and reseeds the
later rounds: what OpenSpiel's ISMCTS needs. It does not pin the card the
round's loser gave the winner to the winner's hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..gangoffour import _deck
from ..gangoffour.match import OBSERVATION_SIZE, GangOfFour, MatchState, Played, RoundStart, Rules
from ..rng import Rng

__all__ = ["GAME_NAME", "DEALS", "GangOfFourSpielGame", "GangOfFourSpielState", "GangOfFourObserver",
           "register", "resample"]

GAME_NAME = "python_fourcards_gang_of_four"
#: Outcomes of the chance node that deals the match (seeds of the engine's shuffles).
DEALS = 1 << 16
_CODES = _deck.NUM_KINDS  # 34 card codes
INFORMATION_STATE_SIZE = OBSERVATION_SIZE + _CODES + 4 * _CODES

_DEFAULTS = Rules()
_PARAMETERS: dict[str, Any] = {
    "players": 4,
    "target_score": _DEFAULTS.target_score,
    "pass_is_final": _DEFAULTS.pass_is_final,
    "manual_last_card": _DEFAULTS.manual_last_card,
    "last_card_may_pass": _DEFAULTS.last_card_may_pass,
    "chinese_dealing": _DEFAULTS.chinese_dealing,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Gang of Four (fourcards)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


class GangOfFourSpielGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game over :class:`fourcards.gangoffour.match.GangOfFour`."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        options = {**_PARAMETERS, **(params or {})}
        self.engine = GangOfFour(Rules(**options))
        n = self.engine.num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_distinct_actions,
            max_chance_outcomes=DEALS,
            num_players=n,
            min_utility=-1.0 / n,
            max_utility=1.0 - 1.0 / n,
            utility_sum=0.0,
            max_game_length=self.engine.max_game_length,
        )
        super().__init__(_GAME_TYPE, info, options)

    def new_initial_state(self) -> GangOfFourSpielState:
        return GangOfFourSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> GangOfFourObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return GangOfFourObserver(self.engine, perfect_recall)


class GangOfFourSpielState(pyspiel.State):  # type: ignore[misc]
    """A match: a chance node (the deal), then the engine's
    :class:`~fourcards.gangoffour.match.MatchState`."""

    def __init__(self, game: GangOfFourSpielGame) -> None:
        super().__init__(game)
        self._engine = game.engine
        self.match: MatchState | None = None
        # each seat's hand at the start of every round (the recall of the information state)
        self._dealt: list[list[int]] = [[] for _ in range(self._engine.num_players)]

    # -- turn and actions ------------------------------------------------------------
    def current_player(self) -> int:
        if self.match is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.match.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.match.current_player

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / DEALS
        return [(seed, p) for seed in range(DEALS)]

    def _legal_actions(self, player: int) -> list[int]:
        assert self.match is not None
        return self.match.legal_actions() if player == self.match.current_player else []

    def _apply_action(self, action: int) -> None:
        if self.match is None:
            self.match = self._engine.new_match(int(action))
        else:
            self.match.apply(int(action))
        self._note_deals()

    def _note_deals(self) -> None:
        """Remember every seat's hand when a round starts."""
        assert self.match is not None
        if not self.match.is_terminal and self.match._round > len(self._dealt[0]):
            for seat, hand in enumerate(self.match._hand_masks()):
                self._dealt[seat].append(hand)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return str(action) if self.match is None else self.match.action_to_string(int(action))

    def is_terminal(self) -> bool:
        return self.match is not None and self.match.is_terminal

    def returns(self) -> list[float]:
        if self.match is None:
            return [0.0] * self._engine.num_players
        return list(self.match.returns())

    # -- what a player knows -----------------------------------------------------------
    def information_state_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        return _information_state_string(self, seat)

    def observation_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        return _observation_string(self, seat)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        seat = self.current_player() if player is None else player
        out = np.zeros(INFORMATION_STATE_SIZE, np.float32)
        _information_state_tensor(self, seat, out)
        return [float(x) for x in out]

    def observation_tensor(self, player: int | None = None) -> list[float]:
        seat = self.current_player() if player is None else player
        out = np.zeros(OBSERVATION_SIZE, np.float32)
        if self.match is not None:
            self.match.observation_tensor(seat, out=out)
        return [float(x) for x in out]

    def resample_from_infostate(self, player: int, sampler: Any = None) -> GangOfFourSpielState:
        """A state ``player`` cannot tell from this one, with the unseen cards
        dealt again at random (see the module docstring)."""
        return resample(self, player, np.random.default_rng())

    def __str__(self) -> str:
        return "deal pending" if self.match is None else self.match.describe()

    def __deepcopy__(self, memo: dict[int, Any]) -> GangOfFourSpielState:
        other: GangOfFourSpielState = self.clone()
        return other


def _information_state_string(state: GangOfFourSpielState, seat: int) -> str:
    if state.match is None:
        return f"p{seat}"
    hands = " | ".join(_deck_text(mask) for mask in state._dealt[seat])
    actions = " ".join(map(str, state.match.actions))
    return f"p{seat} dealt: {hands} actions: {actions}"


def _observation_string(state: GangOfFourSpielState, seat: int) -> str:
    if state.match is None:
        return f"p{seat}"
    hand = _deck_text(state.match._hand_masks()[seat])
    return f"p{seat} hand: {hand} table: {state.match.describe()} scores: {list(state.match.scores)}"


def _deck_text(mask: int) -> str:
    from ..gangoffour.cards import mask_cards

    return " ".join(str(card) for card in mask_cards(mask))


def _information_state_tensor(state: GangOfFourSpielState, seat: int, out: np.ndarray[Any, Any]) -> None:
    match = state.match
    if match is None:
        return
    match.observation_tensor(seat, out=out[:OBSERVATION_SIZE])
    if state._dealt[seat]:
        for code in _deck.codes_of_mask(state._dealt[seat][-1]):
            out[OBSERVATION_SIZE + code] += 1.0
    n = state._engine.num_players
    base = OBSERVATION_SIZE + _CODES
    for record in reversed(match.history):
        if isinstance(record, RoundStart):
            break
        if isinstance(record, Played):
            slot = (record.player - seat) % n
            for card in record.combo.cards:
                out[base + slot * _CODES + card.code] += 1.0


class GangOfFourObserver:
    """OpenSpiel's Python observer: the observation tensor, or with
    ``perfect_recall`` the information-state tensor."""

    def __init__(self, engine: GangOfFour, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(INFORMATION_STATE_SIZE if perfect_recall else OBSERVATION_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GangOfFourSpielState, player: int) -> None:
        self.tensor.fill(0.0)
        if self.perfect_recall:
            _information_state_tensor(state, player, self.tensor)
        elif state.match is not None:
            state.match.observation_tensor(player, out=self.tensor)

    def string_from(self, state: GangOfFourSpielState, player: int) -> str:
        if self.perfect_recall:
            return _information_state_string(state, player)
        return _observation_string(state, player)


def resample(state: GangOfFourSpielState, player: int, rng: np.random.Generator) -> GangOfFourSpielState:
    """A copy of ``state`` in which the cards ``player`` cannot see are dealt
    at random among the other seats (hand sizes kept) and later rounds are
    shuffled from a new seed; ``player``'s information state is unchanged."""
    other: GangOfFourSpielState = state.clone()
    match = other.match
    if match is None or match.is_terminal:
        return other
    n = other._engine.num_players
    hands = list(match._hand_masks())
    unseen: list[int] = []
    for seat in range(n):
        if seat != player:
            unseen.extend(_deck.codes_of_mask(hands[seat]))
    unseen.extend(_set_aside_codes(match))
    order = rng.permutation(len(unseen))
    pool = [unseen[i] for i in order]
    for seat in range(n):
        if seat == player:
            continue
        size = hands[seat].bit_count()
        additive = sum(_deck.BIT[code] for code in pool[:size])
        pool = pool[size:]
        hands[seat] = _deck.canonical_from_sum(additive)
    match._hands = hands
    match._set_aside = sum(_deck.BIT[code] for code in pool)
    match._rng = Rng(int(rng.integers(0, 1 << 63)))
    if other._dealt[0]:
        for seat in range(n):
            if seat != player:
                other._dealt[seat] = other._dealt[seat][:-1] + [hands[seat]]
    return other


def _set_aside_codes(match: MatchState) -> list[int]:
    """The cards set aside (2 or 3 players), one code per copy."""
    return list(_deck.codes_of_mask(_deck.canonical_from_sum(match._set_aside)))


def register() -> None:
    """Register the game with OpenSpiel (done on import; safe to repeat)."""
    if GAME_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, GangOfFourSpielGame)


register()
