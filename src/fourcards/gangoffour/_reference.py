"""The pure-Python twin of the compiled Gang of Four kernels (``fourcards.gangoffour._combos``, ``_parse``, ``_bots``).

Plain and obviously correct rather than fast: combinations are recognised
straight from the rules, the action numbering is the sorted list of every
combination, and legal plays are found by checking every combination of the
deck against the hand.  ``FOURCARDS_NO_EXTENSIONS=1`` makes the package use
these functions; the test suite checks that the compiled core agrees with them.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from itertools import product
from typing import Any

import numpy as np

from . import _deck as d
from ..errors import InvalidTypeError

Key = tuple[int, ...]


# -- recognising a combination -------------------------------------------------

def classify_codes(codes: Sequence[int]) -> tuple[int, Key] | None:
    """Kind and rank key of a multiset of card codes, or ``None``.

    The rank key orders combinations of one kind from lowest to highest: the
    codes from high to low (full house: the triple, then the pair; gangs: the
    size first).  The multiset must be one the deck can hold.
    """
    n = len(codes)
    if n == 0:
        return None
    desc = tuple(sorted(codes, reverse=True))
    if n == 1:
        return d.SINGLE, desc
    if d.RD in desc:
        return None  # the dragon is only ever played alone
    values = [d.VALUE[c] for c in desc]
    by_value: dict[int, list[int]] = {}
    for code, value in zip(desc, values):
        by_value.setdefault(value, []).append(code)
    if len(by_value) == 1:
        value = values[0]
        if n == 2:
            return d.PAIR, desc  # includes GP YP
        if value > 10:
            return None
        if n == 3:
            return d.TRIPLE, desc
        return d.GANG, (n,) + desc  # gangs of 4..7
    if n != 5:
        return None
    sizes = sorted(len(group) for group in by_value.values())
    if sizes == [2, 3]:
        triple = next(g for g in by_value.values() if len(g) == 3)
        pair = next(g for g in by_value.values() if len(g) == 2)
        if d.VALUE[triple[0]] <= 10:
            return d.FULL_HOUSE, tuple(triple) + tuple(pair)
        return None
    if max(values) > 10:
        return None  # phoenixes only in singles, pairs and full houses
    straight = len(by_value) == 5 and max(values) - min(values) == 4
    colours = {d.COLOUR[c] for c in desc if c != d.M1}
    flush = len(colours) == 1
    if straight and flush:
        return d.STRAIGHT_FLUSH, desc
    if flush:
        return d.FLUSH, desc
    if straight:
        return d.STRAIGHT, desc
    return None


def text_order(kind: int, key: Key) -> tuple[int, ...]:
    """Card codes in canonical text order (high to low; full house: triple first)."""
    return key[1:] if kind == d.GANG else key


def beats_keys(a: tuple[int, Key], b: tuple[int, Key]) -> bool:
    """Whether combination ``a`` (kind, key) may be played on ``b``."""
    kind_a, key_a = a
    kind_b, key_b = b
    if kind_a == d.GANG:
        return kind_b != d.GANG or key_a > key_b
    if kind_b == d.GANG or len(key_a) != len(key_b):
        return False
    if kind_a != kind_b:
        return kind_a > kind_b  # straight < flush < full house < straight flush
    return key_a > key_b


# -- every combination of the deck -----------------------------------------------

def _multisets(kinds: Sequence[tuple[int, int]], n: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``n`` codes from ``(code, copies)`` pairs."""
    if n == 0:
        yield ()
        return
    if not kinds:
        return
    (code, cap), rest = kinds[0], kinds[1:]
    for take in range(min(cap, n), -1, -1):
        for tail in _multisets(rest, n - take):
            yield (code,) * take + tail


