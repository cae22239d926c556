"""The pure-Python twin of the compiled Four Color kernels (``fourcards.fourcolor._melds``, ``_parse``, ``_bots``).

It searches plainly: take the lowest card left, try every meld that holds it,
and keep the best total (memoised on what is left).  The compiled core uses
precomputed block tables instead; the tests check that they agree.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from functools import lru_cache, cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import FourCardsError, ImpossibleCardsError, InvalidCardError, InvalidTypeError
from . import _deck as d

#: What the fast entry points answer when the Python path must decide (the twin
#: always leaves it to the Python path).
FALLBACK: Any = object()


def _all_melds() -> list[tuple[int, ...]]:
    melds: list[tuple[int, ...]] = []
    for colour in range(4):
        g = d.code(colour, d.GENERAL)
        melds += [(g,), (g,) * 4, (g, g + 1, g + 2), (g + 3, g + 4, g + 5)]
        for rank in range(1, 7):
            k = d.code(colour, rank)
            if rank != d.SOLDIER:
                melds.append((k, k))
            melds += [(k,) * 3, (k,) * 4]
    soldiers = [d.code(c, d.SOLDIER) for c in range(4)]
    for skip in range(4):
        melds.append(tuple(s for i, s in enumerate(soldiers) if i != skip))
    melds.append(tuple(soldiers))
    assert all(d.meld_kind(tuple(sorted(m))) >= 0 for m in melds)
    return [tuple(sorted(m)) for m in melds]


MELDS = _all_melds()
MELDS_WITH: list[list[tuple[int, ...]]] = [[m for m in MELDS if k in m] for k in range(d.NUM_KINDS)]


@lru_cache(maxsize=200_000)
def _search(counts: tuple[int, ...], pending: int) -> int:
    """Best points for ``counts`` (concealed), one meld holding ``pending`` scored exposed; -1 if none."""
    first = next((k for k, n in enumerate(counts) if n), -1)
    if first < 0:
        return -1 if pending >= 0 else 0
    best = -1
    for meld in MELDS_WITH[first]:
        rest = list(counts)
        for k in meld:
            rest[k] -= 1
        if min(rest) < 0:
            continue
        kind = d.meld_kind(meld)
        exposed, concealed = d.POINTS[kind]
        options = [(concealed, pending)]
        if pending >= 0 and pending in meld:
            options.append((exposed, -1))
        for points, still in options:
            tail = _search(tuple(rest), still)
            if tail >= 0 and points + tail > best:
                best = points + tail
    return best


def _check_counts(counts: Any) -> tuple[int, ...]:
    values = tuple(int(c) for c in counts)
    if len(values) != d.NUM_KINDS:
        raise ValueError(f"a hand is 28 counts, got {len(values)}")
    return values


def best_points(counts: Sequence[int], exposed_code: int = -1) -> int:
    """Best points of a complete split (-1: none; -2: a count above 4); the
    meld holding one card of ``exposed_code`` (if >= 0) is scored exposed."""
    if not -1 <= exposed_code < d.NUM_KINDS:
        raise InvalidCardError(f"exposed_code {exposed_code} is not a card code (0..27, or -1)")
    values = _check_counts(counts)
    if max(values) > d.COPIES:
        return -2
    return _search(values, exposed_code)


def unpack(packed: int) -> tuple[int, ...]:
    """Counts from the packed form: 3 bits a kind, kind ``k`` at bit ``3 * k``."""
    return tuple((packed >> (3 * k)) & 7 for k in range(d.NUM_KINDS))


def best_points_packed(packed: int, exposed_code: int = -1) -> int:
    if isinstance(packed, (bool, np.bool_)) or not isinstance(packed, (int, np.integer)):
        raise InvalidTypeError(f"a packed hand must be an int, not {type(packed).__name__}")
    packed = int(packed)
    if isinstance(exposed_code, (bool, np.bool_)) or not isinstance(exposed_code, (int, np.integer)):
        raise InvalidTypeError(f"exposed_code must be an int card code, not {type(exposed_code).__name__}")
    if not -1 <= exposed_code < d.NUM_KINDS:
        raise InvalidCardError(f"exposed_code {exposed_code} is not a card code (0..27, or -1)")
    exposed_code = int(exposed_code)
    if packed < 0 or packed >> (3 * d.NUM_KINDS):
        raise ImpossibleCardsError(f"packed hand {packed:#x} does not fit in 84 bits (3 a kind)")
    counts = unpack(packed)
    if max(counts) > d.COPIES:
        return -2
    return _search(counts, exposed_code)


def block_best(block: int, index: int) -> int:
    """Best concealed points of one block state (-1: it does not split)."""
    counts = [0] * d.NUM_KINDS
    if block < 4:
        for rank in range(6):
            counts[d.code(block, rank)] = index // 5 ** rank % 5
    else:
        for colour in range(4):
            counts[d.code(colour, d.SOLDIER)] = index // 5 ** colour % 5
    return _search(tuple(counts), -1)


def _plain_array(values: Any, what: str) -> npt.NDArray[Any]:
    """``values`` as an array, refusing a masked array, None, text, and a bool in a list
    (numpy reads ``[True, 2]`` as ``[1, 2]``)."""
    if isinstance(values, np.ma.MaskedArray):
        raise InvalidTypeError(f"{what} must be a plain array: a masked array's mask would be ignored")
    if values is None or isinstance(values, (str, bytes)):
        raise InvalidTypeError(f"{what} must be an array or a list of integers, not {type(values).__name__}")
    try:
        if isinstance(values, (list, tuple)):
            flat = np.asarray(values, dtype=object).ravel()
            if any(isinstance(v, (bool, np.bool_)) for v in flat.tolist()):
                raise InvalidTypeError(f"{what} must be integers, not bools")
        return np.asarray(values)
    except InvalidTypeError:
        raise
    except ValueError as ragged:  # rows of different lengths, or a value numpy cannot hold
        raise FourCardsError(f"{what} must be rows of the same length of integers ({ragged})") from None


def check_rows(counts: Any, what: str = "counts") -> npt.NDArray[np.uint8]:
    """Rows of 28 counts as ``uint8``, refusing what a cast would corrupt: floats
    (never truncated), bools (in a list too), values outside 0..255 (never wrapped), other
    shapes, a masked array (its mask would be ignored)."""
    rows = _plain_array(counts, what)
    kind = rows.dtype.kind
    if kind == "O":
        flat = rows.ravel().tolist()
        bad = [v for v in flat if not isinstance(v, int) or isinstance(v, bool)][:1]
        if bad or not flat:  # (a None among them is bad too)
            raise InvalidTypeError(f"{what} must be integers, got {type(bad[0]).__name__} {bad[0]!r}" if bad
                                   else f"{what} must be integers, got an empty object array")
        if min(flat) < 0 or max(flat) > 255:
            value = min(flat) if min(flat) < 0 else max(flat)
            raise ImpossibleCardsError(f"{what} hold {value}: a count is 0..4 (0..255 accepted, above 4 answers -2)")
        rows = np.array(flat, dtype=np.int64).reshape(rows.shape)
        kind = "i"
    if kind == "b":
        raise InvalidTypeError(f"{what} must be integer counts, not bools")
    if kind not in "iu":
        raise InvalidTypeError(f"{what} must be integer counts, got dtype {rows.dtype}"
                               + (" (floats are not truncated)" if kind in "fc" else ""))
    if rows.ndim != 2 or rows.shape[1] != d.NUM_KINDS:
        raise FourCardsError(f"{what} must be rows of 28 counts, got shape {rows.shape}")
    if rows.dtype != np.uint8 and rows.size and (int(rows.min()) < 0 or int(rows.max()) > 255):
        row, col = np.argwhere((rows < 0) | (rows > 255))[0]
        raise ImpossibleCardsError(f"{what}[{row}, {col}] = {int(rows[row, col])}: a count is 0..4 "
                                   "(0..255 accepted, above 4 answers -2)")
    return np.ascontiguousarray(rows, dtype=np.uint8)


def check_exposed(exposed: Any, rows: int) -> npt.NDArray[np.int8]:
    """One exposed code (-1..27) a row, as ``int8``."""
    codes = _plain_array(exposed, "exposed")
    if codes.dtype.kind not in "iu":
        raise InvalidTypeError(f"exposed must be integer card codes, got dtype {codes.dtype}")
    if codes.shape != (rows,):
        raise FourCardsError(f"exposed must hold one code a row ({rows}), got shape {codes.shape}")
    if codes.size and (int(codes.min()) < -1 or int(codes.max()) >= d.NUM_KINDS):
        raise FourCardsError("exposed codes must be -1..27")
    return np.ascontiguousarray(codes, dtype=np.int8)


def best_points_batch(counts: Any, exposed: Any = None) -> np.ndarray[Any, np.dtype[np.int16]]:
    """Best points (int16; -1 none, -2 a count above 4) of rows of 28 counts."""
    rows = check_rows(counts)
    codes = None if exposed is None else check_exposed(exposed, rows.shape[0])
    out = np.empty(rows.shape[0], dtype=np.int16)
    for i, row in enumerate(rows.tolist()):
        out[i] = best_points(row, -1 if codes is None else int(codes[i]))
    return out


# -- the split itself, waits, batches -------------------------------------------------------

MELD_INDEX: dict[tuple[int, ...], int] = {m: i for i, m in enumerate(MELDS)}
MAX_SPLIT = 64


def split(counts: Any, exposed_code: int = -1) -> tuple[int, tuple[int, ...]] | None:
    """The best split of 28 counts: ``(points, meld action indices)`` (the meld
    holding ``exposed_code`` first, scored exposed; then by lowest card), or None."""
    total = best_points(counts, exposed_code)
    if total < 0:
        return None
    rest = list(_check_counts(counts))
    melds: list[int] = []
    target = total

    def take(candidates: Sequence[tuple[int, ...]], column: int) -> bool:
        """Take the first candidate meld after which the rest still reaches the target."""
        nonlocal rest, target
        for codes in candidates:
            trial = list(rest)
            for k in codes:
                trial[k] -= 1
            if min(trial) < 0:
                continue
            sub = _search(tuple(trial), -1)
            if sub >= 0 and sub + d.POINTS[d.meld_kind(codes)][column] == target:
                melds.append(MELD_INDEX[codes])
                rest, target = trial, sub
                return True
        return False

    if exposed_code >= 0:
        take(MELDS_WITH[exposed_code], 0)
    while any(rest):
        first = next(k for k, n in enumerate(rest) if n)
        if not take(MELDS_WITH[first], 1):  # pragma: no cover - the search guarantees a way
            raise AssertionError("no meld reproduces the best total")
    return total, tuple(melds)


def wait_points(counts: Any, on_table: Any = None, from_discard: bool = False) -> list[int]:
    """Per kind, the points of the hand completed by one more card of it (-1: not
    a wait; kinds with 4 between the hand and ``on_table`` are skipped)."""
    values = list(_check_counts(counts))
    table = [0] * d.NUM_KINDS if on_table is None else [min(max(int(n), 0), 4) for n in on_table]
    out = [-1] * d.NUM_KINDS
    if max(values) > d.COPIES:
        return out
    for code in range(d.NUM_KINDS):
        if values[code] + table[code] >= d.COPIES:
            continue
        values[code] += 1
        points = best_points(values, code if from_discard else -1)
        values[code] -= 1
        out[code] = max(points, -1)
    return out


def best_split_batch(counts: Any, exposed: Any = None) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int8]]:
    """Best splits of rows of 28 counts: points (int16) and meld action indices (int8, rows x 64)."""
    rows = check_rows(counts)
    codes = None if exposed is None else check_exposed(exposed, rows.shape[0])
    points = np.empty(rows.shape[0], dtype=np.int16)
    melds = np.full((rows.shape[0], MAX_SPLIT), -1, dtype=np.int8)
    for i, row in enumerate(rows.tolist()):
        code = -1 if codes is None else int(codes[i])
        if max(row) > d.COPIES:
            points[i] = -2
            continue
        result = split(row, code)
        if result is None:
            points[i] = -1
            continue
        points[i] = result[0]
        melds[i, :len(result[1])] = result[1]
    return points, melds


def waits_batch(counts: Any, from_discard: bool = False) -> npt.NDArray[np.int16]:
    """Per row and kind, the points one more card of it completes the hand with (-1: none)."""
    rows = check_rows(counts)
    out = np.full((rows.shape[0], d.NUM_KINDS), -1, dtype=np.int16)
    for i, row in enumerate(rows.tolist()):
        out[i] = wait_points(row, None, bool(from_discard))
    return out


# -- the public functions' fast path: the twin leaves every hand to the Python path ----------

def register(cards: Any, names: Any, concealed: Any, exposed: Any, split_type: Any) -> None:
    """The compiled core keeps the public objects for its fast path; the twin needs none."""


def is_complete_hand(hand: Any) -> Any:
    return FALLBACK


def best_points_hand(hand: Any, exposed_code: Any = -1) -> Any:
    return FALLBACK


def best_split_hand(hand: Any) -> Any:
    return FALLBACK


def waits_hand(hand: Any, from_discard: bool = False) -> Any:
    return FALLBACK


# -- the rule-based player (fourcards.fourcolor.bots.GreedyBot) -------------------------------

@cache
def covered(block: tuple[int, ...], soldiers: bool) -> tuple[int, int]:
    """(cards covered by complete melds, near-melds) of a block, at best: the
    lowest card is either left out or put in a meld that holds it.  Near-melds
    are two cards of a command or field set, or two soldiers of two colours."""
    first = next((i for i, n in enumerate(block) if n), -1)
    if first < 0:
        return (0, 0)
    rest = list(block)
    rest[first] -= 1
    skip = covered(tuple(rest), soldiers)
    best = (skip[0], skip[1] + _near(block, first, soldiers))
    for take in _block_melds(first, soldiers):
        after = list(block)
        ok = True
        for index, n in take:
            after[index] -= n
            ok = ok and after[index] >= 0
        if ok:
            sub = covered(tuple(after), soldiers)
            value = (sub[0] + sum(n for _, n in take), sub[1])
            if value > best:
                best = value
    return best


def _near(block: tuple[int, ...], first: int, soldiers: bool) -> int:
    if soldiers:
        return 1 if sum(1 for n in block if n) >= 2 else 0
    if first in (0, 1, 2):
        return 1 if sum(1 for r in (0, 1, 2) if block[r]) >= 2 else 0
    if first in (3, 4, 5):
        return 1 if sum(1 for r in (3, 4, 5) if block[r]) >= 2 else 0
    return 0


@cache
def _block_melds(first: int, soldiers: bool) -> tuple[tuple[tuple[int, int], ...], ...]:
    if soldiers:  # index = colour
        melds: list[tuple[tuple[int, int], ...]] = [((first, 3),), ((first, 4),)]
        others = [c for c in range(first + 1, 4)]
        for a in others:
            for b in others:
                if a < b:
                    melds.append(((first, 1), (a, 1), (b, 1)))
        if first == 0:
            melds.append(((0, 1), (1, 1), (2, 1), (3, 1)))
        return tuple(melds)
    if first == 0:
        return (((0, 1),), ((0, 4),), ((0, 1), (1, 1), (2, 1)))
    pairs: list[tuple[tuple[int, int], ...]] = [((first, 2),), ((first, 3),), ((first, 4),)]
    if first == 3:
        pairs.append(((3, 1), (4, 1), (5, 1)))
    return tuple(pairs)


def shape(counts: Sequence[int]) -> int:
    """How much of a hand already hangs together: cards in melds, and near-melds."""
    total = near = 0
    for colour in range(4):
        c, n = covered(tuple(counts[colour * 7:colour * 7 + 6]), False)
        total, near = total + c, near + n
    c, n = covered(tuple(counts[colour * 7 + 6] for colour in range(4)), True)
    return 10 * (total + c) + 3 * (near + n)


def _small_counts(counts: Any, what: str) -> list[int]:
    values = list(counts)
    if len(values) != d.NUM_KINDS:
        raise ValueError(f"{what} must hold 28 values, got {len(values)}")
    for i, v in enumerate(values):
        if type(v) is not int or not 0 <= v <= d.COPIES:
            raise ValueError(f"{what}[{i}] = {v!r} is not an int in 0..4")
    return values


#: The largest exposed points and threshold the rule-based players take (the C
#: kernels add them in ints, with room to spare).
MAX_EXPOSED_POINTS = 1_000
MAX_THRESHOLD = 1 << 30


def check_points(exposed_points: Any, threshold: Any) -> tuple[int, int]:
    """The rule-based players' exposed points (0..1,000) and threshold (0..2**30),
    as ints: anything else (a float, a bool, a string) is a ValueError naming it."""
    checked = []
    for name, value, top in (("exposed_points", exposed_points, MAX_EXPOSED_POINTS),
                             ("threshold", threshold, MAX_THRESHOLD)):
        if isinstance(value, bool) or not hasattr(type(value), "__index__") \
                or not 0 <= operator.index(value) <= top:
            raise ValueError(f"{name} = {value!r} is not an int in 0..{top:,}")
        checked.append(operator.index(value))
    return checked[0], checked[1]


def hand_value(counts: Any, exposed_points: int = 0, threshold: int = 10) -> int:
    """The rule-based player's worth of a concealed hand: completing cards
    (waits) that score the threshold first, then any waits and points, else how
    much hangs together."""
    exposed_points, threshold = check_points(exposed_points, threshold)
    values = _small_counts(counts, "counts")
    waits = good = best = 0
    for code in range(d.NUM_KINDS):
        if values[code] >= d.COPIES:
            continue
        values[code] += 1
        points = best_points(values, -1)
        values[code] -= 1
        if points >= 0:
            waits += 1
            total = points + exposed_points
            good += total >= threshold - 1  # a lucky card may make up one point
            best = max(best, total)
    if waits:
        return 1000 + 60 * good + 10 * waits + best
    return shape(values)


def _can_claim(hand: Sequence[int], meld: tuple[int, ...], card: int) -> bool:
    if card not in meld:
        return False
    need = list(meld)
    need.remove(card)
    return all(hand[k] >= need.count(k) for k in set(need))


def greedy_choose(hand: Any, exposed_points: int, threshold: int, offer_card: int, from_discard: bool,
                  legal: Sequence[int]) -> int:
    """GreedyBot's choice: ``offer_card`` -1 in the discard phase, else the card on offer."""
    exposed_points, threshold = check_points(exposed_points, threshold)
    counts = _small_counts(hand, "hand")
    if not -1 <= offer_card < d.NUM_KINDS:
        raise ValueError(f"offer_card {offer_card} is not a card code (0..27, or -1)")
    actions = list(legal)
    if not actions:
        raise ValueError("no legal action to choose from")
    for a in actions:
        if type(a) is not int or not 0 <= a < 30 + len(MELDS):
            raise ValueError(f"legal action {a!r} is not an action (0..118)")
        if offer_card < 0 and (a >= 28 or counts[a] == 0 or a % 7 == 0):
            raise ValueError(f"cannot discard {a}: the hand does not hold it, or it is a General")
        if offer_card >= 0 and a < 28:
            raise ValueError(f"action {a} is a discard, but a card is on offer")
        if a >= 30 and not _can_claim(counts, MELDS[a - 30], offer_card):
            raise ValueError(f"claim {a} needs cards the hand does not hold, or a card on offer it lacks")

    def after_discard(cards: list[int], discard: int, points: int) -> int:
        cards[discard] -= 1
        try:
            return hand_value(cards, points, threshold)
        finally:
            cards[discard] += 1

    if offer_card < 0:
        return max(actions, key=lambda a: (after_discard(counts, a, exposed_points), -a))
    if 29 in actions:
        trial = list(counts)
        trial[offer_card] += 1
        points = best_points(trial, offer_card if from_discard else -1) + exposed_points
        if points >= threshold or 28 not in actions:
            return 29
    claims = [a for a in actions if a >= 30]
    if not claims:
        return 28 if 28 in actions else actions[0]
    keep = hand_value(counts, exposed_points, threshold) if 28 in actions else -(2 ** 31) + 1
    best_action, best_value = (28 if 28 in actions else claims[0]), keep
    for action in claims:
        meld = list(MELDS[action - 30])
        meld.remove(offer_card)
        after = list(counts)
        for k in meld:
            after[k] -= 1
        points = exposed_points + d.POINTS[d.meld_kind(MELDS[action - 30])][0]
        discards = [k for k in range(d.NUM_KINDS) if after[k] and k % 7 != d.GENERAL]
        value = max((after_discard(after, k, points) for k in discards), default=1000)
        if value < 1000:  # not ready yet: the exposed meld's cards hang together too
            value += 10 * len(MELDS[action - 30])
        if value > best_value:
            best_action, best_value = action, value
    return best_action


