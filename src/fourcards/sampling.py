"""Dealing hidden cards again, uniformly among the deals a player cannot tell apart.

What every game's :meth:`fourcards.engine.State.resample` is built on. The
hidden cards are a pool of physical cards (each with a label: a card code);
the places they may be in are numbered (other hands, a stock, piles, cards
set aside), each with a fixed number of slots. A *uniform deal* is a
uniformly random bijection of the pool onto the slots: a shuffle.

What a player has seen makes some deals impossible. A :class:`Group` of the
pool's cards carries, for each place, the fewest and the most of its cards
that place may hold (the copies of a card a hand is known to hold; the cards
a seat was asked for and lacked). :class:`DealSampler` draws a shuffle
*conditioned* on every group's bounds, exactly: it counts, by dynamic
programming over the groups, how many shuffles put each number of a group's
cards in each place, and picks in proportion; the unconstrained cards then
fill the free slots in a uniform shuffle. A condition no group expresses (a
test on the whole deal) is the ``accept`` function: samples it refuses are
drawn again, which keeps the result uniform over the deals it accepts. A
condition on a few cards together (a hand holds one or two of a family's
unseen cards) is a :class:`Placements`: every way to place those cards, listed,
so that no sample is refused for it.

Counting takes time and memory that grow with the places: past a handful of
places with bounds (a Four Pack table of 10 to 32 seats), the counts can run
to millions of partial deals. There a sampler draws *by proposal*: the listed
cards placed by one of their ways, every other card shuffled into the slots
left, the proposal kept with the probability that makes the deals it keeps
uniform (the weights of ``removed`` too) and refused when a bound fails.
Both ways draw from the same distribution, exactly (``method``); which way a
sampler draws is decided from its inputs, so a deal depends only on the
generator it is drawn with.

Deals, not positions, are equally likely. Where a hand has given up copies of
a card in the open since the deal (played, discarded), the hand it was dealt
held those too, and a hand dealt more copies of one card could be dealt in
fewer ways: a group's ``removed`` (per place, the copies that place has given
up since the deal; negative for copies it received in the open) weighs each
split of the group by the deals behind it, ``1 / (held + removed)!`` a place.
Playing one of two identical cards makes it half as likely that the player
still holds the other as an even spread of the unseen cards would say.

>>> from fourcards.rng import Rng
>>> sampler = DealSampler(sizes=[2, 2], free=[1, 2, 3], groups=[Group((9,), low=(1, 0))])
>>> deal = sampler.sample(Rng(1))
>>> 9 in deal[0], sorted(deal[0] + deal[1])
(True, [1, 2, 3, 9])
>>> sampler.count()  # 9 in one of 2 slots of place 0, the others anywhere: 2 x 3!
12
"""

from __future__ import annotations

import heapq
import itertools
import math
import numbers
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .engine import check_deadline
from .errors import FourCardsError, InvalidTypeError, SamplingCostError
from .rng import Rng, as_rng

__all__ = ["Group", "Placements", "DealSampler", "MatchingSampler", "below_big", "MAX_TRIES", "MAX_MEMO", "MAX_WORK",
           "MAX_SPLITS",
           "MANY_PLACES", "PROPOSALS_FIRST", "GRID_WORK_A_PROPOSAL", "PROPOSALS_LEAST", "PILOT_RATE",
           "PILOT_KEPT", "METHODS", "SamplingCostError"]

#: How many samples ``accept`` may refuse in a row before :class:`DealSampler` gives up.
MAX_TRIES = 100_000
#: The most counts of partial deals a sampler keeps (a table of many seats has more
#: ways to split a group than memory holds): past it, counting is refused (``method="auto"``
#: then draws by proposal; ``"count"`` raises :class:`SamplingCostError`).
MAX_MEMO = 200_000
#: The most splits a sampler lists or weighs while counting (each partial deal weighs every
#: split of its group): past it, counting is refused, as past :data:`MAX_MEMO`.
MAX_WORK = 2_000_000
#: The most splits of its groups a sampler lists (about 0.5 kB each with 32 places): past it,
#: counting is refused, before the listing holds more memory than a server can spare.
MAX_SPLITS = 250_000
#: Splits listed or weighed between two looks at a sample's deadline.
_DEADLINE_EVERY = 2048
#: Places with room past which a sampler with bounds draws by proposal before it counts
#: (``method="auto"``): counting the deals of so many places can take seconds or be refused.
MANY_PLACES = 8
#: Proposals a sampler of many places tries for a deal before it counts instead.
PROPOSALS_FIRST = 100_000
#: Where the counts of many places would fit the grid, a pilot of proposals decides how
#: to draw: at most one proposal for every :data:`GRID_WORK_A_PROPOSAL` of the count's
#: work on the grid (cells x splits: about the same time), at least
#: :data:`PROPOSALS_LEAST`; by proposal when one in :data:`PILOT_RATE` or more is kept (a
#: sample in a few milliseconds), counting as soon as far fewer are.
GRID_WORK_A_PROPOSAL = 8_000
PROPOSALS_LEAST = 64
PILOT_RATE = 256
#: Proposals kept before the pilot judges the rate (or it judges at its end).
PILOT_KEPT = 8
_PILOT_SEED = 0x5A3D_1E7
#: The ways a sampler draws (see the module's docstring).
METHODS = ("auto", "count", "propose")


#: The largest table of counts (cells) and work (cells x splits) counted in floats
#: over the whole grid; beyond, the counts are exact integers over the states reached.
GRID_CELLS = 400_000
GRID_WORK = 400_000_000
#: The most floats the grid's layers hold together (one layer a group, and one more).
GRID_FLOATS = 4_000_000
#: Cells added up on the grid between two looks at a sample's deadline.
_GRID_LOOK = 2_000_000


class _TooLargeToCount(SamplingCostError):
    """Counting refused by a bound (:data:`MAX_WORK`, :data:`MAX_MEMO`, :data:`MAX_SPLITS`), not by a
    deadline: with ``method="auto"`` the sampler draws by proposal from then on."""


def below_big(rng: Rng, n: int) -> int:
    """A uniform integer in ``0..n-1`` for any ``n >= 1`` (beyond 64 bits too):
    whole 64-bit draws, cut to ``n``'s bit length, rejected until below ``n``.

    >>> below_big(Rng(3), 10) in range(10), below_big(Rng(3), 7) == Rng(3).below(7)
    (True, True)
    """
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise InvalidTypeError(f"below_big() needs an int n, not {type(n).__name__}")
    n = int(n)
    if n < 1:
        raise FourCardsError(f"below_big() needs n >= 1, got {n}")
    rng = as_rng(rng)
    if n <= 1 << 64:
        return rng.below(n)
    bits = n.bit_length()
    words = (bits + 63) // 64
    while True:  # the words joined high first (in bytes: a shift a word was quadratic in the words)
        value = int.from_bytes(b"".join(rng.next_u64().to_bytes(8, "big") for _ in range(words)), "big")
        value >>= words * 64 - bits
        if value < n:
            return value


@dataclass(frozen=True)
class Group:
    """Cards of the pool under the same bounds: their labels (a label may repeat:
    copies of one card), and per place the fewest (``low``) and the most
    (``high``) of them it may hold (None: 0, and no limit), and how many copies
    of them it has given up in the open since the deal (``removed``, None: 0;
    only for copies of one card: see the module's docstring)."""

    labels: tuple[int, ...]
    low: tuple[int, ...] | None = None
    high: tuple[int, ...] | None = None
    removed: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Placements:
    """A few cards placed together: every allowed way to place them (``ways``: per
    way, the place of each of ``labels`` in order), each one arrangement of those
    cards (a way is then as likely as the deals of the other cards it leaves room for).
    For conditions on the cards together that no :class:`Group` bounds express (a
    place holds one to three of them); a deal is then drawn exactly, where an
    ``accept`` test would refuse samples.

    >>> two = Placements((7, 8), ways=((0, 1), (1, 0)))  # one in each place
    >>> deal = DealSampler([1, 1], [], [two]).sample(Rng(5))
    >>> sorted(deal[0] + deal[1])
    [7, 8]
    """

    labels: tuple[int, ...]
    ways: tuple[tuple[int, ...], ...]