def _candidates() -> Iterator[tuple[int, ...]]:
    by_value = {
        v: [(c, d.CAP[c]) for c in range(d.NUM_KINDS) if d.VALUE[c] == v]
        for v in range(1, 11)
    }
    for code in range(d.NUM_KINDS):
        yield (code,)
    yield (d.GP, d.YP)
    for v in range(1, 11):
        for n in (2, 3, 4, 5, 6, 7):
            yield from _multisets(by_value[v], n)
    for low in range(1, 7):
        for choice in product(*(by_value[v] for v in range(low, low + 5))):
            yield tuple(code for code, _ in choice)
    for colour in d.COLOURS:
        suit = [(c, d.CAP[c]) for c in range(d.NUM_KINDS)
                if d.COLOUR[c] in (colour, "M") and d.VALUE[c] <= 10]
        yield from _multisets(suit, 5)
    pairs: list[tuple[int, ...]] = [(d.GP, d.YP)]
    for v in range(1, 11):
        pairs.extend(_multisets(by_value[v], 2))
    for v in range(1, 11):
        for triple in _multisets(by_value[v], 3):
            for pair in pairs:
                if d.VALUE[pair[0]] != v:
                    yield triple + pair


def build_table() -> list[tuple[int, Key]]:
    """Every combination of the deck as ``(kind, key)``, in action order."""
    found = set()
    for codes in _candidates():
        combo = classify_codes(codes)
        if combo is not None:
            found.add(combo)
    return sorted(found)


TABLE = build_table()
NUM_ACTIONS = len(TABLE)
KIND_START = [bisect_left(TABLE, (kind,)) for kind in range(8)] + [NUM_ACTIONS]
_KEYS_OF_KIND = [
    [key for _, key in TABLE[KIND_START[k]:KIND_START[k + 1]]] for k in range(8)
]
_COUNTS = []
for _kind, _key in TABLE:
    _counts: dict[int, int] = {}
    for _code in text_order(_kind, _key):
        _counts[_code] = _counts.get(_code, 0) + 1
    _COUNTS.append(tuple(_counts.items()))
#: Per action, the kinds it needs as bits: a hand lacking one of them cannot play it (a quick first test).
_NEEDS = [sum(1 << code for code, _ in counts) for counts in _COUNTS]


def action_of(kind: int, key: Key) -> int:
    """The action index of a combination."""
    start = KIND_START[kind]
    return start + bisect_left(_KEYS_OF_KIND[kind], key)


# -- the kernel API (the same names and behaviour as the compiled modules) -----

def _check_mask(mask: Any) -> int:
    if isinstance(mask, (bool, np.bool_)):
        raise d.mask_error(mask)
    try:
        value = operator.index(mask)
    except TypeError:
        raise d.mask_error(mask) from None
    if not 0 <= value <= d.FULL_DECK or not d.is_canonical(value):
        raise d.mask_error(value)
    return value


def _check_action(action: Any, name: str) -> int:
    if isinstance(action, (bool, np.bool_)):
        raise InvalidTypeError(f"{name} must be an int, not {type(action).__name__}")
    try:
        value = operator.index(action)
    except TypeError:
        raise InvalidTypeError(f"{name} must be an int, not {type(action).__name__}") from None
    if not -1 <= value < NUM_ACTIONS:
        raise d.action_error(value, name)
    return value


def _check_int(value: Any, name: str, low: int, high: int) -> int:
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidTypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not low <= number <= high:
        raise d.range_error(name, number, low, high)
    return number


def classify_mask(mask: int) -> int:
    """Action index of the combination a canonical mask holds, or -1."""
    mask = _check_mask(mask)
    combo = classify_codes(d.codes_of_mask(mask))
    return -1 if combo is None else action_of(*combo)


def beats(a: int, b: int) -> bool:
    """Whether action ``a`` may be played on action ``b`` (``b == -1``: empty table)."""
    a = _check_action(a, "action")
    b = _check_action(b, "table action")
    if a < 0:
        return False
    return b < 0 or beats_keys(TABLE[a], TABLE[b])


def _legal(hand: int, table: int) -> list[int]:
    have = [0] * d.NUM_KINDS
    for code in d.codes_of_mask(hand):
        have[code] += 1
    lacking = sum(1 << code for code in range(d.NUM_KINDS) if not have[code])
    legal = []
    for action, counts in enumerate(_COUNTS):
        if not _NEEDS[action] & lacking and all(have[code] >= n for code, n in counts):
            if table < 0 or beats_keys(TABLE[action], TABLE[table]):
                legal.append(action)
    return legal