#: What a hand completed by the next card is worth to the lookahead player, above
#: any hand still waiting (``hand_value`` stays below 4,000).
LOOKAHEAD_WIN = 10_000


def lookahead_choose(hand: Any, exposed_points: int, threshold: int, unseen: Any, legal: Iterable[int]) -> int:
    """LookaheadBot's discard: the one after which the hand is worth the most once
    the next card comes, on average over the cards the seat has not seen (each
    kind weighted by its unseen copies); ties go to the lowest card.

    A hand of 21 that the next card completes with the threshold's points is worth
    ``LOOKAHEAD_WIN`` and its points; else the best :func:`hand_value` over its
    discards. With no card unseen, the discard's own ``hand_value`` decides.
    """
    exposed_points, threshold = check_points(exposed_points, threshold)
    counts = _small_counts(hand, "hand")
    live = _small_counts(unseen, "unseen")
    for code in range(d.NUM_KINDS):
        if counts[code] + live[code] > d.COPIES:
            raise ValueError(f"unseen[{code}] = {live[code]}: the hand holds {counts[code]} of the 4 copies")
    actions = list(legal)
    if not actions:
        raise ValueError("no legal action to choose from")
    if len(actions) > d.NUM_KINDS:
        raise ValueError(f"{len(actions)} legal actions: a discard has at most {d.NUM_KINDS}")
    for a in actions:
        if type(a) is not int or not 0 <= a < d.NUM_KINDS or counts[a] == 0 or a % 7 == d.GENERAL:
            raise ValueError(f"cannot discard {a!r}: the hand does not hold it, or it is a General")

    def after_draw(cards: list[int]) -> int:
        points = best_points(cards, -1)
        if points >= 0 and points + exposed_points >= threshold:
            return LOOKAHEAD_WIN + points + exposed_points
        values = []
        for k in range(d.NUM_KINDS):
            if cards[k] and k % 7 != d.GENERAL:
                cards[k] -= 1
                values.append(hand_value(cards, exposed_points, threshold))
                cards[k] += 1
        return max(values, default=LOOKAHEAD_WIN)

    def worth(discard: int) -> int:
        counts[discard] -= 1
        try:
            if not any(live):
                return hand_value(counts, exposed_points, threshold)
            total = 0
            for code in range(d.NUM_KINDS):
                if live[code]:
                    counts[code] += 1
                    total += live[code] * after_draw(counts)
                    counts[code] -= 1
            return total
        finally:
            counts[discard] += 1

    return max(actions, key=lambda a: (worth(a), -a))


