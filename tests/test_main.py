"""``python -m fourcards``: the seeded demo."""

from __future__ import annotations

import subprocess
import sys

from fourcards.__main__ import show_hand
from fourcards.gangoffour import Combo, hand_mask, legal_plays
from fourcards.gangoffour.deal import deal
from fourcards.rng import Rng


def test_rng_matches_published_splitmix64_vectors() -> None:
    rng = Rng(1234567)
    assert [rng.next_u64() for _ in range(3)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423,
    ]


def test_shuffle_and_below_are_stable() -> None:
    rng = Rng(42)
    items = list(range(10))
    rng.shuffle(items)
    assert items == [0, 9, 5, 8, 6, 4, 7, 2, 1, 3]  # the stated Fisher-Yates, pinned
    assert sorted(items) == list(range(10))
    draws = [Rng(5).below(6) for _ in range(3)]
    assert len(set(draws)) == 1


def test_deal_is_seeded_and_conserves_cards() -> None:
    a, b = deal(11), deal(11)
    assert a == b and a != deal(12)
    assert hand_mask([c for hand in a for c in hand]) == (1 << 64) - 1


def test_show_hand_lists_every_legal_lead() -> None:
    text = show_hand(2026)
    hand = deal(2026)[0]
    plays = legal_plays(hand)
    assert f"{len(plays)} legal leads" in text
    for combo in plays:
        assert f"[{combo.action:5d}] {combo}" in text
    assert isinstance(Combo.parse(str(plays[-1])), Combo)


def test_command_runs() -> None:
    out = subprocess.run([sys.executable, "-m", "fourcards", "--seed", "3", "--colour", "never"],
                         capture_output=True, text=True, check=True).stdout
    assert out == show_hand(3) + "\n"
