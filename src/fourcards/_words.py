"""Words for messages and summaries, shared by the library and its terminal."""

from __future__ import annotations

__all__ = ["plural", "escaped"]


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 bot``, ``2 bots``, ``2 matches``.

    >>> plural(1, "match"), plural(3, "match"), plural(0, "round"), plural(2, "die", "dice")
    ('1 match', '3 matches', '0 rounds', '2 dice')
    """
    if count == 1:
        return f"{count} {word}"
    return f"{count} {many or word + ('es' if word.endswith(('ch', 'sh', 's', 'x')) else 's')}"


def escaped(text: str) -> str:
    """``text`` with every character a terminal would act on (an escape sequence, a control
    character) or cannot print (a lone surrogate) written as its escape: input shown back in a
    message never reaches a terminal raw.

    >>> print(escaped("red" + chr(27) + "[31m" + chr(10) + "x"), escaped("ok é"))
    red\\x1b[31m\\nx ok é
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
