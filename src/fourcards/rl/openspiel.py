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
(all are public). States serialize as OpenSpiel serializes a Python game's
(the history and a pickle of the Python side, which ``deserialize_state``
loads: give it only text the program wrote).

:meth:`GangOfFourSpielState.resample_from_infostate` deals the cards a player
cannot see (the other hands, and the cards set aside with 2 or 3 players)
again with the engine's :meth:`~fourcards.engine.State.resample` (uniformly
over the deals consistent with what the player saw), keeping hand sizes, and
reseeds the later rounds: what OpenSpiel's ISMCTS needs. Every card the player
can know stays where it is: their own hand, the cards played, the cards of this
round's exchange (public: the winner holds the card the loser gave until they
play or return it; the loser holds the card given back until they play it),
the loser's other cards are no higher than the card they gave (it was their
highest), in round 1 the player who must lead ``M1`` holds it (with 2 or 3
players, a first lead without ``M1`` means it was set aside), and what the
"last card" rule says of a forced play. Every other game is an OpenSpiel game
too, through the registry: :mod:`fourcards.rl.openspiel_games`.

:class:`CompiledRolloutEvaluator` is an evaluator for OpenSpiel's MCTS and
ISMCTS bots like ``RandomRolloutEvaluator`` (uniformly random legal actions to
the end of the match) that plays the rollouts in the compiled simulator
(:func:`fourcards.gangoffour.simulate.random_playouts`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..gangoffour import _deck
from ..gangoffour.match import (
    OBSERVATION_SIZE, GangOfFour, MatchState, Played, RoundStart, Rules,
)
from ..gangoffour.simulate import random_playouts
from ..errors import FourCardsError, InvalidTypeError, UnknownSeatError
from ..rng import Rng
from ._common import DEALS, deal_outcome, sampler_seed, spiel_seat

__all__ = ["GAME_NAME", "DEALS", "GangOfFourSpielGame", "GangOfFourSpielState", "GangOfFourObserver",
           "CompiledRolloutEvaluator", "register", "resample", "known_cards"]

GAME_NAME = "python_fourcards_gang_of_four"
_CODES = _deck.NUM_KINDS  # 34 card codes
_BIT = _deck.BIT
_PAIR_LO = _deck.PAIR_LO
_M1 = _deck.M1
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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its parameters; loading imports this module, which registers the game."""
        return _load_game, (dict(self.get_parameters()),)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> GangOfFourObserver:
        if params:
            raise FourCardsError(f"observation parameters are not supported, got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return GangOfFourObserver(self.engine, perfect_recall)


class _Payload:
    """Everything a state holds on the Python side, in one object that OpenSpiel's
    ``Clone`` (``copy.deepcopy`` of each attribute) copies with one cheap call.

    ``dealt`` holds, per seat, the hand at the start of every round (after the
    loser's card moved to the winner); ``dealt_text`` the same as text, and
    ``actions_text`` the match's actions: the parts of the information-state
    string, kept up to date instead of rebuilt per call."""

    __slots__ = ("engine", "match", "dealt", "dealt_text", "actions_text", "facts", "legal")

    def __init__(self, engine: GangOfFour) -> None:
        self.engine = engine
        self.match: MatchState | None = None
        n = engine.num_players
        self.dealt: tuple[tuple[int, ...], ...] = ((),) * n
        self.dealt_text: tuple[str, ...] = ("",) * n
        self.actions_text = ""
        self.facts: _Facts | None = None  # what resample needs, for this step (a cache)
        self.legal: list[int] | None = None  # the legal actions at this step (a cache)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Payload:
        other = _Payload.__new__(_Payload)
        other.engine = self.engine
        other.match = None if self.match is None else self.match.clone()
        other.dealt = self.dealt  # tuples and strings: shared, never changed in place
        other.dealt_text = self.dealt_text
        other.actions_text = self.actions_text
        other.facts = self.facts
        other.legal = self.legal
        return other


class GangOfFourSpielState(pyspiel.State):  # type: ignore[misc]
    """A match: a chance node (the deal), then the engine's
    :class:`~fourcards.gangoffour.match.MatchState`."""

    def __init__(self, game: GangOfFourSpielGame) -> None:
        super().__init__(game)
        self._p = _Payload(game.engine)

    @property
    def match(self) -> MatchState | None:
        """The engine's match (None before the deal)."""
        return self._p.match

    @property
    def _engine(self) -> GangOfFour:
        return self._p.engine

    @property
    def _dealt(self) -> tuple[tuple[int, ...], ...]:
        return self._p.dealt

    # -- turn and actions ------------------------------------------------------------
    def current_player(self) -> int:
        match = self._p.match
        if match is None:
            return int(pyspiel.PlayerId.CHANCE)
        if match.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return match.current_player

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / DEALS
        return [(seed, p) for seed in range(DEALS)]

    def _legal_actions(self, player: int) -> list[int]:
        payload = self._p
        match = payload.match
        assert match is not None
        if player != match.current_player:
            return []
        if payload.legal is None:
            payload.legal = match.legal_actions()
        return payload.legal

    def _apply_action(self, action: int) -> None:
        payload = self._p
        if payload.match is None:
            payload.match = payload.engine.new_match(deal_outcome(action))
        else:
            payload.match.apply(int(action))
            text = str(int(action))
            payload.actions_text = f"{payload.actions_text} {text}" if payload.actions_text else text
        payload.facts = None
        payload.legal = None
        _note_deals(payload)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        match = self._p.match
        return str(action) if match is None else match.action_to_string(int(action))

    def is_terminal(self) -> bool:
        match = self._p.match
        return match is not None and match.is_terminal

    def returns(self) -> list[float]:
        match = self._p.match
        if match is None:
            return [0.0] * self._p.engine.num_players
        return list(match.returns())

    # -- what a player knows -----------------------------------------------------------
    def information_state_string(self, player: int | None = None) -> str:
        seat = spiel_seat(self.current_player() if player is None else player, self._p.engine.num_players)
        return _information_state_string(self, seat)

    def observation_string(self, player: int | None = None) -> str:
        seat = spiel_seat(self.current_player() if player is None else player, self._p.engine.num_players)
        return _observation_string(self, seat)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        seat = spiel_seat(self.current_player() if player is None else player, self._p.engine.num_players)
        out = np.zeros(INFORMATION_STATE_SIZE, np.float32)
        _information_state_tensor(self, seat, out)
        return [float(x) for x in out]

    def observation_tensor(self, player: int | None = None) -> list[float]:
        seat = spiel_seat(self.current_player() if player is None else player, self._p.engine.num_players)
        out = np.zeros(OBSERVATION_SIZE, np.float32)
        if self.match is not None:
            self.match.observation_tensor(seat, out=out)
        return [float(x) for x in out]

    def resample_from_infostate(self, player: int, sampler: Any = None) -> GangOfFourSpielState:
        """A state ``player`` cannot tell from this one, with the unseen cards
        dealt again at random (see the module docstring), seeded from ``sampler``
        (a callable giving a float in [0, 1), as ``pyspiel.UniformProbabilitySampler``,
        or a numpy ``Generator``) or, without one, from fresh entropy."""
        return resample(self, player, np.random.default_rng(sampler_seed(sampler)))

    def __str__(self) -> str:
        return "deal pending" if self.match is None else self.match.describe()

    def __deepcopy__(self, memo: dict[int, Any]) -> GangOfFourSpielState:
        other: GangOfFourSpielState = self.clone()
        return other

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as OpenSpiel serializes it (the history, and the Python side pickled:
        the engine's match flattens its links); loading imports this module first."""
        return _load_state, (pyspiel.serialize_game_and_state(self.get_game(), self),)


def _load_game(params: dict[str, Any]) -> Any:
    return pyspiel.load_game(GAME_NAME, params)


def _load_state(text: str) -> Any:
    return pyspiel.deserialize_game_and_state(text)[1]


def _note_deals(payload: _Payload) -> None:
    """Remember every seat's hand when a round starts."""
    match = payload.match
    assert match is not None
    if not match.is_terminal and match._round > len(payload.dealt[0]):
        hands = match._hand_masks()
        payload.dealt = tuple(dealt + (hand,) for dealt, hand in zip(payload.dealt, hands))
        payload.dealt_text = tuple(_join_hand(text, hand) for text, hand in zip(payload.dealt_text, hands))


def _join_hand(text: str, hand: int) -> str:
    return f"{text} | {_deck_text(hand)}" if text else _deck_text(hand)


def _information_state_string(state: GangOfFourSpielState, seat: int) -> str:
    payload = state._p
    if payload.match is None:
        return f"p{seat}"
    return f"p{seat} dealt: {payload.dealt_text[seat]} actions: {payload.actions_text}"


def _observation_string(state: GangOfFourSpielState, seat: int) -> str:
    if state.match is None:
        return f"p{seat}"
    hand = _deck_text(state.match._hand_masks()[seat])
    return f"p{seat} hand: {hand} table: {state.match.describe()} scores: {list(state.match.scores)}"


def _deck_text(mask: int) -> str:
    """The cards of a canonical mask as text, lowest first (as ``mask_cards``)."""
    names = _deck.NAMES
    return " ".join([names[code] for code in _deck.codes_of_mask(mask)])


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
        player = spiel_seat(player, state._p.engine.num_players)
        self.tensor.fill(0.0)
        if self.perfect_recall:
            _information_state_tensor(state, player, self.tensor)
        elif state.match is not None:
            state.match.observation_tensor(player, out=self.tensor)

    def string_from(self, state: GangOfFourSpielState, player: int) -> str:
        player = spiel_seat(player, state._p.engine.num_players)
        if self.perfect_recall:
            return _information_state_string(state, player)
        return _observation_string(state, player)


# -- resampling ------------------------------------------------------------------------

def _additive(mask: int) -> int:
    return mask - ((mask >> 1) & _PAIR_LO)


def _canonical(additive: int) -> int:
    return additive | ((additive >> 1) & _PAIR_LO)


def _minus_floor(known: int, played: int) -> int:
    """Canonical ``known`` less the cards of canonical ``played`` (per kind, not below zero)."""
    return known & ~played if known & played else known


class _Facts:
    """What every seat knows about where the cards are, for the current step
    (computed once per state from the public history; see :func:`known_cards`)."""

    __slots__ = ("known", "aside_known", "cap", "played_by", "exchange", "plans")

    def __init__(self, known: list[int], aside_known: int, cap: list[int], played_by: list[int],
                 exchange: tuple[int, int, int, int] | None) -> None:
        self.known = known              # per seat: canonical mask of cards every other seat knows it holds
        self.aside_known = aside_known  # canonical mask of cards known to be set aside
        self.cap = cap                  # per seat: highest card code its other cards can have
        self.played_by = played_by      # per seat: additive mask of its plays this round
        self.exchange = exchange        # (loser, winner, given code, returned code or -1)
        self.plans: dict[int, Any] = {}  # per player: the engine's information set (a cache)

    def __getstate__(self) -> tuple[Any, ...]:
        """Pickled without ``plans``: a cache holding the engine's samplers, whose
        deal-writing functions are closures (a state once resampled could not be saved)."""
        return self.known, self.aside_known, self.cap, self.played_by, self.exchange

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.known, self.aside_known, self.cap, self.played_by, self.exchange = state
        self.plans = {}


def _facts(payload: _Payload) -> _Facts:
    if payload.facts is not None:
        return payload.facts
    match = payload.match
    assert match is not None
    n = payload.engine.num_players
    played_by = [0] * n
    first_play: Played | None = None
    for record in reversed(match.history):
        if isinstance(record, RoundStart):
            break
        if isinstance(record, Played):
            played_by[record.player] += _additive(record.combo.mask)
            first_play = record
    known = [0] * n
    aside_known = 0
    cap = [_CODES - 1] * n
    exchange = match._exchange
    summary: tuple[int, int, int, int] | None = None
    if exchange is not None:
        loser, winner, given = exchange.loser, exchange.winner, exchange.given.code
        returned = -1 if exchange.returned is None else exchange.returned.code
        summary = (loser, winner, given, returned)
        cap[loser] = given  # the loser gave their highest card
        if returned != given:
            known[winner] = _BIT[given]
        if returned >= 0:
            known[loser] = _BIT[returned]
        for seat in (loser, winner):
            known[seat] = _minus_floor(known[seat], _canonical(played_by[seat]))
    if match.round == 1:
        m1 = _BIT[_M1]
        if first_play is None:
            if match._m1_lead:
                known[match.current_player] |= m1
            else:
                aside_known |= m1  # nobody was dealt M1 (2 or 3 players)
        elif not first_play.combo.mask & m1:
            aside_known |= m1
    facts = _Facts(known, aside_known, cap, played_by, summary)
    payload.facts = facts
    return facts


def known_cards(state: GangOfFourSpielState) -> tuple[list[int], int]:
    """Per seat, a canonical mask of the cards every other seat knows it holds
    (from the exchange, and ``M1`` before the first lead of the match), and the
    mask of cards known to be set aside (``M1`` when nobody was dealt it)."""
    if state.match is None or state.match.is_terminal:
        n = state._engine.num_players
        return [0] * n, 0
    facts = _facts(state._p)
    return list(facts.known), facts.aside_known


def resample(state: GangOfFourSpielState, player: int, rng: np.random.Generator) -> GangOfFourSpielState:
    """A copy of ``state`` in which the cards ``player`` cannot know are dealt
    again by the engine (:meth:`fourcards.engine.State.resample`: uniformly over
    the deals consistent with what ``player`` has seen, the known cards where
    they are, the loser's cards no higher than the card they gave), and later
    rounds are shuffled from a new seed; ``player``'s information state is
    unchanged."""
    other: GangOfFourSpielState = state.clone()
    payload = other._p
    match = payload.match
    if match is None or match.is_terminal:
        return other
    n = payload.engine.num_players
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)):
        raise InvalidTypeError(f"player must be an int, not {type(player).__name__}")
    if not 0 <= int(player) < n:
        raise UnknownSeatError(f"player {player!r} is not a seat (0..{n - 1})")
    if not isinstance(rng, np.random.Generator):
        raise InvalidTypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), not {type(rng).__name__}")
    player = int(player)
    facts = _facts(state._p)
    information = facts.plans.get(player)
    if information is None:
        information = facts.plans[player] = match.information_set(player)
    match = payload.match = information.sample(Rng(int(rng.integers(0, 1 << 63))))
    hands = list(match._hand_masks())
    payload.facts = None
    if player != match.current_player:
        payload.legal = None  # the hand of the player to act was dealt again
    places = [seat for seat in range(n) if seat != player]

    if payload.dealt[0]:
        # Each other seat's hand at the start of this round, in the new deal.
        changed = list(payload.dealt)
        texts = list(payload.dealt_text)
        for seat in places:
            start = _additive(hands[seat]) + facts.played_by[seat]
            if facts.exchange is not None and facts.exchange[3] >= 0:
                loser, winner, _given, returned = facts.exchange
                if seat == winner:
                    start += _BIT[returned]
                elif seat == loser:
                    start -= _BIT[returned]
            changed[seat] = changed[seat][:-1] + (_canonical(start),)
            head = texts[seat].rsplit(" | ", 1)[0] if len(changed[seat]) > 1 else ""
            texts[seat] = _join_hand(head, changed[seat][-1])
        payload.dealt = tuple(changed)
        payload.dealt_text = tuple(texts)
    return other