class DealSampler:
    """Uniform shuffles of a pool of hidden cards into places, conditioned on bounds.

    ``sizes``: the slots of each place; ``free``: the labels of the cards
    under no bound; ``groups``: the others, as :class:`Group`; ``accept``: a
    test of a whole deal (a list per place of its labels, in slot order), or
    None. The pool (free cards and groups' cards) must fill the places exactly.
    Built once for a position, then :meth:`sample` as often as wanted; the
    counting is done on the first sample. One thread at a time: threads share
    an :class:`~fourcards.engine.InformationSet`, which draws one sample at a time.

    ``method``: ``"count"`` draws from the counts; ``"propose"`` by proposal
    and refusal, never counting; ``"auto"`` (the default) counts, unless more
    than :data:`MANY_PLACES` places have room and there are bounds (then it
    draws by proposal where proposals are kept often enough or the counts would
    be too large), and draws by proposal once counting is refused as too large.
    Each sample is exact whichever way drew it, and the way is decided from the
    inputs alone: a sample depends only on its generator.

    >>> wide = DealSampler([1] * 20, list(range(1, 20)), [Group((0,), high=(0,) * 19 + (1,))])
    >>> wide.sample(Rng(2))[19]  # card 0 may only be in the last place
    [0]
    """

    def __init__(self, sizes: Sequence[int], free: Sequence[int], groups: Sequence[Group | Placements] = (),
                 accept: Callable[[list[list[int]]], bool] | None = None, method: str = "auto") -> None:
        if not isinstance(method, str) or method not in METHODS:
            raise FourCardsError(f"method={method!r:.40} is not a way to draw: one of {', '.join(METHODS)}")
        if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or not all(
                isinstance(size, (int, np.integer)) and not isinstance(size, (bool, np.bool_)) for size in sizes):
            raise FourCardsError(f"sizes must be a sequence of whole numbers, one a place, not {sizes!r:.60}")
        self.sizes = tuple(int(s) for s in sizes)
        if isinstance(free, (str, bytes)) or not isinstance(free, Iterable):
            raise InvalidTypeError(f"free must be a sequence of cards (ints), not {type(free).__name__}")
        self.free = tuple(free)
        if isinstance(groups, (str, bytes)) or not isinstance(groups, Iterable):
            raise InvalidTypeError(f"groups must be a sequence of Group or Placements, not {type(groups).__name__}")
        groups = list(groups)
        for wrong in groups:
            if not isinstance(wrong, (Group, Placements)):
                raise InvalidTypeError(f"groups must hold Group or Placements, not {type(wrong).__name__} "
                                       f"{wrong!r:.40}")
        if accept is not None and not callable(accept):
            raise InvalidTypeError(f"accept must be a function of a deal (or None), not {type(accept).__name__}")
        self.accept = accept
        self.method = method
        places = len(self.sizes)
        if any(s < 0 for s in self.sizes):
            raise FourCardsError(f"place sizes must be at least 0, got {self.sizes}")
        normal: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = []
        #: Per group, its listed ways by split (a :class:`Placements`), or None.
        self._listed: list[dict[tuple[int, ...], list[tuple[int, ...]]] | None] = []
        for group in groups:
            if isinstance(group, Placements):
                by_split: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
                if len(set(group.ways)) != len(group.ways):
                    raise FourCardsError("a placement is listed twice: it would be drawn twice as often")
                for way in group.ways:
                    if len(way) != len(group.labels) or not all(0 <= d < places for d in way):
                        raise FourCardsError(f"a placement names a place of each of its {len(group.labels)} cards, "
                                         f"each 0..{places - 1}, not {way!r:.60}")
                    split = [0] * places
                    for d in way:
                        split[d] += 1
                    if all(y <= size for y, size in zip(split, self.sizes)):  # a way that overflows: never dealt
                        by_split.setdefault(tuple(split), []).append(tuple(way))
                if not by_split:
                    raise FourCardsError("no deal keeps what the player has seen (cards with no allowed placement)")
                if group.labels:
                    low = tuple(min(y[d] for y in by_split) for d in range(places))
                    high = tuple(max(y[d] for y in by_split) for d in range(places))
                    normal.append((tuple(group.labels), low, high, (0,) * places))
                    self._listed.append(by_split)
                continue
            count = len(group.labels)
            low = group.low if group.low is not None else (0,) * places
            high = group.high if group.high is not None else (count,) * places
            removed = group.removed if group.removed is not None else (0,) * places
            if len(low) != places or len(high) != places or len(removed) != places:
                raise FourCardsError(f"a group's bounds must name each of the {places} places")
            if any(removed) and len(set(group.labels)) > 1:
                raise FourCardsError("removed copies are counted for a group of copies of one card")
            low = tuple(max(lo, -r, 0) for lo, r in zip(low, removed))  # a hand was dealt none or more
            high = tuple(min(h, count, s) for h, s in zip(high, self.sizes))
            if count and (any(lo > hi for lo, hi in zip(low, high)) or sum(low) > count or sum(high) < count):
                where = next((f"place {d}: at least {lo}, at most {hi}" for d, (lo, hi) in enumerate(zip(low, high))
                              if lo > hi), f"at least {sum(low)} and at most {sum(high)} of its {count} cards")
                raise FourCardsError(f"no deal keeps what the player has seen (a group's bounds cannot be met: "
                                     f"{where})")
            if count:
                normal.append((group.labels, low, high, tuple(removed)))
                self._listed.append(None)
        self.groups = tuple(normal)
        pool = len(self.free) + sum(len(g[0]) for g in self.groups)
        if pool != sum(self.sizes):
            raise FourCardsError(f"the pool holds {pool} cards but the places {sum(self.sizes)} slots")
        self._memo: dict[tuple[bool, int, tuple[int, ...]], int] | None = None
        self._work = 0  # splits listed and weighed while counting (bounded by MAX_WORK)
        self._looked = 0  # self._work when the deadline was last looked at
        self._draw_work = 0  # splits weighed drawing the deals of one sample (bounded by MAX_WORK too)
        #: A ``time.perf_counter()`` value the counting of a draw stops at (:meth:`sample`'s).
        self.deadline: float | None = None
        self._splits: dict[bool, list[list[tuple[tuple[int, ...], int]]]] = {False: [], True: []}
        #: The group whose splits are being listed, its lists so far and the walk that lists them:
        #: a listing a deadline stopped goes on from there at the next sample (none is redone).
        self._listing: tuple[list[tuple[tuple[int, ...], int]], list[tuple[tuple[int, ...], int]],
                             Iterator[tuple[int, ...]]] | None = None
        self._grid: list[npt.NDArray[np.float64]] | None = None
        self._axes: list[int] = []
        #: Counting was refused as too large (``method="auto"``): drawn by proposal from then on.
        self._uncountable = False
        self._way: str | None = None  # how a sample is drawn (:meth:`_plan`)
        self._entries = {False: 0, True: 0}  # the memo's entries, per table
        self._listing_work = 0  # the work of listing the splits (a count's work starts from it)
        self._proposal: _Proposal | None = None

    # -- counting -----------------------------------------------------------------------
    def _compositions(self, count: int, low: tuple[int, ...], high: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """Every way to put ``count`` cards in the places within the bounds."""
        places = len(low)
        rest_high = [0] * (places + 1)
        for d in range(places - 1, -1, -1):
            rest_high[d] = rest_high[d + 1] + high[d]
        rest_low = [0] * (places + 1)
        for d in range(places - 1, -1, -1):
            rest_low[d] = rest_low[d + 1] + low[d]
        split = [0] * places

        def walk(d: int, left: int) -> Iterator[tuple[int, ...]]:
            if d == places:
                if left == 0:
                    yield tuple(split)
                return
            for y in range(max(low[d], left - rest_high[d + 1]), min(high[d], left - rest_low[d + 1]) + 1):
                split[d] = y
                yield from walk(d + 1, left - y)

        yield from walk(0, count)

    def _spend(self, work: int) -> None:
        """Count ``work`` splits listed or weighed: :class:`SamplingCostError` past
        :data:`MAX_WORK`, or past the deadline (looked at every few thousand)."""
        self._work += work
        if self._work > MAX_WORK:
            raise _TooLargeToCount(f"more than {MAX_WORK:,} splits to weigh: this information set is too "
                                    "large to sample exactly")
        if self.deadline is not None and self._work - self._looked >= _DEADLINE_EVERY:
            self._looked = self._work
            if time.perf_counter() > self.deadline:
                raise SamplingCostError("no deal drawn before the deadline (counting the ways to deal)")

    def _prepare(self) -> None:
        """List every group's splits and their weights (once; a listing stopped by the deadline
        or the work bound goes on where it stopped)."""
        if self._memo is not None:
            return
        fact = math.factorial
        done = self._splits
        for i in range(len(done[False]), len(self.groups)):
            labels, low, high, removed = self.groups[i]
            listed = self._listed[i]
            if listed is not None:  # the listed ways of each split, each way one deal
                weights = [(y, len(ways)) for y, ways in listed.items()]
                done[False].append(weights)
                done[True].append(weights)
                continue
            if self._listing is None:
                self._listing = ([], [], self._compositions(len(labels), low, high))
            plain, weighted, walk = self._listing
            g = len(labels)
            every = 256 if g <= 64 else 1
            scale = [fact(g + r) for r in removed]
            for y in walk:  # a group of many cards over many seats: millions of splits
                plain.append((y, fact(g) // math.prod(fact(v) for v in y)))
                # the deals behind each split: 1 / (held + removed)! a place, scaled to whole numbers
                weighted.append((y, math.prod(f // fact(v + r) for f, v, r in zip(scale, y, removed))))
                if len(plain) % every == 0:  # a group of many cards: large factorials, looked at each split
                    self._spend(every)
                    if sum(map(len, done[False])) + len(plain) > MAX_SPLITS:
                        raise _TooLargeToCount(f"more than {MAX_SPLITS:,} splits to list: this information set "
                                                "is too large to sample exactly")
            self._listing = None
            done[False].append(plain)
            done[True].append(weighted)
        self._memo = {}
        self._entries = {False: 0, True: 0}
        self._listing_work = self._work
        try:
            self._plan_grid()
        except OverflowError:  # weights past a float's range: counted in integers
            self._grid = None

    def _grid_axes(self) -> tuple[int, list[int], tuple[int, ...]]:
        """The grid of used slots: the largest place (whose count follows from the others'),
        every other place an axis, and the grid's shape."""
        places = len(self.sizes)
        implied = max(range(places), key=lambda d: self.sizes[d])
        axes = [d for d in range(places) if d != implied]
        return implied, axes, tuple(self.sizes[d] + 1 for d in axes)

    def _plan_grid(self) -> None:
        """Count the weighted splits in floats over the whole grid of used slots, when
        it is small enough: every place but the largest (whose count follows from the
        others') an axis. ``_grid[i][s]`` is proportional to the weighted ways to deal
        groups ``i..`` once ``s`` slots of each axis are taken (each layer scaled to
        its largest value: only ratios within a layer are used)."""
        places = len(self.sizes)
        if not self.groups or places < 2:
            return
        implied, axes, shape = self._grid_axes()
        cells = math.prod(shape)
        if (cells > GRID_CELLS or cells * (len(self.groups) + 1) > GRID_FLOATS
                or cells * sum(len(s) for s in self._splits[True]) > GRID_WORK):
            return
        total = sum(len(g[0]) for g in self.groups)
        index = np.indices(shape, dtype=np.int64)
        logs = np.zeros(shape)
        for k, d in enumerate(axes):  # ways to place the taken slots: perm(size, taken) a place
            n = self.sizes[d]
            logs += math.lgamma(n + 1) - np.vectorize(math.lgamma)(n - index[k] + 1.0)
        rest = total - index.sum(axis=0)
        n = self.sizes[implied]
        fits = (rest >= 0) & (rest <= n)
        rest_logs = np.where(fits, np.vectorize(math.lgamma)(np.clip(n - rest, 0, None) + 1.0), 0.0)
        logs = np.where(fits, logs + math.lgamma(n + 1) - rest_logs, -np.inf)
        if not np.isfinite(logs).any():
            self._grid = [np.zeros(shape) for _ in range(len(self.groups) + 1)]
            self._axes = axes
            return
        layer = np.exp(logs - logs[np.isfinite(logs)].max())
        layers = [layer]
        looked = 0
        for splits in reversed(self._splits[True]):
            new = np.zeros(shape)
            for y, weight in splits:
                looked += cells
                if self.deadline is not None and looked >= _GRID_LOOK:
                    looked = 0
                    if time.perf_counter() > self.deadline:  # the grid is made again, whole, next time
                        self._memo = None
                        raise SamplingCostError("no deal drawn before the deadline (counting the ways to deal)")
                shift = [y[d] for d in axes]
                if any(v >= size for v, size in zip(shift, shape)):
                    continue
                target = tuple(slice(0, size - v) for size, v in zip(shape, shift))
                source = tuple(slice(v, None) for v in shift)
                new[target] += float(weight) * layer[source]
            top = new.max()
            layer = new / top if top > 0 else new
            layers.append(layer)
        layers.reverse()
        self._grid = layers
        self._axes = axes

    def _ways(self, i: int, used: tuple[int, ...], weighted: bool = True) -> int:
        """Shuffles of groups ``i..`` into the slots left after ``used`` (up to the
        free cards' arrangements, the same for every choice), ``weighted`` by the
        deals behind them (up to a factor a group)."""
        memo = self._memo
        assert memo is not None
        key = (weighted, i, used)
        found = memo.get(key)
        if found is not None:
            return found
        # a node's work is charged once it is stored: work a deadline cut off is done again,
        # and counted once, so the bound is crossed where it would be without the deadline
        charged = 1 if i == len(self.groups) else len(self._splits[weighted][i])
        try:
            self._spend(charged)  # many ends (up to MAX_MEMO): the deadline is looked at among them too
            if i == len(self.groups):
                total = 1
                for size, taken in zip(self.sizes, used):
                    total *= math.perm(size, taken)
            else:
                total = 0
                for y, weight in self._splits[weighted][i]:
                    after = tuple(u + v for u, v in zip(used, y))
                    if all(a <= s for a, s in zip(after, self.sizes)):
                        total += weight * self._ways(i + 1, after, weighted)
        except SamplingCostError as error:
            if type(error) is SamplingCostError:  # the deadline (a bound is final)
                self._work -= charged
            raise
        self._entries[weighted] += 1  # each table bounded on its own: count() leaves sample() as it was
        if self._entries[weighted] > MAX_MEMO:
            raise _TooLargeToCount(f"more than {MAX_MEMO:,} partial deals to count: this information set is "
                                    "too large to sample exactly")
        memo[key] = total
        return total

    def count(self) -> int:
        """How many shuffles keep every group's bounds (slots ordered; before ``accept``)."""
        self._prepare()
        free = len(self.free)
        work = self._work
        self._work = self._listing_work  # a bound of its own: a sample's count spends nothing of it
        try:
            return self._ways(0, (0,) * len(self.sizes), False) * math.factorial(free)
        finally:
            self._work = work  # nor this one anything of a sample's
            self._looked = min(self._looked, work)

    # -- drawing ------------------------------------------------------------------------
    def _splits_of(self, i: int, used: tuple[int, ...], rng: Rng) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Group ``i``'s split among the places, drawn in proportion to the weighted
        ways to deal the rest after it; and the slots used after it."""
        self._draw_work += len(self._splits[True][i])
        grid = self._grid
        if grid is not None:
            axes, layer = self._axes, grid[i + 1]
            choices: list[tuple[float, tuple[int, ...], tuple[int, ...]]] = []
            for y, weight in self._splits[True][i]:
                after = tuple(u + v for u, v in zip(used, y))
                if all(a <= s for a, s in zip(after, self.sizes)):
                    w = float(weight) * float(layer[tuple(after[d] for d in axes)])
                    if w > 0:
                        choices.append((w, y, after))
            total = sum(w for w, _, _ in choices)
            if total <= 0:
                raise FourCardsError("no deal keeps what the player has seen (an inconsistent position)")
            pick = rng.next_u64() / 2.0**64 * total
            for w, y, after in choices:
                if pick < w:
                    return y, after
                pick -= w
            return choices[-1][1], choices[-1][2]
        options = []
        for y, weight in self._splits[True][i]:
            after = tuple(u + v for u, v in zip(used, y))
            if all(a <= s for a, s in zip(after, self.sizes)):
                ways = weight * self._ways(i + 1, after)
                if ways:
                    options.append((ways, y, after))
        if not options:
            raise FourCardsError("no deal keeps what the player has seen (an inconsistent position)")
        chosen = below_big(rng, sum(ways for ways, _, _ in options))
        for ways, split, after in options:
            if chosen < ways:
                return split, after
            chosen -= ways
        raise AssertionError("unreachable: the draw is below the total")

    def _draw(self, rng: Rng) -> list[list[int]]:
        self._prepare()
        places = len(self.sizes)
        used = (0,) * places
        deal: list[list[int]] = [[] for _ in range(places)]
        for i, (labels, _low, _high, _removed) in enumerate(self.groups):
            y, after = self._splits_of(i, used, rng)
            listed = self._listed[i]
            if listed is not None:  # one of the split's listed ways, uniform
                ways = listed[y]
                way = ways[rng.below(len(ways))]
                for label, d in zip(labels, way):
                    deal[d].append(label)
                used = after
                continue
            cards = list(labels)
            rng.shuffle(cards)  # which of the group's cards go where: uniform
            start = 0
            for d in range(places):
                deal[d] += cards[start:start + y[d]]
                start += y[d]
            used = after
        rest = list(self.free)
        rng.shuffle(rest)
        start = 0
        for d in range(places):
            take = self.sizes[d] - len(deal[d])
            deal[d] += rest[start:start + take]
            start += take
            rng.shuffle(deal[d])  # the bounded cards' slots: uniform within the place
        return deal

    # -- drawing by proposal --------------------------------------------------------------
    def _plan(self) -> str:
        """How :meth:`sample` draws, decided from the sampler's inputs alone (so that a
        sample depends only on its generator, whatever was drawn before): ``"count"``
        (from the counts; by proposal once they are found too large to count), or
        ``"propose"`` (up to :data:`PROPOSALS_FIRST` proposals, then as ``"count"``).

        ``auto`` with many places: where the counts would not fit the grid of used
        slots (:data:`GRID_CELLS`, :data:`GRID_WORK`), ``"propose"``. Where they
        would, a pilot of proposals drawn with a generator of its own (so the same
        every time) decides: ``"propose"`` once it has kept :data:`PILOT_KEPT`
        proposals at one in :data:`PILOT_RATE` or better, or that rate over all of it,
        and ``"count"`` otherwise, after about as many proposals as the count would
        cost (:data:`GRID_WORK_A_PROPOSAL`)."""
        if self._way is None:
            if self.method != "auto":
                self._way = self.method
            elif not self.groups or sum(1 for size in self.sizes if size) <= MANY_PLACES:
                self._way = "count"
            else:
                work = self._grid_work()
                if work is None:
                    self._way = "propose"
                else:
                    self._way = self._pilot(max(PROPOSALS_LEAST, work // GRID_WORK_A_PROPOSAL))
        return self._way

    def _grid_work(self) -> int | None:
        """The work (cells x splits) of counting on the grid of used slots (see
        :meth:`_plan_grid`), its splits predicted from the bounds without listing them;
        None where the counts would not fit the grid."""
        cells = math.prod(self._grid_axes()[2])
        if cells > GRID_CELLS or cells * (len(self.groups) + 1) > GRID_FLOATS:
            return None
        budget = min(MAX_SPLITS, GRID_WORK // cells)
        splits = 0
        for (labels, low, high, _removed), listed in zip(self.groups, self._listed):
            if listed is not None:
                splits += len(listed)
            else:  # compositions of the group within its bounds, place by place (prefix sums, capped)
                g, cap = len(labels), budget + 1
                ways = [1] + [0] * g
                for lo, hi in zip(low, high):
                    prefix = [0]
                    for value in ways:
                        prefix.append(prefix[-1] + value)
                    ways = [min(cap, prefix[k - lo + 1] - prefix[max(0, k - hi)]) if k >= lo else 0
                            for k in range(g + 1)]
                splits += ways[-1]
            if splits > budget:
                return None
        return cells * splits

    def _pilot(self, tries: int) -> str:
        pilot, kept = Rng(_PILOT_SEED), 0
        deadline = self.deadline
        for tried in range(1, tries + 1):
            if deadline is not None and tried % 64 == 0 and time.perf_counter() > deadline:
                raise SamplingCostError("no deal drawn before the deadline (choosing how to draw)")
            if self._propose(pilot) is not None:
                kept += 1
                if kept >= PILOT_KEPT and tried <= PILOT_RATE * kept:
                    return "propose"
            elif tried >= 2 * PILOT_RATE * (kept + PILOT_KEPT):  # kept clearly too seldom: count
                return "count"
        return "propose" if kept and tries <= PILOT_RATE * kept else "count"

    def _propose(self, rng: Rng) -> list[list[int]] | None:
        """One proposal: each listed group placed by one of its ways, uniform; every other
        card shuffled into the slots left; kept with probability (the deals behind it) /
        (the most deals behind any proposal), so that the deals kept are uniform (and
        weighed by ``removed``) within the bounds; None when refused."""
        proposal = self._proposal
        if proposal is None:
            proposal = self._proposal = _Proposal(self)
        places = len(self.sizes)
        deal: list[list[int]] = [[] for _ in range(places)]
        room = list(self.sizes)
        for labels, ways in proposal.ways:
            way = ways[rng.below(len(ways))]
            for label, d in zip(labels, way):
                deal[d].append(label)
                room[d] -= 1
        if any(left < 0 for left in room):
            return None
        rest, owner = proposal.rest, proposal.owner
        order = list(range(len(rest)))
        rng.shuffle(order)
        held = [[0] * places for _ in proposal.bounded]
        start = 0
        for d in range(places):
            for k in order[start:start + room[d]]:
                deal[d].append(rest[k])
                if owner[k] >= 0:
                    held[owner[k]][d] += 1
            start += room[d]
        for counts, (low, high, _removed, _best, _best_of) in zip(held, proposal.bounded):
            if not all(lo <= y <= hi for y, lo, hi in zip(counts, low, high)):
                return None
        # the rest's arrangements over the room left, against the most any proposal leaves
        keep, out_of = proposal.weigh_room(room)
        fact = math.factorial
        for counts, (_low, _high, removed, best, best_of) in zip(held, proposal.bounded):
            if removed is not None:  # y! / (y + removed)! a place, against its largest
                keep *= math.prod(fact(y) for y in counts) * best_of
                out_of *= math.prod(fact(y + r) for y, r in zip(counts, removed)) * best
        if keep != out_of and below_big(rng, out_of) >= keep:
            return None
        for cards in deal:
            rng.shuffle(cards)  # the slots within a place: uniform (before accept: it may look at them)
        if self.accept is not None and not self.accept(deal):
            return None
        return deal

    def _by_proposal(self, rng: Rng, deadline: float | None, tries: int) -> list[list[int]] | None:
        """Up to ``tries`` proposals: the first kept, or None."""
        for _ in range(tries):
            if deadline is not None and time.perf_counter() > deadline:
                raise SamplingCostError("no deal drawn before the deadline")
            deal = self._propose(rng)
            if deal is not None:
                return deal
        return None

    def _proposed(self, rng: Rng, deadline: float | None) -> list[list[int]]:
        deal = self._by_proposal(rng, deadline, MAX_TRIES)
        if deal is None:
            raise SamplingCostError(f"no deal the player cannot rule out was found in {MAX_TRIES:,} proposals")
        return deal

    def _let_go_of_the_count(self) -> None:
        """Counting was refused as too large: by proposal from then on, the count's tables freed."""
        self._uncountable = True
        self._memo, self._grid, self._listing = None, None, None
        self._splits = {False: [], True: []}

    # -- either way --------------------------------------------------------------------
    def sample(self, rng: Rng | int, deadline: float | None = None) -> list[list[int]]:
        """A deal: per place, its cards' labels in slot order (uniform among the
        deals within the bounds that ``accept`` takes); with ``deadline`` (a
        ``time.perf_counter()`` value), :class:`SamplingCostError` once it passes.
        The deal depends only on ``rng`` (and the sampler's inputs)."""
        rng = as_rng(rng)  # a seed, as InformationSet.sample takes one
        deadline = check_deadline(deadline)
        self.deadline = deadline
        self._draw_work = 0
        try:
            plan = self._plan()
            if plan == "propose":
                if self.method == "propose":
                    return self._proposed(rng, deadline)
                deal = self._by_proposal(rng, deadline, PROPOSALS_FIRST)
                if deal is not None:
                    return deal
            # counting consumes nothing of ``rng``: a count found too large before, or now,
            # leaves the same generator to the proposals
            if not self._uncountable:
                try:
                    return self._by_count(rng, deadline)
                except _TooLargeToCount:
                    if self.method == "count":
                        raise
                    self._let_go_of_the_count()
            return self._proposed(rng, deadline)
        finally:
            self.deadline = None

    def draw_once(self, rng: Rng | int) -> list[list[int]] | None:
        """One try at a deal, the way :meth:`sample` first tries: the deal, or None when the
        try was refused (``accept``, or a proposal's bound). A quick look at whether bounds
        hold any deal at all; :meth:`sample` tries until one is drawn."""
        rng = as_rng(rng)
        if self._plan() == "propose" or self._uncountable:
            return self._propose(rng)
        try:
            deal = self._draw(rng)
        except _TooLargeToCount:
            if self.method == "count":
                raise
            self._let_go_of_the_count()
            return self._propose(rng)
        return deal if self.accept is None or self.accept(deal) else None

    def _by_count(self, rng: Rng, deadline: float | None) -> list[list[int]]:
        for tries in range(MAX_TRIES):
            if deadline is not None and time.perf_counter() > deadline:
                raise SamplingCostError("no deal drawn before the deadline")
            if self._draw_work > MAX_WORK:  # many refused, each costly: seconds spent on one sample
                raise SamplingCostError(f"no deal the player cannot rule out was found in {tries:,} tries "
                                        f"(more than {MAX_WORK:,} splits weighed)")
            deal = self._draw(rng)
            if self.accept is None or self.accept(deal):
                return deal
        raise SamplingCostError(f"no deal the player cannot rule out was found in {MAX_TRIES:,} tries")


class _Proposal:
    """What drawing by proposal needs of a sampler, worked out once: every way of each
    listed group; the other cards and, per card, its bounded group (-1: free); each
    bounded group's bounds, its ``removed`` (None: none) and the largest weight a split
    of it can have (``y! / (y + removed)!`` a place, as ``best_of / best``); and
    ``fewest``, the least ``prod(c!)`` over the room ``c`` a proposal may leave the other
    cards (so a proposal's weight, ``fewest / prod(c!)``, never passes 1)."""

    __slots__ = ("ways", "rest", "owner", "bounded", "fewest", "_weighed")

    #: The combinations of the listed groups' splits looked through for ``fewest`` (beyond,
    #: a bound over every room that fits the places: as exact, more proposals refused).
    COMBINATIONS = 20_000

    def __init__(self, sampler: DealSampler) -> None:
        fact = math.factorial
        self.ways: list[tuple[tuple[int, ...], list[tuple[int, ...]]]] = []
        rest, owner = list(sampler.free), [-1] * len(sampler.free)
        self.bounded: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None, int, int]] = []
        splits: list[list[tuple[int, ...]]] = []
        for (labels, low, high, removed), listed in zip(sampler.groups, sampler._listed):
            if listed is not None:
                self.ways.append((labels, [way for ways in listed.values() for way in ways]))
                splits.append(list(listed))
                continue
            owner += [len(self.bounded)] * len(labels)
            rest += labels
            best = best_of = 1
            if any(removed):  # y!/(y+r)! falls with y when r >= 0, grows when r < 0
                for lo, hi, r in zip(low, high, removed):
                    y = lo if r >= 0 else hi
                    best *= fact(y)
                    best_of *= fact(y + r)
            self.bounded.append((low, high, removed if any(removed) else None, best, best_of))
        self.rest, self.owner = tuple(rest), tuple(owner)
        sizes = sampler.sizes
        self.fewest = 0
        if math.prod(len(options) for options in splits) <= self.COMBINATIONS:  # every room a proposal leaves
            for combination in itertools.product(*splits):
                room = [size - sum(split[d] for split in combination) for d, size in enumerate(sizes)]
                if min(room, default=0) >= 0:
                    weight = math.prod(fact(c) for c in room)
                    self.fewest = weight if not self.fewest else min(self.fewest, weight)
        if not self.fewest:  # the rest spread as evenly as the places allow: the least product
            room = [0] * len(sizes)
            heap = [(0, d) for d, size in enumerate(sizes) if size > 0]
            heapq.heapify(heap)
            for _ in range(len(rest)):
                taken, d = heapq.heappop(heap)
                room[d] += 1
                if room[d] < sizes[d]:
                    heapq.heappush(heap, (room[d], d))
            self.fewest = math.prod(fact(c) for c in room)
        self._weighed: dict[tuple[int, ...], int] = {}

    def weigh_room(self, room: list[int]) -> tuple[int, int]:
        """``(fewest, prod(c!))`` for the room left: how likely the proposal is to be kept,
        as a fraction (1 where no listed group moves the room)."""
        if not self.ways:
            return 1, 1
        key = tuple(room)
        product = self._weighed.get(key)
        if product is None:
            product = math.prod(math.factorial(c) for c in room)
            if len(self._weighed) < 4096:
                self._weighed[key] = product
        return self.fewest, product


#: ``_BOUND[r]``: Huber and Law's bound on a row of ``r`` ones, ``h(r) / e`` with
#: ``h(r) = r + ln(r) / 2 + e - 1`` (``h(0) = 0``): the permanent of a 0/1 matrix is at
#: most the product of its rows' bounds, and for any column ``j`` the bounds of the
#: minors ``A(i, j)`` (row ``i`` and column ``j`` taken out) add up to at most ``A``'s.
_BOUND = [0.0] + [(r + 0.5 * math.log(r) + math.e - 1) / math.e for r in range(1, 257)]
#: ``_SHRINK[r] = h(r - 1) / h(r)``: a row's bound when one of its ``r`` ones goes.
_SHRINK = [0.0] + [_BOUND[r - 1] / _BOUND[r] for r in range(1, 257)]
#: ``log(_BOUND[r])`` (``-inf`` for 0).
_LOG_BOUND = [-math.inf] + [math.log(b) for b in _BOUND[1:]]


class _Block:
    """One independent block of a :class:`MatchingSampler`'s matchings, as a try draws it.

    A place that must hold ``f`` cards of a class keeps its first ``f`` slots for them,
    and a deal is counted once: those slots hold the place's ``f`` lowest cards of the
    class (by their number in the pool), in order, and its other slots only higher ones.

    ``order``: its cards, the fewest slots first; ``links``: each card's slots (bits);
    ``ways``: per class with kept slots in the block, every way its cards fill them (a
    tuple of ``(slot, card)``) and, per way, what it bars from open slots (``(slots,
    cards)`` bits: a place's cards of the class below its highest kept one); a class
    with more than :data:`MOST_WAYS` ways leaves its kept slots open, drawn with the
    others and weighed after (``weighed``: its ``(place, class)`` pairs); ``open_slots``:
    the other slots (bits); ``slot_cards``: per open slot, the cards that may fill it
    (bits), and ``start`` their count; and ``most``: per open slot, the log of the largest
    bound it can have once the kept slots are filled (its cards, less, for each class, the
    fewest of them any of the class's ways takes)."""

    __slots__ = ("order", "links", "ways", "weighed", "open_slots", "slot_cards", "most", "start")

    #: The most ways a class may fill its kept slots of a block in, for them to be listed.
    MOST_WAYS = 5040

    def __init__(self, cards: list[int], links: dict[int, int], slots: list[tuple[int, int | None]]) -> None:
        self.order = sorted(cards, key=lambda k: (links[k].bit_count(), k))
        self.links = links
        slot_cards: dict[int, int] = {}
        for k in cards:
            bits = links[k]
            while bits:
                low = bits & -bits
                j = low.bit_length() - 1
                slot_cards[j] = slot_cards.get(j, 0) | 1 << k
                bits ^= low
        groups: dict[int, list[int]] = {}  # the kept slots by their class (classes share no card)
        for j in sorted(slot_cards):
            kind = slots[j][1]
            if kind is not None:
                groups.setdefault(kind, []).append(j)
        self.ways: list[tuple[list[tuple[tuple[int, int], ...]], list[tuple[tuple[int, int], ...]]]] = []
        self.weighed: set[tuple[int, int]] = set()
        listed = 0
        for kind, members in groups.items():
            ways = _injections(members, slot_cards, [slots[j][0] for j in members], self.MOST_WAYS)
            if ways is None:
                self.weighed |= {(slots[j][0], kind) for j in members}
            else:
                self.ways.append((ways, []))
                listed |= sum(1 << j for j in members)
        self.open_slots = sum(1 << j for j in slot_cards) & ~listed
        open_of: dict[int, int] = {}  # per place, its open slots in the block
        for j in slot_cards:
            if self.open_slots >> j & 1:
                open_of[slots[j][0]] = open_of.get(slots[j][0], 0) | 1 << j
        for ways, bars in self.ways:
            for way in ways:
                kept: dict[int, tuple[int, int]] = {}  # per place: its class's cards, its highest kept card
                for j, k in way:
                    cards_of, top = kept.get(slots[j][0], (0, -1))
                    kept[slots[j][0]] = (cards_of | slot_cards[j], max(top, k))
                bars.append(tuple((open_of[d], cards_of & ((1 << top) - 1)) for d, (cards_of, top) in kept.items()
                                  if d in open_of and cards_of & ((1 << top) - 1)))
        self.slot_cards = {j: cards_of for j, cards_of in slot_cards.items() if not listed >> j & 1}
        #: Per open slot, the cards that may fill it, counted (a try's start when no kept slot is listed).
        self.start = {j: cards_of.bit_count() for j, cards_of in self.slot_cards.items()}
        # an open slot keeps at most its cards less, per class, the fewest of them any way takes
        taken = [[sum(1 << k for _, k in way) for way in ways] for ways, _ in self.ways]
        self.most = {j: _LOG_BOUND[cards_of.bit_count()
                                   - sum(min((way & cards_of).bit_count() for way in ways) for ways in taken)]
                     for j, cards_of in self.slot_cards.items()}


def _bit_indices(mask: int) -> Iterator[int]:
    """The indices of ``mask``'s set bits, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _injections(slots: list[int], slot_cards: dict[int, int], places: list[int],
                most: int) -> list[tuple[tuple[int, int], ...]] | None:
    """Every way to fill ``slots`` (of the ``places``, in order) with distinct cards, each
    from its ``slot_cards``, the cards of a place's slots rising, as ``(slot, card)``
    tuples; None past ``most`` ways."""
    found: list[tuple[tuple[int, int], ...]] = []
    picked: list[tuple[int, int]] = []

    def fill(i: int, used: int) -> bool:
        if i == len(slots):
            found.append(tuple(picked))
            return len(found) <= most
        bits = slot_cards[slots[i]] & ~used
        if i and places[i] == places[i - 1]:  # above the card of the place's slot before
            bits &= ~((2 << picked[-1][1]) - 1)
        while bits:
            low = bits & -bits
            picked.append((slots[i], low.bit_length() - 1))
            if not fill(i + 1, used | low):
                return False
            picked.pop()
            bits ^= low
        return True

    return found if fill(0, 0) else None


class MatchingSampler:
    """Uniform deals of distinct cards where each card may be in some places only and
    some places must hold cards of a class (a family): exact at tables of many small
    places, where :class:`DealSampler`'s counts do not fit and its proposals almost never
    meet every place's need (an exact cover).

    ``sizes``: the slots of each place; ``labels``: the pool, one label a card (two
    equal labels are two cards); ``allowed``: per card, the places it may be in;
    ``classes``: per card, its class; ``needs``: ``(place, class, fewest)`` triples (that
    place holds at least ``fewest`` cards of that class); ``accept``: a test of a whole
    deal (other bounds; per place, its labels), or None.

    A deal is drawn as a perfect matching of the cards onto the slots, each of a
    place's first slots kept for a card of a class it needs; a deal is one matching, the
    kept slots holding the place's lowest cards of the class (by their number in the
    pool) and its open slots only higher ones. The links no perfect matching uses are
    dropped first (Dulmage and Mendelsohn: one matching, then the links on no
    alternating cycle), which splits the matchings into independent blocks (a card that
    must fill one slot is a block of its own). In each block the kept slots are filled
    first, one of the ways their class's cards can fill them, uniform; then the open
    slots by Huber and Law's exact method (2008: each card left in turn takes an open
    slot in proportion to a bound on the matchings left, and the block starts again with
    the probability the bound overstates them); the kept slots' way is kept with the
    probability that makes every matching of the block as likely (the open slots' bound
    over its most). ``accept`` then refuses or keeps the deal. (A class with more than
    ``_Block.MOST_WAYS`` ways to fill its kept slots in a block leaves them to be drawn
    with the open ones, and the deal is then kept with probability ``1 /
    prod(perm(held, fewest))`` over those needs: the matchings behind it.)

    Exact, and fast where the cards' places are alike (a Four Pack table: about a
    millisecond a sample at the median). The bound is loose, and tries seldom kept,
    where many cards may each be in many places that most of the other cards may not:
    with needs, a random table of that shape may take a second a sample; without,
    about half of them (each card in a random share of 8 to 30 places) are refused
    after :data:`MAX_TRIES` tries. A ``deadline`` bounds the time; :data:`MAX_TRIES`
    tries (each block's, each deal's) at most.

    >>> sampler = MatchingSampler([1, 2], [10, 11, 20], [[0, 1], [0, 1], [0, 1]], [1, 1, 2], [(0, 2, 1)])
    >>> sampler.sample(Rng(3))[0]  # place 0 must hold the class-2 card
    [20]
    """

    def __init__(self, sizes: Sequence[int] | npt.NDArray[np.integer[Any]],
                 labels: Sequence[int] | npt.NDArray[np.integer[Any]],
                 allowed: Sequence[Sequence[int] | npt.NDArray[np.integer[Any]]],
                 classes: Sequence[int] | npt.NDArray[np.integer[Any]],
                 needs: Sequence[tuple[int, int, int]] = (),
                 accept: Callable[[list[list[int]]], bool] | None = None) -> None:
        self.sizes = _whole_numbers(sizes, "sizes")
        self.labels = _whole_numbers(labels, "labels")
        if accept is not None and not callable(accept):
            raise FourCardsError(f"accept must be a test of a deal (a callable) or None, not {accept!r:.60}")
        self.accept = accept
        #: As :class:`DealSampler`'s (a caller may set it); unused: one try is short (a few slots' cards each).
        self.deadline: float | None = None
        places, n = len(self.sizes), len(self.labels)
        if any(s < 0 for s in self.sizes):
            raise FourCardsError(f"place sizes must be at least 0, got {self.sizes}")
        if n != sum(self.sizes):
            raise FourCardsError(f"the pool holds {n} cards but the places {sum(self.sizes)} slots")
        if isinstance(allowed, (str, bytes)) or not isinstance(allowed, (Sequence, np.ndarray)):
            raise FourCardsError(f"allowed must be a sequence, one a card, of the places it may be in, "
                                 f"not {allowed!r:.60}")
        self.classes = _whole_numbers(classes, "classes")
        if len(allowed) != n or len(self.classes) != n:
            raise FourCardsError(f"allowed and classes name each of the {n} cards")
        if n >= len(_BOUND):
            raise FourCardsError(f"at most {len(_BOUND) - 1} cards, not {n}")
        masks = []
        for k, places_of in enumerate(allowed):
            mask = 0
            for d in _whole_numbers(places_of, f"allowed[{k}]"):
                if not 0 <= d < places:
                    raise FourCardsError(f"card {k} is allowed in place {_number_text(d)}: places are 0..{places - 1}")
                mask |= 1 << d
            masks.append(mask)
        if isinstance(needs, (str, bytes)) or not isinstance(needs, (Sequence, np.ndarray)):
            raise FourCardsError(f"needs must be a sequence of (place, class, fewest), not {needs!r:.60}")
        wanted: dict[tuple[int, int], int] = {}
        for need in needs:
            if isinstance(need, (str, bytes)) or not isinstance(need, (Sequence, np.ndarray)) or len(need) != 3:
                raise FourCardsError(f"a need is (place, class, fewest), not {need!r:.60}")
            place, kind, fewest = _whole_numbers(need, "a need")
            if not 0 <= place < places or fewest < 0:
                raise FourCardsError(f"a need names a place 0..{places - 1} and at least 0 cards, not "
                                     f"({_number_text(place)}, {_number_text(kind)}, {_number_text(fewest)})")
            if fewest:
                wanted[place, kind] = max(wanted.get((place, kind), 0), fewest)
        #: Per slot, its place and the class it is kept for (None: any card the place allows).
        slots: list[tuple[int, int | None]] = []
        for d, size in enumerate(self.sizes):
            kept = [(kind, fewest) for (place, kind), fewest in sorted(wanted.items()) if place == d]
            if sum(fewest for _, fewest in kept) > size:  # before a list as long as the need is made
                held = sum(fewest for _, fewest in kept)
                raise FourCardsError(f"no deal keeps what the player has seen (place {d} must hold "
                                     f"{_number_text(held)} card{'' if held == 1 else 's'}, and it has "
                                     f"{size} slot{'' if size == 1 else 's'})")
            kinds = [kind for kind, fewest in kept for _ in range(fewest)]
            slots += [(d, kind) for kind in kinds] + [(d, None)] * (size - len(kinds))
        self._slots = slots
        self.needs = tuple((place, kind, fewest) for (place, kind), fewest in sorted(wanted.items()))
        for k, mask in enumerate(masks):
            if not mask & sum(1 << d for d, size in enumerate(self.sizes) if size):
                raise FourCardsError(f"no deal keeps what the player has seen (card {k}, labelled "
                                     f"{_number_text(self.labels[k])}, may be in no place with room)")
        columns = [sum(1 << k for k in range(n) if masks[k] >> d & 1 and (wants is None or self.classes[k] == wants))
                   for d, wants in slots]
        for (d, wants), column in zip(slots, columns):
            if not column:
                raise FourCardsError(f"no deal keeps what the player has seen (no card may fill place {d}"
                                     + ("" if wants is None else f" with one of class {wants}") + ")")
        fits = [sum(1 << j for j, column in enumerate(columns) if column >> k & 1) for k in range(n)]
        #: The independent blocks of the matchings (:class:`_Block`).
        self._blocks: list[_Block] = []
        #: The slots each filled by the one card that can fill them in every matching.
        self._forced: dict[int, int] = {}
        for cards, links in _matching_blocks(fits, columns, self.sizes, slots):
            if len(cards) == 1:
                self._forced[links[cards[0]].bit_length() - 1] = cards[0]
            else:
                self._blocks.append(_Block(cards, links, slots))
        weighed = set().union(*(block.weighed for block in self._blocks))
        #: The needs whose kept slots were drawn with the open ones: a deal is weighed for them.
        self._weighed = tuple(need for need in self.needs if need[:2] in weighed)

    @staticmethod
    def _match_block(block: _Block, rng: Rng, card_of: list[int]) -> bool:
        """One try at a uniform matching of a block, written in ``card_of``; False: start again.

        First the kept slots: each class's cards for its kept slots, one of their ways
        (:attr:`_Block.ways`), uniform. Then the open slots, by Huber and Law's method on
        the cards left: the bound is on the slots, ``prod h(r) / e`` over the open slots
        (``r``: the cards left that may fill it); each card in turn takes an open slot ``i``
        with probability bound(minor without card and slot ``i``) / bound(now), and the try
        ends with the probability left over, so that a matching of the open slots comes
        with probability 1 / bound(the open slots). The kept slots' way is kept with
        probability bound(the open slots) / (the most it can be): each matching of the
        block is then drawn with the same probability."""
        chosen = 0
        barred: dict[int, int] = {}  # per open slot, the cards it may not take in this try
        barred_from: dict[int, int] = {}  # per such card, those slots
        for ways, bars in block.ways:
            way = rng.below(len(ways))
            for j, k in ways[way]:
                card_of[j] = k
                chosen |= 1 << k
            for slot_bits, cards in bars[way]:
                for j in _bit_indices(slot_bits):
                    barred[j] = barred.get(j, 0) | cards
                for k in _bit_indices(cards):
                    barred_from[k] = barred_from.get(k, 0) | slot_bits
        if not chosen:  # no kept slot listed: every open slot's cards are left, at its most
            return MatchingSampler._match_open(block, rng, card_of, dict(block.start), 0)
        sums: dict[int, int] = {}
        over = 0.0  # log(the open slots' bound / its most)
        for j, cards in block.slot_cards.items():
            r = (cards & ~chosen & ~barred.get(j, 0)).bit_count()
            if not r:
                return False
            sums[j] = r
            over += _LOG_BOUND[r] - block.most[j]
        if over > 1e-9:  # never: each class's way takes at least its fewest of the slot's cards
            raise AssertionError(f"an open slots' bound passes its most by {over}")
        if over < 0.0 and rng.next_u64() / 2.0**64 >= math.exp(over):
            return False
        return MatchingSampler._match_open(block, rng, card_of, sums, chosen, barred_from)

    @staticmethod
    def _match_open(block: _Block, rng: Rng, card_of: list[int], sums: dict[int, int], chosen: int,
                    barred_from: dict[int, int] | None = None) -> bool:
        """The open slots of a try (Huber and Law's method on the cards not ``chosen``, each
        open slot's count of them in ``sums``); False: start again."""
        barred_from = barred_from or {}
        open_ = block.open_slots
        bound, shrink = _BOUND, _SHRINK
        for k in block.order:
            if chosen >> k & 1:
                continue
            candidates = block.links[k] & open_ & ~barred_from.get(k, 0)
            if not candidates:
                return False
            slots = []
            while candidates:
                low = candidates & -candidates
                slots.append(low.bit_length() - 1)
                candidates ^= low
            product, zeros = 1.0, 0
            for i in slots:
                if sums[i] == 1:
                    zeros += 1
                else:
                    product *= shrink[sums[i]]
            # the bound of the minor without card k and slot i, over the bound now
            weights = []
            for i in slots:
                r = sums[i]
                if zeros - (r == 1):
                    weights.append(0.0)
                else:
                    weights.append((product if r == 1 else product / shrink[r]) / bound[r])
            total = math.fsum(weights)
            if total > 1.0 + 1e-9:  # Huber and Law's lemma: never (a test checks it on many matrices)
                raise AssertionError(f"the bounds of the minors add up to {total} of the matrix's")
            pick = rng.next_u64() / 2.0**64
            if pick >= total:
                return False
            chosen_slot = slots[-1]
            for i, weight in zip(slots, weights):
                if pick < weight:
                    chosen_slot = i
                    break
                pick -= weight
            card_of[chosen_slot] = k
            open_ &= ~(1 << chosen_slot)
            for i in slots:
                sums[i] -= 1
        return True

    def _draw(self, rng: Rng, budget: list[int], deadline: float | None) -> list[list[int]] | None:
        """A deal (per place, its labels), each block tried until it is drawn, each try taken
        from ``budget[0]``; None when the budget ran out, or the deal was refused by a need's
        weighing or ``accept`` (which take a try too)."""
        card_of = [0] * len(self._slots)
        for j, k in self._forced.items():
            card_of[j] = k
        for block in self._blocks:
            while True:
                if budget[0] <= 0:
                    return None
                budget[0] -= 1
                if deadline is not None and budget[0] % 64 == 0 and time.perf_counter() > deadline:
                    raise SamplingCostError("no deal drawn before the deadline")
                if self._match_block(block, rng, card_of):
                    break
        budget[0] -= 1
        deal: list[list[int]] = [[] for _ in self.sizes]
        for (d, _kind), k in zip(self._slots, card_of):
            deal[d].append(k)
        behind = 1  # the matchings behind this deal: the kept slots' ordered picks (where not listed)
        for place, kind, fewest in self._weighed:
            behind *= math.perm(sum(1 for k in deal[place] if self.classes[k] == kind), fewest)
        if behind > 1 and rng.below(behind):
            return None
        cards = [[self.labels[k] for k in held] for held in deal]
        for held in cards:
            rng.shuffle(held)
        if self.accept is not None:
            kept = self.accept(cards)
            if not isinstance(kept, (bool, np.bool_)):
                raise FourCardsError(f"accept must return True or False, not {type(kept).__name__}")
            if not kept:
                return None
        return cards

    def draw_once(self, rng: Rng | int) -> list[list[int]] | None:
        """One try at a deal: the deal (per place, its cards' labels), or None when the try
        was refused (a block's matching started again, a need's weighing, or ``accept``)."""
        return self._draw(as_rng(rng), [len(self._blocks) + 1], None)  # a try a block, and the deal's

    def sample(self, rng: Rng | int, deadline: float | None = None) -> list[list[int]]:
        """A deal: per place, its cards' labels (uniform among the deals that meet every
        need and that ``accept`` takes); with ``deadline`` (a ``time.perf_counter()``
        value), :class:`SamplingCostError` once it passes. Depends only on ``rng``."""
        rng = as_rng(rng)
        deadline = check_deadline(deadline)
        budget = [MAX_TRIES]
        while budget[0] > 0:
            if deadline is not None and time.perf_counter() > deadline:
                raise SamplingCostError("no deal drawn before the deadline")
            deal = self._draw(rng, budget, deadline)
            if deal is not None:
                return deal
        raise SamplingCostError(f"no deal was drawn in {MAX_TRIES:,} tries (a block's matching, a need's "
                                "weighing or accept refused each): where many cards may each be in many "
                                "places most others may not, the bound overstates the matchings, and "
                                "tries are seldom kept; a deadline bounds the time")


def _number_text(value: int) -> str:
    """A whole number for a message: in full up to 20 digits, else its first digits and length."""
    text = str(value)
    return text if len(text) <= 20 else f"{text[:12]}... ({len(text.lstrip('-'))} digits)"


def _whole_numbers(values: object, what: str) -> tuple[int, ...]:
    """``values`` (a sequence or 1-D array of whole numbers) as a tuple of ints, or a
    :class:`FourCardsError` naming ``what``."""
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "iu":
        return tuple(int(v) for v in values.tolist())
    if (isinstance(values, (str, bytes)) or not isinstance(values, Sequence)
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values)):
        raise FourCardsError(f"{what} must be a sequence of whole numbers, not {values!r:.60}")
    return tuple(int(v) for v in values)


