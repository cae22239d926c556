"""The exact sampler behind every game's ``resample`` (``fourcards.sampling``),
against brute force: on small pools it counts the arrangements within the bounds
exactly, and draws each of them equally often (chi-square)."""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fourcards import sampling
from fourcards.errors import FourCardsError, InvalidTypeError
from fourcards.rng import Rng
from fourcards.sampling import MAX_TRIES, DealSampler, Group, Placements, below_big

from .stats import chi_square, expected_counts, gamma_q


def brute_force(sizes: list[int], free: list[int], groups: list[Group]) -> Counter[tuple[tuple[int, ...], ...]]:
    """Every shuffle of the pool (cards told apart by their index) into the slots,
    kept when each group's bounds hold; counted by what it deals (labels per place)."""
    cards = [(label, -1) for label in free]
    for g, group in enumerate(groups):
        cards += [(label, g) for label in group.labels]
    found: Counter[tuple[tuple[int, ...], ...]] = Counter()
    for order in itertools.permutations(range(len(cards))):
        deal, start = [], 0
        for size in sizes:
            deal.append([cards[i] for i in order[start:start + size]])
            start += size
        ok = True
        for g, group in enumerate(groups):
            for d, place in enumerate(deal):
                held = sum(1 for _, owner in place if owner == g)
                low = 0 if group.low is None else group.low[d]
                high = len(group.labels) if group.high is None else group.high[d]
                ok = ok and low <= held <= high
        if ok:
            found[tuple(tuple(label for label, _ in place) for place in deal)] += 1
    return found


CASES = [
    ([2, 2], [1, 2, 3], [Group((9,), low=(1, 0))]),
    ([2, 1, 3], [1, 1, 2], [Group((5, 5), low=(1, 0, 0)), Group((7,), high=(0, 1, 0))]),
    ([3, 3], [4], [Group((1, 2), high=(0, 2)), Group((3, 3, 3), low=(1, 1))]),
    ([1, 2, 3], [], [Group((1, 2, 3), high=(1, 0, 3)), Group((4, 4, 5), low=(0, 1, 0))]),
]


@pytest.mark.parametrize("sizes, free, groups", CASES)
def test_the_count_is_the_brute_force_count(sizes: list[int], free: list[int], groups: list[Group]) -> None:
    sampler = DealSampler(sizes, free, groups)
    assert sampler.count() == sum(brute_force(sizes, free, groups).values())


