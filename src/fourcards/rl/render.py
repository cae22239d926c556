"""Text rendering for ``render_mode="ansi"``: what happened since the last
render, then the table in one line.

Gang of Four's events are drawn by the terminal renderer the command line uses
(:func:`fourcards.gangoffour.render.describe`, without colour); the other games'
records are shown as their readable records.

>>> from fourcards.gangoffour.match import GangOfFour
>>> state = GangOfFour(players=2).new_match(1)
>>> text, seen = render_text(state, 0)
>>> print(text.splitlines()[1])
== Round 1 (dealer P1, play goes counter-clockwise; P0 leads)
"""

from __future__ import annotations

from typing import Any

from ..engine import State

__all__ = ["render_text", "record_lines"]


def record_lines(state: State[Any], record: object) -> list[str]:
    """The lines one history record of ``state``'s game prints as."""
    if state.game.name == "gang-of-four":
        from ..gangoffour.render import describe

        return describe(record, colour=False)
    return [f"   {record}"]


def render_text(state: State[Any], seen: int) -> tuple[str, int]:
    """The records of ``state`` after the first ``seen``, then the table's
    one-line description; returns the text and the new count of records seen."""
    history = state.history
    lines: list[str] = []
    for record in history[seen:]:
        lines.extend(record_lines(state, record))
    lines.append(f"[{state.describe()}]")
    return "\n".join(lines), len(history)