def _matching_blocks(fits: list[int], columns: list[int], sizes: tuple[int, ...],
                     slots: list[tuple[int, int | None]]) -> list[tuple[list[int], dict[int, int]]]:
    """The links (card -> slots, bits) some perfect matching uses, split into independent
    blocks (Dulmage and Mendelsohn): a perfect matching by augmenting paths, then the
    strongly connected parts of the cards' graph (card ``k`` -> the card matched to a slot
    ``k`` may also fill): a link is in some perfect matching when it is in this one or
    joins two cards of one part. A :class:`FourCardsError` when no perfect matching exists."""
    n = len(fits)
    slot_card = [-1] * n
    card_slot = [-1] * n

    def augment(k: int, seen: list[bool]) -> bool:
        stack = [(k, fits[k])]
        path: list[tuple[int, int]] = []
        while stack:
            card, bits = stack[-1]
            if not bits:
                stack.pop()
                if path:
                    path.pop()
                continue
            low = bits & -bits
            stack[-1] = (card, bits ^ low)
            j = low.bit_length() - 1
            if seen[j]:
                continue
            seen[j] = True
            if slot_card[j] < 0:  # an open slot: the path's cards each move to the slot they reached
                path.append((card, j))
                for c, slot in path:
                    slot_card[slot] = c
                    card_slot[c] = slot
                return True
            path.append((card, j))
            stack.append((slot_card[j], fits[slot_card[j]]))
        return False

    for k in sorted(range(n), key=lambda k: (fits[k].bit_count(), k)):
        if not augment(k, [False] * n):
            raise FourCardsError("no deal keeps what the player has seen (the cards cannot fill the places' "
                                 "slots within their bounds)")
    # Tarjan's strongly connected parts, without recursion
    edges = [[slot_card[j] for j in range(n) if fits[k] >> j & 1 and j != card_slot[k]] for k in range(n)]
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    part = [-1] * n
    parts = 0
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, i = work[-1]
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            if i < len(edges[v]):
                work[-1] = (v, i + 1)
                w = edges[v][i]
                if index[w] < 0:
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    part[w] = parts
                    if w == v:
                        break
                parts += 1
    blocks: dict[int, tuple[list[int], dict[int, int]]] = {}
    for k in range(n):
        keep = sum(1 << j for j in range(n)
                   if fits[k] >> j & 1 and (j == card_slot[k] or part[slot_card[j]] == part[k]))
        cards, links = blocks.setdefault(part[k], ([], {}))
        cards.append(k)
        links[k] = keep
    return [blocks[p] for p in sorted(blocks)]