@pytest.mark.parametrize("engine", ["grid", "exact", "propose"])
@pytest.mark.parametrize("sizes, free, groups", CASES)
def test_every_deal_within_the_bounds_comes_up_as_often(sizes: list[int], free: list[int], groups: list[Group],
                                                       engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways of counting: in floats over the whole grid of used slots, and in
    exact integers over the states reached (for grids too large); and by proposal."""
    if engine == "exact":
        monkeypatch.setattr(sampling, "GRID_CELLS", 0)
    weights = brute_force(sizes, free, groups)
    if engine == "propose":
        sampler = DealSampler(sizes, free, groups, method="propose")
    else:
        sampler = DealSampler(sizes, free, groups)
        sampler._prepare()
        assert (sampler._grid is not None) == (engine == "grid")
    rng = Rng(2026)
    samples = max(2000, 12 * len(weights))
    seen = Counter(tuple(tuple(place) for place in sampler.sample(rng)) for _ in range(samples))
    statistic, df, p = chi_square(seen, expected_counts(weights, samples))
    assert p > 1e-4, (statistic, df, p)
    assert (sampler._memo is None) == (engine == "propose")  # a proposal counts nothing


@pytest.mark.parametrize("method", ["count", "propose"])
def test_accept_keeps_the_draws_uniform_over_the_deals_it_takes(method: str) -> None:
    sizes, free = [2, 2], [1, 2, 3, 4]
    weights = Counter({k: v for k, v in brute_force(sizes, free, []).items() if 1 not in k[0]})

    sampler = DealSampler(sizes, free, accept=lambda deal: 1 not in deal[0], method=method)
    rng = Rng(7)
    seen = Counter(tuple(tuple(place) for place in sampler.sample(rng)) for _ in range(3000))
    assert chi_square(seen, expected_counts(weights, 3000))[2] > 1e-4


@pytest.mark.parametrize("engine", ["grid", "exact", "propose"])
def test_listed_placements_draw_exactly_the_deals_a_test_of_the_whole_deal_would_take(
        engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A condition on cards together (place 0 holds one or two of 7, 8, 9 and place 2 none of
    8): every allowed way listed, nothing refused, the same deals as ``accept`` keeps."""
    if engine == "exact":
        monkeypatch.setattr(sampling, "GRID_CELLS", 0)
    sizes, free, together = [2, 2, 2], [1, 2, 3], (7, 8, 9)

    def keeps(deal: Sequence[Sequence[int]]) -> bool:
        return 1 <= sum(label in together for label in deal[0]) <= 2 and 8 not in deal[2]

    weights = Counter({k: v for k, v in brute_force(sizes, free + list(together), []).items() if keeps(k)})
    ways = tuple(way for way in itertools.product(range(3), repeat=3)
                 if 1 <= way.count(0) <= 2 and way[1] != 2)
    method = "propose" if engine == "propose" else "auto"
    sampler = DealSampler(sizes, free, [Placements(together, ways)], method=method)
    if engine != "propose":
        assert sampler.count() == sum(weights.values())
    rng = Rng(11)
    samples = max(3000, 12 * len(weights))
    seen = Counter(tuple(tuple(place) for place in sampler.sample(rng)) for _ in range(samples))
    assert set(seen) <= set(weights)
    assert chi_square(seen, expected_counts(weights, samples))[2] > 1e-4
    with pytest.raises(ValueError, match="names a place of each"):
        DealSampler(sizes, free, [Placements(together, ((0, 1),))])
    with pytest.raises(FourCardsError, match="no allowed placement"):
        DealSampler(sizes, free, [Placements(together, ())])


def test_a_sample_that_costs_too_much_is_a_sampling_cost_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reviewer's trial: Four Pack at 16 seats refused costly draws for 45 s before giving up
    with a plain FourCardsError, which its search did not catch (it falls back to its rule bot on
    a SamplingCostError). Refusing is bounded by the splits weighed, counting by them too."""
    monkeypatch.setattr(sampling, "MAX_WORK", 10_000)
    groups = [Group((2 * g, 2 * g + 1)) for g in range(8)]
    never = DealSampler([8, 8], [], groups, accept=lambda deal: False)
    with pytest.raises(sampling.SamplingCostError, match="splits weighed"):
        never.sample(Rng(1))
    assert never._draw_work <= 10_000 + 8 * 3
    groups = [Group(tuple(range(3 * g, 3 * g + 3)), high=(3, 3, 1)) for g in range(8)]
    big = DealSampler([8, 8, 8], [], groups, method="count")
    monkeypatch.setattr(sampling, "GRID_CELLS", 0)  # the exact count, in integers
    monkeypatch.setattr(sampling, "MAX_WORK", 200)
    with pytest.raises(sampling.SamplingCostError, match="splits to weigh"):
        big.sample(Rng(1))
    # by default a count too large to make is let go, and the deal drawn by proposal
    auto = DealSampler([8, 8, 8], [], groups)
    deal = auto.sample(Rng(1))
    assert auto._uncountable and auto._memo is None and not any(auto._splits.values())
    assert sorted(deal[0] + deal[1] + deal[2]) == list(range(24))
    assert all(sum(card // 3 == g for card in deal[2]) <= 1 for g in range(8))  # the bounds kept
    assert auto.sample(Rng(1)) == deal  # the same generator, the same deal


class LateClock:
    """A stand-in for :mod:`time` in :mod:`fourcards.sampling`: the first look of a sample is
    before its deadline (1.0), every later one after it, so a test stops a sample mid-way
    whatever the machine's speed."""

    def __init__(self) -> None:
        self.looks = 0

    def perf_counter(self) -> float:
        self.looks += 1
        return 0.0 if self.looks == 1 else 2.0


def test_listing_the_splits_of_a_group_keeps_to_the_deadline_and_the_work_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A first user's trial: a server table of 32 Four Pack search bots took 30 to 80 s a decision
    on a 0.05 s clock; the splits of a group over 32 seats (C(g + 31, 31) of them) were listed
    before any deadline or work bound was looked at."""
    sizes = [4] * 32
    wide = [Group(tuple(range(8 * g, 8 * g + 8))) for g in range(16)]  # 8 cards a group, over 32 places
    late = DealSampler(sizes, [], wide, method="count")
    monkeypatch.setattr(sampling, "time", LateClock())
    with pytest.raises(sampling.SamplingCostError, match="deadline"):
        late.sample(Rng(1), deadline=1.0)
    assert 0 < late._work <= 2 * 2048  # stopped at its first look while listing, not after every split
    monkeypatch.setattr(sampling, "MAX_WORK", 5_000)
    bounded = DealSampler(sizes, [], wide, method="count")
    with pytest.raises(sampling.SamplingCostError, match="splits to weigh"):
        bounded.count()
    assert bounded._work <= 5_000 + 256


def test_the_splits_a_sampler_lists_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reviewer's trial: with no clock (``iterations``), a 32-seat sample listed up to
    MAX_WORK splits before it was refused, 630 MB at its peak; the splits are half a kilobyte
    each, so their number is bounded on its own."""
    monkeypatch.setattr(sampling, "MAX_SPLITS", 1_000)
    wide = DealSampler([4] * 32, list(range(6, 128)), [Group(tuple(range(6)))], method="count")
    with pytest.raises(sampling.SamplingCostError, match="1,000 splits to list"):
        wide.sample(Rng(1))
    assert wide._listing is not None and len(wide._listing[0]) <= 1_000 + 256
    assert DealSampler([4] * 3, list(range(6, 12)), [Group(tuple(range(6)))]).sample(Rng(1))  # few: drawn


def test_a_listing_stopped_by_the_deadline_goes_on_where_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reviewer's trial: a sample stopped by its deadline while listing splits threw them away
    but counted them, so a sampler sampled again and again under a short clock never got on,
    and at last refused for good ("too large") what a fresh one drew. And the ends of the count
    (up to MAX_MEMO of them) were never looked at against the deadline."""
    sizes, groups, free = [4] * 12, [Group(tuple(range(8)))], list(range(8, 48))
    fresh = DealSampler(sizes, free, groups, method="count")
    fresh.sample(Rng(1))
    stopped = DealSampler(sizes, free, groups, method="count")
    for tries in range(1, 4):
        monkeypatch.setattr(sampling, "time", LateClock())
        with pytest.raises(sampling.SamplingCostError, match="deadline"):
            stopped.sample(Rng(1), deadline=1.0)
        assert 0 < stopped._work <= tries * 2 * 2048 < fresh._work  # stopped while listing
    stopped.sample(Rng(1))  # drawn: the listing went on
    assert stopped._work == fresh._work  # and nothing was listed or weighed twice
    counted = DealSampler([4] * 32, list(range(4, 128)), [Group(tuple(range(4)))], method="count")
    counted._prepare()  # the splits listed: what is left is the count's ends
    listed = counted._work
    clock = LateClock()
    monkeypatch.setattr(sampling, "time", clock)
    with pytest.raises(sampling.SamplingCostError, match="deadline"):
        counted.sample(Rng(1), deadline=1.0)
    assert counted._memo is not None and len(counted._memo) <= 2 * 2048  # stopped at its second look
    # the work a deadline cut off is not charged (it is done again): a count near MAX_WORK is
    # crossed where it would be without the deadline (a reviewer's trial: a cut-off sample made
    # a later one draw by proposal, another deal for the same generator)
    assert counted._work == listed
    monkeypatch.undo()
    again = DealSampler([4] * 32, list(range(4, 128)), [Group(tuple(range(4)))], method="count")
    assert counted.sample(Rng(1)) == again.sample(Rng(1)) and counted._work == again._work


def test_impossible_bounds_are_refused_by_name() -> None:
    with pytest.raises(FourCardsError, match="no deal keeps"):
        DealSampler([1, 1], [2], [Group((1,), low=(1, 1))]).sample(Rng(1))
    with pytest.raises(FourCardsError, match="no deal keeps"):
        DealSampler([1, 1], [], [Group((1, 2), low=(2, 0))]).sample(Rng(1))
    with pytest.raises(FourCardsError, match=f"{MAX_TRIES:,} tries"):
        DealSampler([1, 1], [1, 2], accept=lambda deal: False).sample(Rng(1))
    with pytest.raises(ValueError, match="pool holds 3"):
        DealSampler([1, 1], [1, 2, 3])


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 2**300), st.integers(0, 2**64 - 1))
def test_below_big_stays_below(n: int, seed: int) -> None:
    assert 0 <= below_big(Rng(seed), n) < n


def test_below_big_is_uniform_past_64_bits() -> None:
    n = 3 << 64
    rng = Rng(11)
    thirds = Counter(below_big(rng, n) >> 64 for _ in range(3000))
    assert chi_square(thirds, {0: 1000.0, 1: 1000.0, 2: 1000.0})[2] > 1e-4


def test_the_p_value_is_right() -> None:
    # Q(1, x) = exp(-x); the chi-square 95% point with 3 degrees of freedom is 7.8147
    assert math.isclose(gamma_q(1.0, 2.5), math.exp(-2.5), rel_tol=1e-12)
    assert math.isclose(gamma_q(1.5, 7.8147 / 2), 0.05, rel_tol=1e-4)
    assert math.isclose(gamma_q(10.0, 3.0), 0.9988975118, rel_tol=1e-8)


@pytest.mark.parametrize("engine", ["grid", "exact", "propose"])
def test_removed_copies_weigh_the_deals_behind_a_position(engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals are equally likely, not positions: with ``removed``, a place that gave
    up copies of a card since the deal is as likely to hold the others as the
    deals of the cards it holds and gave up say (brute force over those deals)."""
    sizes, removed = [2, 2, 1], (1, 0, 0)  # place 0 gave up one copy of card 5 since the deal
    pool = [5, 5, 6, 7, 8]
    # every deal: place 0 dealt 3 cards (one of them the 5 it gave up), the others as now
    dealt: Counter[tuple[tuple[int, ...], ...]] = Counter()
    cards = pool + [5]
    for order in itertools.permutations(range(len(cards))):
        hands = [[cards[i] for i in order[0:3]], [cards[i] for i in order[3:5]], [cards[i] for i in order[5:6]]]
        if 5 not in hands[0]:
            continue
        hands[0].remove(5)
        dealt[tuple(tuple(sorted(h)) for h in hands)] += 1
    if engine == "exact":
        monkeypatch.setattr(sampling, "GRID_CELLS", 0)
    sampler = DealSampler(sizes, [6, 7, 8], [Group((5, 5), removed=removed + ())],
                          method="propose" if engine == "propose" else "auto")
    rng = Rng(3)
    seen = Counter(tuple(tuple(sorted(place)) for place in sampler.sample(rng)) for _ in range(6000))
    assert set(seen) == set(dealt)
    assert chi_square(seen, expected_counts(dealt, 6000))[2] > 1e-4
    plain = Counter(tuple(tuple(sorted(place)) for place in DealSampler(sizes, pool).sample(rng)) for _ in range(6000))
    assert chi_square(plain, expected_counts(dealt, 6000))[2] < 1e-6  # without the weights: not the deals' odds


def test_a_sampler_of_many_places_draws_by_proposal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first user's trial: ``resample`` at a 32-seat Four Pack table was refused at 87 of 121
    positions after 2 s each (counting the deals of 31 places runs to millions of partial deals).
    Past MANY_PLACES places with bounds a sampler draws by proposal first."""
    sizes = [1] * 31
    groups = [Group((c,), high=tuple(0 if d in (c, (c + 1) % 31) else 1 for d in range(31))) for c in range(12)]
    sampler = DealSampler(sizes, list(range(12, 31)), groups)
    rng = Rng(4)
    for _ in range(50):
        deal = sampler.sample(rng)
        assert all(deal[c] != [c] and deal[(c + 1) % 31] != [c] for c in range(12))
    assert sampler._memo is None and sampler._work == 0 and not sampler._uncountable
    # few places: counted, as before
    few = DealSampler([2] * 4, [4, 5, 6, 7], [Group((0, 1, 2, 3), high=(0, 2, 2, 2))])
    few.sample(Rng(1))
    assert few._memo is not None
    # many places whose counts fit the grid: a pilot of proposals decides, the same every time
    often = DealSampler([1] * 12, list(range(1, 12)), [Group((0,), high=(0,) * 11 + (1,))])  # kept 1 in 12
    assert often.sample(Rng(1))[11] == [0] and often._plan() == "propose" and often._memo is None

    def seldom() -> DealSampler:  # kept about 1 in 1,320: counted
        pinned = [Group((c,), high=tuple(int(d == c) for d in range(12))) for c in range(3)]
        return DealSampler([1] * 12, list(range(3, 12)), pinned)

    counted = seldom()
    assert counted.sample(Rng(1))[:3] == [[0], [1], [2]] and counted._plan() == "count" and counted._memo is not None
    assert all(seldom()._plan() == "count" for _ in range(3))
    monkeypatch.setattr(sampling, "PROPOSALS_FIRST", 3)  # where the count would not fit the grid: proposals first
    narrow = DealSampler(sizes, list(range(1, 31)), [Group((0,), high=(0,) * 30 + (1,))])
    assert narrow.sample(Rng(1))[30] == [0]
    assert narrow._memo is not None


def test_a_sample_depends_only_on_its_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reviewer's trial: how a sampler of many places drew (proposals first, or the count)
    depended on what it had drawn before, so one information set gave two deals for one seed
    (a 32-seat Four Pack position). The way is now decided from the inputs alone."""
    monkeypatch.setattr(sampling, "PROPOSALS_FIRST", 2)  # some samples go on to the count
    sizes = [2] * 13
    groups = [Group((0, 1, 2, 3), high=(0, 0) + (2,) * 11), Group((4, 5), high=(2,) * 12 + (0,))]

    def fresh() -> DealSampler:
        return DealSampler(sizes, list(range(6, 26)), groups)

    seeds = range(16)
    first = [fresh().sample(Rng(seed)) for seed in seeds]
    used = fresh()
    assert used._plan() == "propose"
    assert [used.sample(Rng(seed)) for seed in seeds] == first  # one sampler, in order
    assert used._memo is not None  # some went on to the count
    counted = fresh()
    counted.count()
    assert [counted.sample(Rng(seed)) for seed in reversed(seeds)] == first[::-1]
    monkeypatch.setattr(sampling, "MAX_WORK", 50)  # the count too large: proposals, the same stream
    uncounted = fresh()
    assert uncounted.sample(Rng(0)) != [] and uncounted._uncountable
    again = [uncounted.sample(Rng(seed)) for seed in seeds]
    assert again == [fresh().sample(Rng(seed)) for seed in seeds]


def test_accept_sees_the_slots_of_a_proposal_in_their_final_order() -> None:
    """A reviewer's trial: a proposal's places were shuffled after ``accept`` looked at them,
    so an ``accept`` that reads the slot order let through deals it refused."""
    sampler = DealSampler([2, 2], [1, 2, 3], [Placements((7,), ((0,), (1,)))],
                          accept=lambda deal: deal[0][0] == 7, method="propose")
    rng = Rng(1)
    assert {tuple(sampler.sample(rng)[0]) for _ in range(200)} == {(7, 1), (7, 2), (7, 3)}


def test_copies_received_in_the_open_weigh_the_deals_both_ways() -> None:
    """``removed`` below 0 (copies a place received in the open): the deals behind a split
    weigh ``y! / (y + removed)!`` a place, heaviest at the most copies (a reviewer's mutation,
    the fewest taken for the heaviest, passed every test)."""
    sizes, removed = [3, 2, 1], (-1, 1, 0)
    labels = [5, 5, 5, 6, 7, 8]
    weights: Counter[tuple[tuple[int, ...], ...]] = Counter()
    for order in itertools.permutations(range(len(labels))):
        hands = [[labels[i] for i in order[0:3]], [labels[i] for i in order[3:5]], [labels[i] for i in order[5:6]]]
        held = [hand.count(5) for hand in hands]
        if held[0] < 1:
            continue  # place 0 received one 5: it holds it
        key = tuple(tuple(sorted(h)) for h in hands)
        weights[key] += math.prod(math.factorial(y) for y in held) * 10**6 // math.prod(
            math.factorial(y + r) for y, r in zip(held, removed))
    for method in ("count", "propose"):
        sampler = DealSampler(sizes, [6, 7, 8], [Group((5, 5, 5), removed=removed)], method=method)
        rng = Rng(8)
        seen = Counter(tuple(tuple(sorted(place)) for place in sampler.sample(rng)) for _ in range(6000))
        assert set(seen) == set(weights)
        assert chi_square(seen, expected_counts(weights, 6000))[2] > 1e-4, method
    # a low below 0 is no bound (it crashed proposals on a factorial of -1)
    loose = DealSampler([2, 2], [1, 2], [Group((5, 5), low=(-1, 0), removed=(1, 0))], method="propose")
    assert sorted(sum(loose.sample(Rng(1)), [])) == [1, 2, 5, 5]