def legal_actions(hand: int, table: int = -1) -> np.ndarray[Any, np.dtype[np.int32]]:
    """Sorted action indices playable from ``hand`` on ``table`` (-1: leading)."""
    hand = _check_mask(hand)
    table = _check_action(table, "table action")
    return np.array(_legal(hand, table), dtype=np.int32)


def legal_mask(hand: int, table: int = -1, size: int = NUM_ACTIONS) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """A boolean array over all actions: which are playable from ``hand`` on ``table``.

    ``size`` (at least 12352) makes the array longer, zeros past the
    combinations: room for a game's other actions."""
    hand = _check_mask(hand)
    table = _check_action(table, "table action")
    size = _check_int(size, "size", NUM_ACTIONS, d.MAX_MASK_SIZE)
    out = np.zeros(size, dtype=np.bool_)
    out[_legal(hand, table)] = True
    return out


def classify_batch(codes: Any) -> tuple[np.ndarray[Any, np.dtype[np.int8]], np.ndarray[Any, np.dtype[np.int32]]]:
    """Kinds (-1: none) and action indices (-1: none) of rows of card codes.

    ``codes`` is a 2-D ``uint8`` array, one hand a row, padded with 255.
    """
    rows = _check_batch(codes)
    kinds = np.full(rows.shape[0], -1, dtype=np.int8)
    actions = np.full(rows.shape[0], -1, dtype=np.int32)
    for i, row in enumerate(rows.tolist()):
        cards = [c for c in row if c != d.PAD]
        for c in cards:
            if c >= d.NUM_KINDS:
                raise d.code_error(c, f" in row {i}")
        counts: dict[int, int] = {}
        for c in cards:
            counts[c] = counts.get(c, 0) + 1
        if any(n > d.CAP[c] for c, n in counts.items()):
            raise d.too_many_error(cards, f" in row {i}")
        combo = classify_codes(cards)
        if combo is not None:
            kinds[i] = combo[0]
            actions[i] = action_of(*combo)
    return kinds, actions


def _check_batch(codes: Any) -> np.ndarray[Any, np.dtype[np.uint8]]:
    if not isinstance(codes, np.ndarray):
        raise InvalidTypeError(f"codes must be a numpy array, not {type(codes).__name__}")
    if codes.dtype != np.uint8 or codes.ndim != 2:
        raise InvalidTypeError(f"codes must be a 2-D uint8 array, not {codes.ndim}-D {codes.dtype}")
    return codes


def table_masks() -> bytes:
    """The combination table as shipped in ``combos.bin``: one little-endian
    64-bit card mask per action, in action order."""
    masks = []
    for kind, key in TABLE:
        additive = sum(d.BIT[c] for c in text_order(kind, key))
        masks.append(d.canonical_from_sum(additive))
    return np.array(masks, dtype="<u8").tobytes()


_card_type: type | None = None


def fast_mask(cards: Any) -> int:
    """The canonical mask of text or a tuple/list of ``Card`` (the type given to
    :func:`set_card_type`); -1 when the input needs the careful (error-reporting)
    path: bad text, impossible sets, other types."""
    if type(cards) is str:
        codes = []
        for token in cards.replace(",", " ").split():
            code = d.CODE_OF.get(token.upper())
            if code is None:
                return -1
            codes.append(code)
    elif type(cards) is tuple or type(cards) is list:
        if _card_type is None or any(type(c) is not _card_type for c in cards):
            return -1
        codes = [c.code for c in cards]
    else:
        return -1
    mask = d.canonical_from_sum(sum(d.BIT[c] for c in codes))
    return mask if mask.bit_count() == len(codes) else -1


def fast_classify(cards: Any) -> int:
    """Action index of the combination ``cards`` form, -1 if none, -2 when the
    input needs the careful path."""
    mask = fast_mask(cards)
    return -2 if mask < 0 else classify_mask(mask)


def set_card_type(card_type: type) -> None:
    """Register the ``Card`` class (``fast_mask`` accepts its instances)."""
    global _card_type
    _card_type = card_type


# -- the rule-based (greedy) policy --------------------------------------------------

PASS_ACTION = NUM_ACTIONS
GIVE_BACK_BASE = NUM_ACTIONS + 1
ANNOUNCE_BASE = GIVE_BACK_BASE + d.NUM_KINDS
_GANG_START = d.KIND_START[d.GANG]
_SPECIAL = (d.M1, d.GP, d.YP, d.RD)


