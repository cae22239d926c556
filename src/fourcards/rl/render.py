"""Text rendering for ``render_mode="ansi"``: what happened since the last
render, then the table in one line.

Each record reads as its game's text (:meth:`fourcards.engine.Game.record_text`,
the line the server and the terminal show too).

>>> from fourcards.games import DEFAULT_GAME, get_game
>>> state = get_game(DEFAULT_GAME).new_game().new_match(1)
>>> text, seen = render_text(state, 0)
>>> text.splitlines()[0] == "   " + state.game.record_text(state.history[0])
True
"""

from __future__ import annotations

from typing import Any

from ..engine import State

__all__ = ["render_text", "record_lines", "show"]


def record_lines(state: State[Any], record: object) -> list[str]:
    """The lines one history record of ``state``'s game prints as."""
    return [f"   {line}" for line in state.game.record_text(record).splitlines()]


def render_text(state: State[Any], seen: int) -> tuple[str, int]:
    """The records of ``state`` after the first ``seen``, then the table's
    one-line description; returns the text and the new count of records seen."""
    history = state.history
    lines: list[str] = []
    for record in history[seen:]:
        lines.extend(record_lines(state, record))
    lines.append(f"[{state.describe()}]")
    return "\n".join(lines), len(history)


def show(text: str, render_mode: str | None) -> str | None:
    """What ``render()`` does with ``text``: returns it (``"ansi"``), or prints it and
    returns None (``"human"``)."""
    if render_mode == "human":
        print(text, flush=True)
        return None
    return text