def test_proposals_keep_to_the_deadline_and_fall_back_in_a_single_try(monkeypatch: pytest.MonkeyPatch) -> None:
    never = DealSampler([1, 1], [1, 2], accept=lambda deal: False, method="propose")
    monkeypatch.setattr(sampling, "time", LateClock())
    with pytest.raises(sampling.SamplingCostError, match="deadline"):
        never.sample(Rng(1), deadline=1.0)
    monkeypatch.undo()
    # draw_once, like sample, lets go of a count too large to make (it raised a private error)
    monkeypatch.setattr(sampling, "GRID_CELLS", 0)
    monkeypatch.setattr(sampling, "MAX_WORK", 200)
    big = DealSampler([8, 8, 8], [], [Group(tuple(range(3 * g, 3 * g + 3)), high=(3, 3, 2)) for g in range(8)])
    tries = [big.draw_once(Rng(seed)) for seed in range(100)]
    assert big._uncountable and any(deal is not None for deal in tries)


def test_bounds_no_deal_meets_are_refused_when_the_sampler_is_made() -> None:
    """A reviewer's trial: by proposal, bounds no deal meets spun through 100,000 proposals
    (minutes with a large pool) before a ``too_costly`` error; they are a bad input."""
    for groups in ([Group((5,), low=(1, 1))], [Group((5, 6), high=(0, 1))],
                   [Placements((5, 6, 7), ((0, 0, 0), (1, 1, 1)))]):
        for method in ("count", "propose"):
            with pytest.raises(FourCardsError, match="no deal keeps"):
                DealSampler([2, 2], [1, 2, 3, 4][: 4 - len(groups[0].labels)], groups, method=method)
    fits = DealSampler([2, 2], [1], [Placements((5, 6, 7), ((0, 0, 0), (0, 1, 1)))], method="propose")
    assert fits.sample(Rng(1)) in ([[5, 1], [6, 7]], [[1, 5], [6, 7]], [[5, 1], [7, 6]], [[1, 5], [7, 6]])