def _set_aside_codes(match: MatchState) -> list[int]:
    """The cards set aside (2 or 3 players), one code per copy."""
    return list(_deck.codes_of_mask(_deck.canonical_from_sum(match._set_aside)))


# -- a compiled rollout evaluator ------------------------------------------------------

class CompiledRolloutEvaluator:
    """An evaluator for OpenSpiel's ``MCTSBot`` and ``ISMCTSBot``, like
    ``open_spiel.python.algorithms.mcts.RandomRolloutEvaluator``: ``evaluate``
    averages the returns of ``n_rollouts`` matches played on to the end with
    uniformly random legal actions, ``prior`` is uniform over the legal
    actions. The rollouts run in the compiled Gang of Four simulator
    (:func:`fourcards.gangoffour.simulate.random_playouts`, the Python engine
    without it), from a generator seeded with ``seed``: the same states give the
    same evaluations.

    >>> import pyspiel
    >>> game = pyspiel.load_game(GAME_NAME, {"players": 2, "target_score": 10})
    >>> state = game.new_initial_state()
    >>> state.apply_action(3)
    >>> evaluator = CompiledRolloutEvaluator(n_rollouts=8, seed=1)
    >>> values = evaluator.evaluate(state)
    >>> values.shape, bool(abs(values.sum()) < 1e-9)
    ((2,), True)
    >>> bool((values == CompiledRolloutEvaluator(n_rollouts=8, seed=1).evaluate(state)).all())
    True
    """

    def __init__(self, n_rollouts: int = 1, seed: int = 0) -> None:
        if not isinstance(n_rollouts, int) or isinstance(n_rollouts, bool):
            raise InvalidTypeError(f"n_rollouts must be an int, not {type(n_rollouts).__name__}")
        if not 1 <= n_rollouts <= 2**31 - 1:
            raise FourCardsError(f"n_rollouts={n_rollouts} must be 1..2**31-1")
        self.n_rollouts = n_rollouts
        self._rng = Rng(seed)

    def evaluate(self, state: GangOfFourSpielState) -> np.ndarray[Any, np.dtype[np.float64]]:
        """The mean returns of the rollouts from ``state``, one per player."""
        if not isinstance(state, GangOfFourSpielState):
            raise InvalidTypeError(f"state must be a Gang of Four OpenSpiel state, not {type(state).__name__}")
        match = state.match
        if match is None:  # the deal: a random one per rollout, as RandomRolloutEvaluator samples chance
            n = state._engine.num_players
            total = np.zeros(n, np.float64)
            for _ in range(self.n_rollouts):
                start = state._engine.new_match(self._rng.below(DEALS))
                total += random_playouts(start, 1, self._rng.next_u64()).returns
            return total / self.n_rollouts
        return random_playouts(match, self.n_rollouts, self._rng.next_u64()).returns

    def prior(self, state: GangOfFourSpielState) -> list[tuple[int, float]]:
        """Equal probability for every legal action (the chance outcomes at the deal)."""
        if state.is_chance_node():
            outcomes: list[tuple[int, float]] = state.chance_outcomes()
            return outcomes
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]

    def __repr__(self) -> str:
        return f"CompiledRolloutEvaluator(n_rollouts={self.n_rollouts})"


def register() -> None:
    """Register the game with OpenSpiel (done on import; safe to repeat)."""
    if GAME_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, GangOfFourSpielGame)


register()