def _top(action: int) -> int:
    return max(text_order(*TABLE[action]))


def greedy_choose(hand: int, table: int, phase: int, player: int,
                  sizes: Sequence[int], legal: Sequence[int] | np.ndarray[Any, Any]) -> int:
    """The rule-based policy: the action it picks from ``legal`` (sorted ints).

    - give-back: the lowest card alone of its value (not M1, a phoenix or the
      dragon), else the lowest such card, else the lowest card;
    - leading: no gang while something else is possible; normally the play
      minimising ``highest card code - 4 * cards`` (shed many low cards), but
      when an opponent holds two cards or fewer the largest, then highest, play;
    - following: the lowest play that breaks no gang and spends no phoenix or
      dragon (unless an opponent is down to two cards or it holds six or
      fewer), then the lowest gang if an opponent is close to going out or
      the gang leaves three cards or fewer, else pass (or, when passing is not
      allowed, the lowest play);
    - a play that may announce the last card always does.
    """
    hand = _check_mask(hand)
    table = _check_action(table, "table action")
    phase = _check_int(phase, "phase", 0, 1)
    if not 2 <= len(sizes) <= 4:
        raise ValueError(f"sizes must list 2 to 4 hand sizes, got {len(sizes)}")
    player = _check_int(player, "player", 0, len(sizes) - 1)
    sizes = [_check_int(s, f"sizes[{i}]", 0, 64) for i, s in enumerate(sizes)]
    if np.ndim(legal) != 1:
        raise InvalidTypeError(f"legal must be a 1-D sequence of ints, not {np.ndim(legal)}-D")
    try:
        legal = [operator.index(a) for a in legal]
    except TypeError:
        raise InvalidTypeError(f"legal must be a 1-D sequence of ints, not {legal!r}") from None
    if not legal:
        raise ValueError("no legal action to choose from")
    top = ANNOUNCE_BASE if phase == 1 else ANNOUNCE_BASE + NUM_ACTIONS
    bottom = GIVE_BACK_BASE if phase == 1 else 0
    if min(legal) < bottom or max(legal) >= top:
        raise ValueError(f"legal actions out of range for phase {phase}")
    if not 2 <= len(sizes) <= 4:
        raise ValueError(f"sizes must list 2 to 4 hand sizes, got {len(sizes)}")
    codes = d.codes_of_mask(hand)
    counts: dict[int, int] = {}
    for code in codes:
        counts[d.VALUE[code]] = counts.get(d.VALUE[code], 0) + 1
    if phase == 1:
        ordinary = [a for a in legal if a - GIVE_BACK_BASE not in _SPECIAL]
        loners = [a for a in ordinary if counts[d.VALUE[a - GIVE_BACK_BASE]] == 1]
        return (loners or ordinary or legal)[0]

    def announced(action: int) -> int:
        return ANNOUNCE_BASE + action if ANNOUNCE_BASE + action in legal else action

    plays = [a for a in legal if a < PASS_ACTION]
    if not plays:
        return PASS_ACTION
    # out players (who forgot to announce) hold nothing and are no danger
    danger = min((s for p, s in enumerate(sizes) if p != player and s > 0), default=99) <= 2
    cards = {a: len(text_order(*TABLE[a])) for a in plays}
    if table < 0:
        candidates = [a for a in plays if a < _GANG_START] or plays
        if danger:
            return announced(max(candidates, key=lambda a: (cards[a], a)))
        return announced(min(candidates, key=lambda a: (_top(a) - 4 * cards[a], a)))
    gang_values = {v for v, n in counts.items() if n >= 4 and v <= 10}
    size = len(codes)
    for a in plays:
        if a >= _GANG_START:
            break
        if any(d.VALUE[c] in gang_values for c in text_order(*TABLE[a])):
            continue
        if _top(a) >= d.GP and not danger and size > 6:
            continue
        return announced(a)
    gangs = [a for a in plays if a >= _GANG_START]
    if gangs and (danger or size - cards[gangs[0]] <= 3):
        return announced(gangs[0])
    if PASS_ACTION in legal:
        return PASS_ACTION
    return announced(legal[0])