def test_a_way_to_draw_is_named() -> None:
    with pytest.raises(FourCardsError, match="method='guess' is not a way to draw: one of auto, count, propose"):
        DealSampler([1], [1], method="guess")
    with pytest.raises(sampling.SamplingCostError, match="100,000 proposals"):
        DealSampler([1, 1], [1, 2], accept=lambda deal: False, method="propose").sample(Rng(1))


def test_a_sampler_refuses_what_is_not_a_deal_by_name() -> None:
    """A first user's trial: ``sizes="12"`` was taken as two places, ``[1.5, 0.5]`` cut to
    whole numbers, ``sample(5)`` failed inside the shuffle, a string deadline in a
    comparison; the refusals were plain ValueErrors and did not name the bound."""
    for sizes in ("12", [1.5, 0.5], [True, 1], None):
        with pytest.raises(FourCardsError, match="sizes must be a sequence of whole numbers"):
            DealSampler(sizes, [1, 2])  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="place sizes must be at least 0"):
        DealSampler([-1, 3], [1, 2])
    with pytest.raises(FourCardsError, match=r"place 1: at least 2, at most 1"):
        DealSampler([2, 2], [1, 2], [Group((5, 6), low=(0, 2), high=(2, 1))])
    sampler = DealSampler([2, 2], [1, 2, 3, 4])
    assert sampler.sample(5) == sampler.sample(Rng(5))  # a seed, as InformationSet.sample takes
    with pytest.raises(InvalidTypeError, match="rng must be a fourcards.rng.Rng or an int seed, not float"):
        sampler.sample(5.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="deadline must be a number, not str"):
        sampler.sample(5, deadline="soon")  # type: ignore[arg-type]
    assert sampler.draw_once(5) == sampler.draw_once(Rng(5))  # it failed inside the shuffle
    for bad in (1.5, None, True):
        with pytest.raises(InvalidTypeError, match="rng must be a fourcards.rng.Rng or an int seed"):
            sampler.draw_once(bad)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="seed=-1 must be in"):
        sampler.sample(-1)
    assert isinstance(FourCardsError("x"), ValueError)


