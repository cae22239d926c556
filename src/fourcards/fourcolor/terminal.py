"""Four Color Cards in the terminal: the table of ``fourcards play four-color`` (named by the game's registry entry)."""

from __future__ import annotations

from typing import Any

from ..terminal import Confirm, Table, plural, quote
from ..errors import FourCardsError

__all__ = ["FourColorTable"]


_FOUR_COLOURS = {"R": "31", "G": "32", "Y": "33", "W": "1"}


class FourColorTable(Table):
    game = "four-color"
    default_bot = "greedy"  # the search bot thinks for a while every move, on a clock
    commands = """\
When you discard:
  RC             discard that card (colour R G Y W + rank G A E C H N S)
  3              discard choice 3 of the list
When a card is on offer:
  2              take choice 2 (a claim: pong, kong or chi)
  pass           let it go
  hu             win with it (asks first when it would be a false win)"""
    short_rules = """\
Cards: colour R red, G green, Y yellow, W white; rank G General, A Advisor,
E Elephant, C Chariot, H Horse, N Cannon, S Soldier. Make melds of every card:
lone Generals, pairs, triples, quads, command sets (G A E) and field sets
(C H N) of one colour, and soldiers of three or four colours. Claim a card on
offer to meld it (then discard), or call hu when it completes your hand with at
least the threshold's points; a hu under the threshold is a false win and costs
you. Generals are never discarded."""
    rules = """\
Four Color Cards (2-4 players), 112 cards: 4 colours (R red, G green, Y yellow,
W white) x 7 ranks (G General, A Advisor, E Elephant, C Chariot, H Horse,
N Cannon, S Soldier) x 4 copies.
Melds and points (exposed / concealed):
  lone General 1/1; pair 0/0 (no Generals or Soldiers); triple 1/3; quad 6/8;
  quad of Generals 8/6; command set G A E of one colour 2/2; field set C H N of
  one colour 1/1; three soldiers of 3 colours 3/3; four soldiers 5/5.
Play:
- 20 cards each, 21 for the first player, who discards first.
- A discarded or turned-up card is on offer: hu (it completes your hand), pong
  or kong (a triple or quad with your cards), chi (any other meld; only the next
  player may chi a discard, and only the revealer a card they turned up), or pass.
  Priority: hu, then pong/kong, then chi. A claimed meld is laid face up
  (exposed); then the claimer discards.
- Nobody claims a discard: the next player turns up the stock's top card.
  Nobody claims a turned-up card: it is laid down, and only the next player may
  still claim it.
- Generals are never discarded; a General you turn up is melded at once (alone,
  or in a command set). A player holding the other three of a turned-up General
  may claim it as a quad (a kong, out of turn order), its revealer too.
- A player who must discard but holds only Generals ends the round as a hu.
- The stock runs out: the round ends, nobody scores.
Winning: a hu splits every card into melds; the winner shows them, then the
next stock card is the lucky card: 1 point for each card the winner owns of its
rank (any colour). Points reaching the threshold (10): you receive
points - 10 + 1 from everyone. Under it, a false win: you pay 11 to everyone.
The highest total after the last round wins."""
    option_help = {
        "players": "players, 2 to 4 (default: 4)",
        "rounds": "rounds a game (default: 3)",
        "threshold": "points a hu needs, or it is a false win (default: 10)",
        "lucky_rank_only": "the lucky card counts every card of its rank, the seed's 'tipo' (default: on); "
                           "off: only of its rank and colour",
        "same_colour_soldiers": "Soldiers of one colour form triples and quads (default: on); off: only "
                                "three and four soldiers of different colours",
        "only_generals": "a player who must discard but holds only Generals: 'hu' wins the round with them "
                         "(default), 'no_winner' ends it with nobody scoring",
    }

    def __init__(self, state: Any, colour: bool = False) -> None:
        super().__init__(state, colour)
        from . import _deck

        self.names = _deck.NAMES
        self.code_of = _deck.CODE_OF

    def ending(self) -> list[str]:
        return []  # the game's last record says who won

    def card(self, code: int) -> str:
        name = self.names[code]
        return self.paint(name, _FOUR_COLOURS[name[0]])

    def cards(self, codes: Any) -> str:
        return " ".join(self.card(k) for k in codes)

    def card_name(self, code: int) -> str:
        from . import Card

        return f"{self.card(code)} ({Card.from_code(code).name})"

    def intro(self) -> list[str]:
        n, rules = self.state.game.num_players, self.state.game.rules
        return [f"Four Color Cards, seed {self.state.seed}: you are P0 against {plural(n - 1, 'bot')}; "
                f"{plural(rules.rounds, 'round')}, a hu needs {rules.threshold} points. 'help' explains, "
                "'quit' stops.",
                "Cards: colour R red, G green, Y yellow, W white + rank G General, A Advisor, E Elephant,",
                "       C Chariot, H Horse, N Cannon, S Soldier (RC: red Chariot). A card you cannot claim",
                "       passes by itself."]

    def show(self, record: Any) -> list[str]:
        from .game import Claimed, Dealt, Discarded, GameEnd, RoundEnd, TurnedUp

        code = self.code_of.get
        if isinstance(record, Dealt):
            rounds = self.state.game.rules.rounds
            return ["", self.paint(f"== Round {record.round} of {rounds}: {self.subject(record.first, 'start')}", "1")]
        if isinstance(record, Discarded):
            return [f"   {self.verb(record.player, 'discard')} {self.card_name(code(str(record.card), 0))}"]
        if isinstance(record, TurnedUp):
            return [f"   {self.verb(record.player, 'turn')} up {self.card_name(code(str(record.card), 0))}"]
        if isinstance(record, Claimed):
            return [f"   {self.verb(record.player, 'claim')} {self.card(code(str(record.card), 0))}: "
                    f"{self.cards(code(c, 0) for c in str(record.meld).split())}"]
        if isinstance(record, RoundEnd):
            totals = ", ".join(f"{self.who(p)} {t}" for p, t in enumerate(record.totals))
            if record.winner < 0:
                outcome = "no winner"
            else:
                points = record.points + record.lucky
                false = points < self.state.game.rules.threshold
                outcome = (f"{self.who(record.winner)} {'call' if record.winner == self.you else 'calls'} hu with "
                           f"{record.points} points + {record.lucky} lucky" + (" - a false win" if false else ""))
            lines = [self.paint(f"== Round {record.round} over ({record.reason}): {outcome}", "1")]
            if record.winner >= 0:
                lines += self.shown_hand(record)
            return lines + [f"   totals: {totals}"]
        if isinstance(record, GameEnd):
            names = " and ".join(self.who(w) for w in record.winners)
            verb = "win" if len(record.winners) > 1 or record.winners == (self.you,) else "wins"
            totals = ", ".join(f"{self.who(p)} {t}" for p, t in enumerate(record.totals))
            return ["", self.paint(f"Game over: {names} {verb} (totals: {totals})", "1")]
        return []

    def shown_hand(self, record: Any) -> list[str]:
        """The hand a winner shows ("e mostrare la sua mano"): the melds that scored,
        the winning card and the lucky card."""
        who = self.verb(record.winner, "show")
        won = f" (won with {self.card_name(record.card.code)})" if record.card is not None else ""
        lines = [f"   {who} the hand{won}:"]
        for meld in record.melds:
            state = "exposed" if meld.exposed else "concealed"
            kind = meld.kind.name.lower().replace("_", " ").replace("command", "command set").replace(
                "field", "field set")
            lines.append(f"     {self.cards(c.code for c in meld.cards):<24} {kind}, {state}: "
                         f"{plural(meld.points, 'point')}")
        if record.lucky_card is None:
            lines.append("   No lucky card: the stock is empty.")
        else:
            match = "rank" if self.state.game.rules.lucky_rank_only else "rank and colour"
            lines.append(f"   Lucky card {self.card_name(record.lucky_card.code)}: "
                         f"+{plural(record.lucky, 'point')} (one for each card of its {match} "
                         f"{'you own' if record.winner == self.you else 'the winner owns'})")
        return lines

    def hand_codes(self, counts: Any) -> list[int]:
        return [k for k in range(28) for _ in range(counts[k])]

    def hand_text(self, counts: Any) -> str:
        """The hand by colour: ``RE RC RC  GG GN  ...``."""
        groups = [self.cards(k for k in range(c * 7, c * 7 + 7) for _ in range(counts[k])) for c in range(4)]
        return "  ".join(g for g in groups if g)

    def points_line(self, obs: Any) -> str:
        """The hand's points now: exposed melds, and what completes the hand."""
        from . import Meld, best_split, waits

        exposed = [Meld.parse([self.names[k] for k in m], exposed=True) for m in obs.exposed[self.you]]
        on_table = sum(m.points for m in exposed)
        threshold = obs.rules.threshold
        hand = self.hand_codes(obs.hand)
        text = f"Points: {on_table} exposed | a hu needs {threshold}"
        soldiers = obs.rules.same_colour_soldiers
        split = best_split(list(obs.hand), exposed, same_colour_soldiers=soldiers) if hand else None
        if split is not None and obs.phase == "claim":
            return text + f" | your hand is complete: {split.points} points"
        waiting = waits(list(obs.hand), exposed, same_colour_soldiers=soldiers) if obs.phase == "claim" else {}
        if waiting:
            shown = ", ".join(f"{self.card(c.code)} {p}" for c, p in sorted(waiting.items())[:8])
            return text + f" | you wait for: {shown}"
        return text

    def status(self) -> list[str]:
        obs = self.state.observation(self.you)
        lines = []
        for p, melds in enumerate(obs.exposed):
            if melds:
                lines.append(f"{self.who(p)} exposed: " + "  ".join(self.cards(m) for m in melds))
        sizes = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.hand_sizes))
        totals = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.totals))
        lines.append(f"Round {obs.round} | stock {obs.stock} | cards {sizes} | totals {totals}")
        lines.append(f"Your hand: {self.hand_text(obs.hand)}")
        lines.append(self.points_line(obs))
        return lines

    def choices(self) -> list[str]:
        from .game import CLAIM_BASE, HU, MELDS, PASS

        obs = self.state.observation(self.you)
        legal = self.state.legal_actions()
        if obs.phase == "discard":
            shown = "  ".join(f"{i}.{self.card(code)}" for i, code in enumerate(legal, 1))
            return ["Discard a card (Generals are never discarded): its name (e.g. "
                    f"{self.names[legal[0]]}) or its number:", f"  {shown}"]
        assert obs.offer is not None
        source = {"discard": "discarded", "turned": "turned up", "laid": "laid down"}.get(obs.offer.source,
                                                                                       obs.offer.source)
        by = self.who(obs.offer.player).replace("You", "you")
        lines = [f"On offer: {self.card_name(obs.offer.card)}, {source} by {by}. Your choices:"]
        for i, action in enumerate(legal, 1):
            text = "pass" if action == PASS else "hu" if action == HU else \
                "claim " + self.cards(MELDS[action - CLAIM_BASE])
            lines.append(f"  {i}. {text}")
        return lines

    def automatic(self) -> int | None:
        """A card on offer that the person can only pass on passes by itself."""
        from .game import PASS

        legal = self.state.legal_actions()
        return PASS if legal == [PASS] else None

    def false_win(self) -> str | None:
        """Why a hu now would be a false win (None: it would not)."""
        from . import Meld, best_split

        obs = self.state.observation(self.you)
        assert obs.offer is not None
        exposed = [Meld.parse([self.names[k] for k in m], exposed=True) for m in obs.exposed[self.you]]
        split = best_split(list(obs.hand), exposed, incoming=self.names[obs.offer.card],
                           incoming_from_discard=obs.offer.player != self.you or obs.offer.source != "turned",
                           same_colour_soldiers=obs.rules.same_colour_soldiers)
        threshold = obs.rules.threshold
        if split is None:
            return "your hand does not split into melds with that card"
        if split.points >= threshold:
            return None
        return (f"your melds make {split.points} points, under the threshold of {threshold}: unless the lucky "
                f"card adds {threshold - split.points}, it is a false win and you pay {threshold + 1} to everyone")

    def act(self, line: str) -> None:
        from .game import HU, PASS

        legal = self.state.legal_actions()
        word = line.strip().lower()
        code = self.choice(word)
        if self.state.phase == "discard":
            if code is None:
                text = line.strip().upper().removeprefix("DISCARD").strip()
                code = self.code_of.get(text)
            if code is None:
                raise FourCardsError(f"{quote(line)} is not a card: a colour R G Y W and a rank G A E C H N S, "
                                     f"e.g. RC, or a choice's number (1..{len(legal)})")
            self.state.apply(code, self.you)
            return
        if word == "pass":
            self.state.apply(PASS, self.you)
        elif word == "hu" or code == HU:
            if HU not in legal:
                raise FourCardsError("you cannot call hu: that card does not complete your hand")
            why = self.false_win()
            if why is not None:
                raise Confirm(f"A hu now: {why}. Call hu anyway?", lambda: self.state.apply(HU, self.you))
            self.state.apply(HU, self.you)
        elif code is not None:
            self.state.apply(code, self.you)
        else:
            super().act(line)  # an action's text: "claim RC RC RC"

    def action_text(self, action: int) -> str:
        from .game import PASS

        return self.names[action] if action < PASS else super().action_text(action)
