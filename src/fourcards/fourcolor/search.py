"""The Four Color search player: information-set Monte Carlo in C, rule-bot playouts.

:class:`SearchBot` searches over the deals the seat to act cannot tell apart
from what it observes: every card it cannot see (the other concealed hands,
the stock, and the cards out of play of a position) is dealt again at
random for each iteration, keeping each hand's size and the stock's. The
root action (a discard, or the answer to the card on offer: pass, hu, or a
claim) is chosen by UCB1 over these determinizations, and the round is
played out by the rule-based player (:class:`~fourcards.fourcolor.bots.GreedyBot`)
in every seat (the seat's own discards, with ``playout="lookahead"``, the lookahead
player's among the greedy player's three best), in the compiled simulator, without the GIL
(``fourcards.fourcolor._sim.FcSearch``). A playout scores the seat's payments
in the round against the other seats' mean (in the last round, its share of
the game's win). Answers to the card on offer given before the seat's, still
hidden, are taken as passes (a turned-up General's revealer: its lone
General). The search starts from a rule-based player's choice (the baseline:
:class:`~fourcards.fourcolor.bots.LookaheadBot`'s by default) and plays another
action only on a clear gain over it on the same deals.

>>> from fourcards.fourcolor.game import FourColor
>>> game = FourColor()
>>> state = game.new_match(3)
>>> bot = SearchBot(game, seed=1, iterations=200)
>>> action = bot.choose(state.observation(state.current_player), state.legal_actions())
>>> action in state.legal_actions(), sum(visits for _, visits, _ in bot.last_statistics)
(True, 200)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import FourCardsError, InvalidTypeError
from ..rng import Rng
from ..search import SearchPlayer, check_budget, check_game, int_option, number_option, run_compiled, word_option
from . import _deck, _kernels
from .bots import GreedyBot, LookaheadBot
from .game import CLAIM_BASE, HU, MELD_INDEX, NUM_ACTIONS, PASS, FourColor, FourColorObservation
from ..engine import check_to_act, checked_legal

#: The rule-based players the search may start from (``SearchBot(rule=...)``): its
#: choice is the baseline.
RULES: dict[str, type[GreedyBot]] = {"greedy": GreedyBot, "lookahead": LookaheadBot}
#: Who makes the seat's own discards in its playouts (``SearchBot(playout=...)``; the
#: other seats' choices are always the greedy player's): ``"greedy"``, or
#: ``"lookahead"``, the lookahead player's discard among the greedy player's three best
#: (docs/ai/four-color.md).
PLAYOUTS: dict[str, int] = {"greedy": 1, "lookahead": 2}
DEFAULT_PLAYOUT = "greedy"

__all__ = ["PLAYOUTS", "RULES", "SearchBot", "search_inputs", "histories"]

_SOURCES = {"discard": 0, "turned": 1, "laid": 2}


def search_inputs(observation: FourColorObservation, legal: Sequence[int]) -> dict[str, Any]:
    """What :class:`FcSearch`'s ``reset`` takes, from an observation of the seat to
    act, checked: the cards it cannot see, how many each other hand and the stock
    hold, the claim in progress. :class:`FourCardsError` for an observation no
    game can show (cards counted twice, sizes past the unseen cards, a seat not
    to act)."""
    obs = observation
    n = len(obs.hand_sizes)
    me = obs.player
    if not 2 <= n <= 4 or len(obs.exposed) != n or len(obs.totals) != n:
        raise FourCardsError(f"the observation shows {n} seats, or its fields disagree on how many")
    if obs.current_player != me or obs.phase not in ("discard", "claim"):
        raise FourCardsError("the observation's seat is not the one to act")
    if len(obs.hand) != _deck.NUM_KINDS or any(type(c) is not int or not 0 <= c <= _deck.COPIES for c in obs.hand):
        raise FourCardsError("the observation's hand must hold 28 counts 0..4")
    left = [_deck.COPIES - count for count in obs.hand]
    exposed = [[0] * _deck.NUM_KINDS for _ in range(n)]
    points = [0] * n
    for seat, melds in enumerate(obs.exposed):
        for meld in melds:
            codes = tuple(sorted(meld))
            if codes not in MELD_INDEX:
                raise FourCardsError(f"seat {seat} shows {meld!r}, which is no meld")
            points[seat] += _deck.POINTS[_deck.meld_kind(codes)][0]
            for code in codes:
                exposed[seat][code] += 1
                left[code] -= 1
    for code in obs.discards:
        if type(code) is not int or not 0 <= code < _deck.NUM_KINDS:
            raise FourCardsError(f"discard {code!r} is not a card code")
        left[code] -= 1
    offer = obs.offer
    if (obs.phase == "claim") != (offer is not None):
        raise FourCardsError("a card is on offer exactly in the claim phase")
    if offer is not None:
        if not 0 <= offer.card < _deck.NUM_KINDS or offer.source not in _SOURCES or not 0 <= offer.player < n:
            raise FourCardsError("the card on offer is not one a game can show")
        left[offer.card] -= 1
    if any(count < 0 for count in left):
        raise FourCardsError("the observation shows more copies of a card than the deck holds")
    hidden = [code for code in range(_deck.NUM_KINDS) for _ in range(left[code])]
    sizes = [obs.hand_sizes[p] - sum(exposed[p]) if p != me else 0 for p in range(n)]
    if sum(obs.hand) != obs.hand_sizes[me] - sum(exposed[me]):
        raise FourCardsError("the observation's hand size does not match its hand")
    if any(size < 0 for size in sizes) or sum(sizes) + obs.stock > len(hidden) or obs.stock < 0:
        raise FourCardsError("the hands and the stock hold more cards than the observer cannot see")
    order: list[int] = []
    answers: list[int] = []
    if offer is not None:
        if offer.source == "laid":
            order = [(offer.player + 1) % n]
        elif offer.source == "discard":
            order = [(offer.player + k) % n for k in range(1, n)]
        else:
            order = [(offer.player + k) % n for k in range(n)]
        if not 0 <= obs.answered < len(order) or order[obs.answered] != me:
            raise FourCardsError("the observation's seat is not the one asked next")
        general = offer.card % 7 == _deck.GENERAL and offer.source == "turned"
        for seat in order[:obs.answered]:
            answers.append(CLAIM_BASE + MELD_INDEX[(offer.card,)] if general and seat == offer.player else PASS)
    actions = [int(a) for a in legal]
    if not actions or len(actions) > 128 or any(not 0 <= a < NUM_ACTIONS for a in actions):
        raise FourCardsError("the legal actions must be 1 to 128 actions of the game")
    if (obs.phase == "discard") != all(a < PASS for a in actions):
        raise FourCardsError("the legal actions do not fit the phase")
    for a in actions:
        if a < PASS and (obs.hand[a] == 0 or a % 7 == _deck.GENERAL):
            raise FourCardsError(f"action {a} discards a card the hand does not hold, or a General")
        if a >= CLAIM_BASE and not _can_claim(obs.hand, a, -1 if offer is None else offer.card):
            raise FourCardsError(f"claim {a} needs cards the hand does not hold")
    rules = obs.rules
    return {
        "players": n, "threshold": min(rules.threshold, 1 << 30), "rounds": min(rules.rounds, 1 << 30),
        "rank_only": rules.lucky_rank_only,
        "same_colour_soldiers": rules.same_colour_soldiers, "generals_hu": rules.only_generals == "hu",
        "round_": obs.round, "me": me, "hand": list(obs.hand),
        "exposed": exposed, "exposed_points": points, "hidden": hidden, "sizes": sizes, "stock_n": obs.stock,
        "phase": 0 if offer is None else 1, "offer_card": -1 if offer is None else offer.card,
        "offer_source": 0 if offer is None else _SOURCES[offer.source],
        "offer_player": -1 if offer is None else offer.player, "order": order, "answered": len(answers),
        "answers": answers, "totals": [max(-(1 << 62), min(1 << 62, t)) for t in obs.totals], "legal": actions,
    }


def histories(observation: FourColorObservation) -> dict[int, list[tuple[Any, ...]]]:
    """What each other seat did this round, from the observation's public records:
    per seat, its discards and its (revealed) answers to each card on offer, with
    its exposed points then and the cards it has given up from its hand since
    (``FcSearch.set_history``'s events). The search keeps, for each seat, the hands
    under which the rule-based player would have done the same."""
    from .game import Claim, ClaimsRevealed, Claimed, Discarded, Hu, TurnedUp

    obs = observation
    n = len(obs.hand_sizes)
    points_now = [sum(_deck.POINTS[_deck.meld_kind(tuple(sorted(m)))][0] for m in melds) for melds in obs.exposed]
    gained = [0] * n
    for record in obs.round_history:
        if isinstance(record, Claimed):
            gained[record.player] += _deck.POINTS[_deck.meld_kind(tuple(sorted(c.code for c in record.meld.cards)))][0]
    points = [points_now[p] - gained[p] for p in range(n)]
    events: dict[int, list[list[Any]]] = {p: [] for p in range(n) if p != obs.player}
    removals: list[tuple[int, int, int]] = []  # (time, seat, card)
    times: dict[int, list[int]] = {p: [] for p in events}
    turned: tuple[int, int] | None = None
    offer: tuple[int, int, int] | None = None  # card, source, offerer
    for time_, record in enumerate(obs.round_history):
        if isinstance(record, TurnedUp):
            turned = (record.player, record.card.code)
            offer = (record.card.code, _SOURCES["turned"], record.player)
        elif isinstance(record, Discarded):
            code = record.card.code
            if turned == (record.player, code):
                turned = None
                offer = (code, _SOURCES["laid"], record.player)
                continue
            offer = (code, _SOURCES["discard"], record.player)
            removals.append((time_, record.player, code))
            if record.player in events:
                events[record.player].append([0, code, 0, record.player, code, points[record.player]])
                times[record.player].append(time_)
        elif isinstance(record, ClaimsRevealed) and offer is not None:
            for seat, answer in record.answers:
                if seat not in events:
                    continue
                if isinstance(answer, Claim):
                    code = CLAIM_BASE + MELD_INDEX[tuple(sorted(c.code for c in answer.meld.cards))]
                else:
                    code = HU if isinstance(answer, Hu) else PASS
                events[seat].append([1, offer[0], offer[1], offer[2], code, points[seat]])
                times[seat].append(time_)
        elif isinstance(record, Claimed):
            turned = None
            need = [c.code for c in record.meld.cards]
            need.remove(record.card.code)
            for code in need:
                removals.append((time_, record.player, code))
            points[record.player] += _deck.POINTS[_deck.meld_kind(tuple(sorted(c.code for c in record.meld.cards)))][0]
    result: dict[int, list[tuple[Any, ...]]] = {}
    for seat, rows in events.items():
        out = []
        for row, at in zip(rows[-256:], times[seat][-256:]):
            after = [0] * _deck.NUM_KINDS
            for when, who, code in removals:
                if who == seat and when >= at:
                    after[code] += 1
            out.append((*row, after))
        result[seat] = out
    return result


def _can_claim(hand: Sequence[int], action: int, card: int) -> bool:
    from .game import MELDS

    if card < 0:
        return False
    need = list(MELDS[action - CLAIM_BASE])
    if card not in need:
        return False
    need.remove(card)
    return all(hand[code] >= need.count(code) for code in set(need))


class SearchBot(SearchPlayer):
    """Information-set Monte Carlo search in C over rule-bot playouts (see the module).

    ``iterations`` playouts a decision at most (repeatable), else ``time_per_move``
    seconds; ``exploration`` UCB1's constant; ``scale`` the payments that move a
    playout's score by a half. A decision with one legal action is not searched.
    ``margin``: it plays another action than the rule-based player's own only
    when that action's gain over it, on the same deals, is above ``margin``
    standard errors (None: the best mean, however small the gain).
    ``settle`` (with ``margin``): stop before the budget is spent once that many
    rounds of the search are played and more would hardly change the choice
    (``FcSearch.settled``), so that the close decisions get the time the clear
    ones leave (None: always the whole budget). ``rule``: the rule-based player
    whose choice is the baseline, ``"lookahead"`` or ``"greedy"`` (:data:`RULES`).
    ``deals``: play every legal action out on the same ``deals`` deals, none set
    aside (no sequential halving), instead of ``iterations`` or
    ``time_per_move``: repeatable, and every decision compared as finely
    (``deals=1000`` to ``2000``: the strongest measured, docs/ai/four-color.md).
    ``playout``: who makes the seat's own discards in the playouts (:data:`PLAYOUTS`).
    One bot may be shared by threads (its searches take turns)."""

    def __init__(self, game: FourColor | None = None, seed: int = 0, iterations: int | None = None,
                 time_per_move: float | None = None, exploration: float = 0.4, scale: float = 30.0, burn: int = 300,
                 mixing: int = 10, weight: float = 2.0, margin: float | None = 2.0,
                 settle: int | None = None, rule: str = "lookahead", deals: int | None = None,
                 playout: str = DEFAULT_PLAYOUT) -> None:
        budget = check_budget(iterations, time_per_move, exploration, 0.05)
        if game is not None:
            check_game(game, FourColor, "Four Color")
        deals = None if deals is None else int_option(deals, "deals", 1, 1_000_000, optional=True)
        if deals is not None and iterations is not None:
            raise FourCardsError(f"give iterations={iterations!r} or deals={deals!r}, not both")
        if deals is not None and time_per_move is not None:
            raise FourCardsError(f"deals={deals!r} plays every action on {deals} deals, whatever the time: give "
                                 f"it or time_per_move={time_per_move!r}, not both")
        if deals is not None and settle is not None:
            raise FourCardsError(f"settle={settle!r} stops a halving search early; deals={deals!r} plays every "
                                 "action on the same deals: give one of them")
        self.deals = deals
        self.iterations, self.time_per_move, self.exploration = budget
        scale = number_option(scale, "scale", 0.1, 1e6)
        if _kernels.sim is None:
            raise RuntimeError("the Four Color SearchBot needs the compiled core (FOURCARDS_NO_EXTENSIONS is set "
                               "or the extension did not build)")
        self.scale, self.weight = scale, number_option(weight, "weight", 0, 100)
        self.burn, self.mixing = int_option(burn, "burn", 0, 1_000_000), int_option(mixing, "mixing", 0, 1_000_000)
        self.margin = None if margin is None else number_option(margin, "margin", 0, 100, optional=True)
        self.settle = None if settle is None else int_option(settle, "settle", 2, 1_000_000, optional=True)
        self.rule = word_option(rule, "rule", list(RULES))
        self._rule = RULES[self.rule]()
        self.playout = word_option(playout, "playout", list(PLAYOUTS))
        self.rng = Rng(seed)
        self._search: Any = _kernels.sim.FcSearch()
        SearchPlayer.__init__(self)
        self.last_statistics: list[tuple[int, int, float]] = []

    def choose(self, observation: FourColorObservation, legal_actions: Sequence[int]) -> int:
        if not isinstance(observation, FourColorObservation):
            raise InvalidTypeError(f"observation must be a Four Color observation, not {type(observation).__name__}")
        legal_actions = checked_legal(legal_actions, NUM_ACTIONS, observation)
        check_to_act(observation)
        with self._lock:
            if len(legal_actions) == 1:
                return int(legal_actions[0])
            inputs = search_inputs(observation, legal_actions)
            search = self._search
            search.reset(**inputs, seed=self.rng.next_u64(), scale=self.scale, burn=self.burn, mixing=self.mixing,
                         weight=self.weight, halving=self.deals is None, own_playout=PLAYOUTS[self.playout])
            for seat, events in histories(observation).items():
                search.set_history(seat, events)
            if self.margin is not None:
                search.set_baseline(self._rule.choose(observation, legal_actions))
            settled = None
            if self.margin is not None and self.settle is not None:
                margin, least = self.margin, self.settle
                settled = lambda: search.rounds_played >= least and search.settled(margin)  # noqa: E731
            iterations = self.iterations if self.deals is None else self.deals * len(legal_actions)
            run_compiled(search, iterations, self.time_per_move, settled=settled)
            self.last_statistics = search.statistics()
            if self.margin is None:
                return int(self.last_statistics[0][0])
            return int(search.choice(self.margin))

    def _budget_text(self) -> str:
        return SearchPlayer._budget_text(self) if self.deals is None else f"deals={self.deals}"

    def _options_text(self) -> str:
        return f", rule={self.rule!r}" + (f", playout={self.playout!r}" if self.playout != DEFAULT_PLAYOUT else "")

    _unpicklable = ("_lock", "_search")

    def _restore(self) -> None:
        SearchPlayer._restore(self)
        if not hasattr(self, "playout"):  # pickled before the option
            self.playout = DEFAULT_PLAYOUT
        self._search = _kernels.sim.FcSearch() if _kernels.sim is not None else None