def test_the_pilot_and_the_prediction_are_cheap_and_judge_on_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reviewer's trials: predicting the splits of a group of 16,000 copies took 3.4 s past a
    10 ms deadline; weights past a float's range raised OverflowError on the grid; one early
    kept proposal set a sampler to propose at 1 in 2,000."""
    import time

    many = DealSampler([1] * 9 + [16_000], [], [Group((1,) * 16_009)])
    started = time.perf_counter()
    assert many._grid_work() is not None
    assert time.perf_counter() - started < 1.0
    wide = DealSampler([1] * 7 + [33], [], [Group(tuple(range(40)), high=(1,) * 7 + (40,))])
    assert sorted(sum(wide.sample(Rng(2)), [])) == list(range(40))  # counted in integers
    assert wide._grid is None
    with pytest.raises(FourCardsError, match="deadline=nan"):
        wide.sample(Rng(2), deadline=math.nan)
    monkeypatch.setattr(sampling, "PILOT_KEPT", 1000)
    pinned = [Group((c,), high=tuple(int(d == c) for d in range(12))) for c in range(3)]
    assert DealSampler([1] * 12, list(range(3, 12)), pinned)._plan() == "count"


# -- drawing as a matching (tables of many small hands) -------------------------------------------

def brute_matchings(sizes: list[int], labels: list[int], allowed: list[list[int]], classes: list[int],
                    needs: list[tuple[int, int, int]],
                    accept: Callable[[list[list[int]]], bool] | None = None) -> Counter[tuple[tuple[int, ...], ...]]:
    """Every arrangement of the (distinct) cards in the slots that keeps each card in its
    allowed places, each need met and ``accept`` content; one each."""
    found: Counter[tuple[tuple[int, ...], ...]] = Counter()
    for order in itertools.permutations(range(len(labels))):
        deal, start = [], 0
        for size in sizes:
            deal.append(list(order[start:start + size]))
            start += size
        if not all(d in allowed[k] for d, held in enumerate(deal) for k in held):
            continue
        if not all(sum(classes[k] == kind for k in deal[place]) >= fewest for place, kind, fewest in needs):
            continue
        cards = [[labels[k] for k in held] for held in deal]
        if accept is None or accept(cards):
            found[tuple(tuple(held) for held in cards)] += 1
    return found


def _at_most_one_of_class_0_in_place_1(deal: list[list[int]]) -> bool:
    return sum(label < 20 for label in deal[1]) <= 1


MATCHING_CASES: list[tuple[list[int], list[int], list[list[int]], list[int], list[tuple[int, int, int]],
                           Callable[[list[list[int]]], bool] | None]] = [
    # needs of two classes in one place, one elsewhere; cards kept out of some places
    ([2, 1, 2, 1], [10, 11, 12, 20, 21, 30], [[0, 1, 2, 3], [0, 2], [1, 2, 3], [0, 1, 2, 3], [0, 3], [0, 1, 2, 3]],
     [0, 0, 0, 1, 1, 2], [(0, 0, 1), (2, 1, 1), (2, 0, 1)], None),
    # two of a class in one place; an empty place
    ([3, 0, 2, 1], [10, 11, 12, 20, 21, 30], [[0, 2, 3]] * 6, [0, 0, 0, 1, 1, 2], [(0, 0, 2), (2, 1, 1)], None),
    # pairs every matching holds (a card with one place, a slot one card may fill), and a cap
    ([1, 2, 2, 1], [10, 11, 20, 21, 30, 31], [[0], [1, 2, 3], [1, 2], [0, 1, 2, 3], [1, 2, 3], [2, 3]],
     [0, 0, 1, 1, 2, 2], [(3, 2, 1), (2, 1, 1)], _at_most_one_of_class_0_in_place_1),
    # no need at all: a plain shuffle within the places allowed
    ([2, 2, 1], [1, 2, 3, 4, 5], [[0, 1], [0, 1, 2], [1, 2], [0, 1, 2], [0, 2]], [0, 0, 0, 0, 0], [], None),
    # two places of two slots need the two cards of a class: those cards never fill an open slot
    # (links no matching uses, dropped), and the rest is a block of its own
    ([2, 2, 2], [10, 11, 20, 21, 30, 31], [[0, 1, 2]] * 6, [0, 0, 1, 1, 2, 2], [(0, 0, 1), (1, 0, 1)], None),
    # one class of four cards needed by three places, two of it by one: each place's kept slots hold
    # its lowest cards of the class, its open slots only higher ones (a deal counted once)
    ([3, 2, 2, 1], [10, 11, 12, 13, 20, 21, 30, 31], [[0, 1, 2, 3]] * 4 + [[0, 1, 3], [0, 2, 3], [0, 1, 2, 3],
                                                                         [1, 2, 3]],
     [0, 0, 0, 0, 1, 1, 2, 2], [(0, 0, 2), (1, 0, 1), (2, 0, 1)], None),
]


@pytest.mark.parametrize("case", range(len(MATCHING_CASES)))
def test_a_matching_draws_every_deal_that_meets_the_needs_as_often(case: int) -> None:
    """The matching sampler against brute force: exactly the arrangements within the
    allowed places that meet every need (and ``accept``), each as often (chi-square)."""
    sizes, labels, allowed, classes, needs, accept = MATCHING_CASES[case]
    weights = brute_matchings(sizes, labels, allowed, classes, needs, accept)
    assert weights
    _draws_each_as_often(sampling.MatchingSampler(sizes, labels, allowed, classes, needs, accept), weights,
                         Rng(2026 + case))


def _draws_each_as_often(sampler: sampling.MatchingSampler, weights: Counter[tuple[tuple[int, ...], ...]],
                         rng: Rng) -> None:
    samples = max(3000, 12 * len(weights))
    seen = Counter(tuple(tuple(place) for place in sampler.sample(rng)) for _ in range(samples))
    assert set(seen) == set(weights)
    statistic, df, p = chi_square(seen, expected_counts(weights, samples))
    assert p > 1e-4, (statistic, df, p)


@pytest.mark.parametrize("case", [0, 2, 5])
def test_kept_slots_drawn_with_the_open_ones_and_weighed_draw_the_same_deals(case: int,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a class has too many ways to fill its kept slots to list them
    (``_Block.MOST_WAYS``), its kept slots are drawn with the open ones and each deal is kept
    with probability 1 / (the ordered picks behind it): the same deals, as often."""
    monkeypatch.setattr(sampling._Block, "MOST_WAYS", 1)
    sizes, labels, allowed, classes, needs, accept = MATCHING_CASES[case]
    weights = brute_matchings(sizes, labels, allowed, classes, needs, accept)
    sampler = sampling.MatchingSampler(sizes, labels, allowed, classes, needs, accept)
    assert sampler._weighed and not any(block.ways for block in sampler._blocks)
    _draws_each_as_often(sampler, weights, Rng(7 + case))