#: How many of the greedy player's best discards the shortlisted lookahead weighs.
SHORTLIST = 3


def lookahead_shortlist_choose(hand: Any, exposed_points: int, threshold: int, unseen: Any,
                               legal: Iterable[int]) -> int:
    """The Four Color search's own discards in its playouts (``SearchBot(playout="lookahead")``):
    :func:`lookahead_choose` among the :data:`SHORTLIST` discards after which
    :func:`hand_value` is highest (of equal values, the lower cards)."""
    actions = list(legal)
    counts = _small_counts(hand, "hand")
    for a in actions:  # every discard checked, not only the three kept
        if type(a) is not int or not 0 <= a < d.NUM_KINDS or counts[a] == 0 or a % 7 == d.GENERAL:
            raise ValueError(f"cannot discard {a!r}: the hand does not hold it, or it is a General")
    actions.sort()
    if len(set(actions)) != len(actions):
        raise ValueError("a discard is listed twice")

    def after(discard: int) -> int:
        counts[discard] -= 1
        try:
            return hand_value(counts, exposed_points, threshold)
        finally:
            counts[discard] += 1

    if len(actions) > SHORTLIST:
        actions = sorted(sorted(actions, key=lambda a: (-after(a), a))[:SHORTLIST])
    return lookahead_choose(hand, exposed_points, threshold, unseen, actions)
