"""Gang of Four as text: coloured cards and the lines of the match's events
(what ``fourcards demo`` prints, the terminal table and RL's ``render``)."""

from __future__ import annotations

from .match import CardGiven, MatchEnd, Passed, Played, RoundEnd, RoundStart

__all__ = ["paint", "describe"]

_COLOURS = {"G": "32", "Y": "33", "R": "31", "M": "35"}


def paint(text: str, enabled: bool) -> str:
    """Card words in their colours (phoenixes and the dragon in bold)."""
    if not enabled:
        return text
    words = []
    for word in text.split(" "):
        if word[:1] in _COLOURS and word[1:2].isalnum() and len(word) <= 3:
            code = ("1;" if word in ("GP", "YP", "RD") else "") + _COLOURS[word[0]]
            words.append(f"\033[{code}m{word}\033[0m")
        else:
            words.append(word)
    return " ".join(words)


def describe(record: object, colour: bool, you: int = -1) -> list[str]:
    """The lines a history record prints as (``you``: the human's seat)."""
    def who(seat: int) -> str:
        return "You" if seat == you else f"P{seat}"

    if isinstance(record, RoundStart):
        way = "counter-clockwise" if record.direction == 1 else "clockwise"
        return ["", f"== Round {record.round} (dealer P{record.dealer}, play goes {way}; "
                    f"{'you lead' if record.leader == you else f'P{record.leader} leads'})"]
    if isinstance(record, CardGiven):
        you_give = record.giver == you
        if record.automatic:
            how = f"give{'' if you_give else 's'} the winner {'your' if you_give else 'their'} highest card"
        else:
            how = f"give{'' if you_give else 's'} back"
        receiver = "you" if record.receiver == you else f"P{record.receiver}"
        return [f"   exchange: {who(record.giver)} {how}: {paint(str(record.card), colour)} -> {receiver}"]
    if isinstance(record, Played):
        kind = record.combo.kind.name.lower().replace("_", " ")
        last = "  - last card!" if record.cards_left == 1 else ""
        out = "  - out!" if record.cards_left == 0 else ""
        text = paint(str(record.combo), colour)
        pad = " " * max(0, 24 - len(str(record.combo)))
        return [f"   {who(record.player)} {text}{pad} {kind:<14} ({record.cards_left:2d} left){last}{out}"]
    if isinstance(record, Passed):
        return [f"   {who(record.player)} pass{'' if record.player == you else 'es'}"]
    if isinstance(record, RoundEnd):
        penalties = ", ".join(f"{who(p)} +{v}" for p, v in enumerate(record.penalties))
        totals = ", ".join(f"{who(p)} {v}" for p, v in enumerate(record.totals))
        winner = "you" if record.winner == you else f"P{record.winner}"
        return [f"== Round {record.round} over, won by {winner}: {penalties}", f"   totals: {totals}"]
    if isinstance(record, MatchEnd):
        names = " and ".join(who(w) for w in record.winners)
        verb = "win" if len(record.winners) > 1 or record.winners == (you,) else "wins"
        return ["", f"Match over: {names} {verb} with {min(record.totals)} points."]
    return []