def test_the_ways_to_fill_kept_slots_are_the_injections_rising_within_a_place() -> None:
    """``_injections`` lists exactly the ways ``itertools.product`` finds (distinct cards,
    each allowed in its slot, a place's cards rising), in its order, on 500 random inputs;
    past its limit, None."""
    rng = Rng(11)
    for _ in range(500):
        count = 1 + rng.below(4)
        places = sorted(rng.below(3) for _ in range(count))
        slots = list(range(count))
        slot_cards = {j: 1 + rng.below(63) for j in slots}
        options = [[k for k in range(6) if slot_cards[j] >> k & 1] for j in slots]
        every = [tuple(zip(slots, picks)) for picks in itertools.product(*options)
                 if len(set(picks)) == count
                 and all(picks[i] > picks[i - 1] for i in range(1, count) if places[i] == places[i - 1])]
        assert sampling._injections(slots, slot_cards, places, 10**6) == every
        if len(every) > 1:
            assert sampling._injections(slots, slot_cards, places, len(every) - 1) is None


def test_an_open_slots_most_is_the_largest_count_the_kept_slots_leave_it() -> None:
    """A block's ``most`` (an open slot's largest bound once the kept slots are filled) is the
    log bound of its cards less, for each class, the fewest of them one of the class's ways
    takes: the largest count any way of filling every kept slot leaves it (a second user's
    tables, where each card was barred from random places, took seconds a sample with a
    looser one). Against every combination of the ways, on 300 random tables."""
    rng = Rng(23)
    checked = 0
    for _ in range(300):
        places = 2 + rng.below(4)
        size = 1 + rng.below(3)
        n = places * size
        classes = [rng.below(3) for _ in range(n)]
        home = list(range(n))
        allowed = [sorted({k // size} | {d for d in range(places) if rng.below(4)}) for k in home]
        needs = [(d, classes[d * size], 1) for d in range(places) if rng.below(3)]
        try:
            sampler = sampling.MatchingSampler([size] * places, list(range(n)), allowed, classes, needs)
        except FourCardsError:
            continue
        for block in sampler._blocks:
            if not block.ways:
                continue
            for j, cards in block.slot_cards.items():
                left = max(cards.bit_count() - sum((cards >> k & 1) for way in combination for _, k in way)
                           for combination in itertools.product(*(ways for ways, _ in block.ways)))
                assert block.most[j] == sampling._LOG_BOUND[left]
                checked += 1
    assert checked > 100


def test_the_matching_bounds_are_huber_and_laws() -> None:
    """Why a matching is drawn exactly: for 0/1 matrices the product of the rows' bounds
    is at least the permanent, and for any column the minors' bounds add up to at most the
    matrix's (so a try picks each matching with probability 1 / bound, and is refused with
    the rest). Checked on 3,000 random matrices up to 6 x 6, dense to sparse."""
    bound = sampling._BOUND

    def bound_of(matrix: list[list[int]]) -> float:
        return math.prod(bound[sum(row)] for row in matrix)

    def permanent(matrix: list[list[int]]) -> int:
        n = len(matrix)
        return sum(all(matrix[i][p[i]] for i in range(n)) for p in itertools.permutations(range(n)))

    rng = Rng(3)
    for _ in range(3000):
        n = 1 + rng.below(6)
        density = 1 + rng.below(9)
        matrix = [[int(rng.below(10) < density) for _ in range(n)] for _ in range(n)]
        whole = bound_of(matrix)
        assert permanent(matrix) <= whole * (1 + 1e-12)
        for j in range(n):
            minors = sum(bound_of([row[:j] + row[j + 1:] for k, row in enumerate(matrix) if k != i])
                         for i in range(n) if matrix[i][j])
            assert minors <= whole * (1 + 1e-12)


def test_a_matching_sampler_refuses_what_no_deal_meets_and_what_is_not_a_deal_by_name() -> None:
    MatchingSampler = sampling.MatchingSampler
    with pytest.raises(FourCardsError, match="the pool holds 2 cards but the places 3 slots"):
        MatchingSampler([1, 2], [1, 2], [[0, 1]] * 2, [0, 0])
    with pytest.raises(FourCardsError, match="place 1 must hold 2 cards, and it has 1 slot"):
        MatchingSampler([1, 1], [1, 2], [[0, 1]] * 2, [0, 1], [(1, 0, 1), (1, 1, 1)])
    with pytest.raises(FourCardsError, match="no card may fill place 0 with one of class 5"):
        MatchingSampler([1, 1], [1, 2], [[0, 1]] * 2, [0, 1], [(0, 5, 1)])
    with pytest.raises(FourCardsError, match="no deal keeps what the player has seen"):  # two cards, one slot
        MatchingSampler([1, 1], [1, 2], [[0], [0]], [0, 0])
    with pytest.raises(FourCardsError, match="card 1 is allowed in place 2: places are 0..1"):
        MatchingSampler([1, 1], [1, 2], [[0], [2]], [0, 0])
    with pytest.raises(FourCardsError, match="allowed and classes name each of the 2 cards"):
        MatchingSampler([1, 1], [1, 2], [[0, 1]], [0, 0])
    for bad in ("12", [1.5, 0.5], [True, 1], None):
        with pytest.raises(FourCardsError, match="sizes must be a sequence of whole numbers"):
            MatchingSampler(bad, [1, 2], [[0], [1]], [0, 0])  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="allowed must be a sequence"):
        MatchingSampler([1, 1], [1, 2], None, [0, 0])  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match=r"allowed\[0\] must be a sequence of whole numbers"):
        MatchingSampler([1, 1], [1, 2], [[0.0], [1]], [0, 0])  # type: ignore[list-item]
    with pytest.raises(FourCardsError, match="classes must be a sequence of whole numbers"):
        MatchingSampler([1, 1], [1, 2], [[0], [1]], "ab")  # type: ignore[arg-type]
    for need in ((0, 0), "abc", (0, 0, 1.0)):
        with pytest.raises(FourCardsError, match="need"):
            MatchingSampler([1, 1], [1, 2], [[0, 1], [0, 1]], [0, 0], [need])  # type: ignore[list-item]
    with pytest.raises(FourCardsError, match="a need names a place 0..1"):
        MatchingSampler([1, 1], [1, 2], [[0, 1], [0, 1]], [0, 0], [(2, 0, 1)])
    with pytest.raises(FourCardsError, match=r"place 0 must hold 100000000000\.\.\. \(31 digits\) cards, and it has"):
        MatchingSampler([1, 2], [10, 11, 20], [[0, 1]] * 3, [1, 1, 2], [(0, 2, 10**30)])  # at once, not out of memory
    with pytest.raises(FourCardsError, match="needs must be a sequence"):
        MatchingSampler([1, 1], [1, 2], [[0, 1]] * 2, [0, 0], None)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="accept must be a test of a deal"):
        MatchingSampler([1, 1], [1, 2], [[0, 1]] * 2, [0, 0], accept=5)  # type: ignore[arg-type]
    for labels in ("ab", [1.0, 2], [None, 2], [True, False], [[1], [2]], np.array([[1, 2]])):
        with pytest.raises(FourCardsError, match="labels must be a sequence of whole numbers"):
            MatchingSampler([1, 1], labels, [[0, 1]] * 2, [0, 0])  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match=r"card 2 is allowed in place 100000000000\.\.\. \(31 digits\)"):
        MatchingSampler([1, 1, 1], [10, 11, 20], [[0, 1], [0, 1], [10**30]], [0, 0, 0])
    with pytest.raises(FourCardsError, match="accept must return True or False, not str"):
        MatchingSampler([1, 1], [1, 2], [[0, 1]] * 2, [0, 0], accept=lambda deal: "no").sample(1)  # type: ignore
    with pytest.raises(FourCardsError, match=r"card 0, labelled 1, may be in no place with room"):
        MatchingSampler([0, 1, 1], [1, 2], [[0], [1, 2]], [0, 0])
    arrays = MatchingSampler(np.array([1, 1]), np.array([1, 2]), [np.array([0, 1])] * 2, np.array([0, 0]))
    assert sorted(sum(arrays.sample(3), [])) == [1, 2]
    free = MatchingSampler([2, 2], [1, 2, 3, 4], [[0, 1]] * 4, [0] * 4)
    assert free.sample(5) == free.sample(Rng(5)) and free.draw_once(7) == free.draw_once(Rng(7))
    with pytest.raises(InvalidTypeError, match="deadline must be a number"):
        free.sample(5, deadline="soon")  # type: ignore[arg-type]
    with pytest.raises(sampling.SamplingCostError, match="deadline"):
        free.sample(5, deadline=0.0)
    never = MatchingSampler([1, 1], [1, 2], [[0, 1]] * 2, [0, 0], accept=lambda deal: False)
    with pytest.raises(sampling.SamplingCostError, match="no deal was drawn in 100,000 tries"):
        never.sample(1)


