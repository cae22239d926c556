"""Hypothesis strategies for Gang of Four card sets."""

from __future__ import annotations

from hypothesis import strategies as st

from fourcards.gangoffour import _deck
from fourcards.gangoffour.match import Rules

PHYSICAL = list(range(64))


@st.composite
def hand_codes(draw: st.DrawFn, min_size: int = 0, max_size: int = 16) -> list[int]:
    """Card codes of a set of physical cards the deck can hold."""
    bits = draw(st.lists(st.sampled_from(PHYSICAL), unique=True, min_size=min_size, max_size=max_size))
    return [_deck.KIND_OF_BIT[b] for b in bits]


def mask_of(codes: list[int]) -> int:
    return _deck.canonical_from_sum(sum(_deck.BIT[c] for c in codes))


@st.composite
def small_sets(draw: st.DrawFn) -> list[int]:
    """Sets of 1..7 cards biased towards combinations: few values, few colours."""
    values = draw(st.lists(st.integers(1, 10), min_size=1, max_size=5))
    pool = [b for b in PHYSICAL if _deck.VALUE[_deck.KIND_OF_BIT[b]] in values]
    pool += [61, 62, 63] if draw(st.booleans()) else []
    size = draw(st.integers(1, min(7, len(pool))))
    bits = draw(st.lists(st.sampled_from(pool), unique=True, min_size=size, max_size=size))
    return [_deck.KIND_OF_BIT[b] for b in bits]


@st.composite
def meldy_hands(draw: st.DrawFn, size: int = 7) -> list[int]:
    """Four Color count vectors built from melds (mostly complete), then perturbed."""
    from fourcards.fourcolor import _reference as fourcolor

    counts = [0] * 28
    for _ in range(draw(st.integers(0, size))):
        meld = draw(st.sampled_from(fourcolor.MELDS))
        if all(counts[k] + meld.count(k) <= 4 for k in set(meld)):
            for k in meld:
                counts[k] += 1
    for k in draw(st.lists(st.integers(0, 27), max_size=2)):
        if counts[k] < 4:
            counts[k] += 1
    return counts


def gof_rules(targets: tuple[int, ...] = (20, 100)) -> st.SearchStrategy[Rules]:
    """Gang of Four rules: 2-4 players, every option, dealer 0, a target from ``targets``."""
    return st.builds(
        Rules,
        players=st.sampled_from([2, 3, 4]),
        target_score=st.sampled_from(list(targets)),
        pass_is_final=st.booleans(),
        manual_last_card=st.booleans(),
        last_card_may_pass=st.booleans(),
        chinese_dealing=st.booleans(),
        dealer=st.just(0),
    )