def test_the_links_a_matching_may_use_are_the_links_some_perfect_matching_uses() -> None:
    """The blocks the matching sampler draws independently (Dulmage and Mendelsohn) keep a
    link exactly when some perfect matching uses it, on 400 random bipartite graphs of up
    to 6 cards, against every permutation; and no perfect matching is a FourCardsError."""
    rng = Rng(17)
    checked = 0
    for _ in range(400):
        n = 1 + rng.below(6)
        fits = [sum(1 << j for j in range(n) if rng.below(10) < 5) for _ in range(n)]
        columns = [sum(1 << k for k in range(n) if fits[k] >> j & 1) for j in range(n)]
        used = [0] * n
        for order in itertools.permutations(range(n)):
            if all(fits[k] >> order[k] & 1 for k in range(n)):
                for k in range(n):
                    used[k] |= 1 << order[k]
        slots: list[tuple[int, int | None]] = [(0, None)] * n
        if not any(used):
            with pytest.raises(FourCardsError, match="cannot fill"):
                sampling._matching_blocks(fits, columns, (n,), slots)
            continue
        blocks = sampling._matching_blocks(fits, columns, (n,), slots)
        links = {k: bits for _, block in blocks for k, bits in block.items()}
        assert sorted(k for cards, _ in blocks for k in cards) == list(range(n))
        assert [links[k] for k in range(n)] == used
        for cards, block in blocks:  # a block's cards fill its own slots only
            slots_of = {j for k in cards for j in range(n) if block[k] >> j & 1}
            assert len(slots_of) == len(cards)
        checked += 1
    assert checked > 100


def test_a_matching_sampler_draws_what_a_try_a_card_would_almost_never_meet() -> None:
    """A first user's trial: 24 places of two slots, each needing a card of a class of four
    cards that four places need: no deal in 100,000 tries (2.4 s), 12 s at 32 places of three.
    The links no matching uses are dropped, and each block drawn on its own: a sample in
    about a millisecond."""
    for places, size in ((24, 2), (32, 3)):
        n = places * size
        sampler = sampling.MatchingSampler([size] * places, list(range(n)), [list(range(places))] * n,
                                           [k // 4 for k in range(n)], [(d, d // 4, 1) for d in range(places)])
        rng = Rng(5)
        for _ in range(20):
            deal = sampler.sample(rng, deadline=time.perf_counter() + 5)
            assert all(any(k // 4 == d // 4 for k in held) for d, held in enumerate(deal))


def test_a_matching_sampler_draws_where_kept_slots_compete_with_many_open_ones() -> None:
    """The limit the twelfth session left: 30 places of two slots, each needing one of the two
    cards of a class of its own, which could also fill any of 30 open slots. Drawn card by
    card, the bound counted both cards of a class for every open slot, overstating the
    matchings about 10**8 times: no deal in 100,000 tries. The kept slots are now filled
    first, one of their ways each, and the open slots drawn from the cards left."""
    places = 30
    n = 2 * places
    sampler = sampling.MatchingSampler([2] * places, list(range(n)), [list(range(places))] * n,
                                       [k // 2 for k in range(n)], [(d, d, 1) for d in range(places)])
    assert not sampler._weighed and len(sampler._blocks) == 1
    rng = Rng(3)
    both = 0
    for _ in range(200):
        deal = sampler.sample(rng, deadline=time.perf_counter() + 5)
        assert all(any(k // 2 == d for k in held) for d, held in enumerate(deal))
        both += sum(held[0] // 2 == held[1] // 2 for held in deal)
    # exactly, half a place a deal holds both cards of its class (counted with derangements:
    # 100 expected of 200 deals, about Poisson); each place 1 time in 60
    assert 65 <= both <= 135


def test_a_matching_sampler_spends_its_tries_on_whole_deals_too() -> None:
    """A first user's trial: one deal exists (place 0 holds three of the four class-1 cards,
    kept with probability 1/24 by the needs' weighing), yet ``sample`` was refused ("100,000
    tries") for 287 of 20,000 seeds within a millisecond: a refused whole deal was counted as
    1,000 tries."""
    sampler = sampling.MatchingSampler([4], [1, 2, 3, 4], [[0]] * 4, [1] * 4, [(0, 1, 3)])
    for seed in range(3000):
        assert sorted(sampler.sample(seed)[0]) == [1, 2, 3, 4]
