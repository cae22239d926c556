"""``python -m fourcards``: the seeded demo."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fourcards.__main__ import demo_lines
from fourcards.cli.demo import next_steps
from fourcards.gangoffour.commands import show_hand
from fourcards.gangoffour.bots import GreedyBot
from fourcards.gangoffour.match import GangOfFour
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
    text = show_hand(2026)  # seat 0 holds M1: the engine's first leads, each holding M1
    first = GangOfFour().new_match(2026)
    assert first.current_player == 0
    allowed = set(first.legal_actions())
    plays = [c for c in legal_plays(deal(2026)[0]) if c.action in allowed]
    assert f"{len(plays)} legal first leads (the first lead of the match must hold M1)" in text
    assert len(plays) == len(allowed) < len(legal_plays(deal(2026)[0]))
    for combo in plays:
        assert f"[{combo.action:5d}] {combo}" in text and "M1" in str(combo)
    other = show_hand(2026, seat=1)
    assert f"{len(legal_plays(deal(2026)[1]))} legal leads (P0 holds M1 and leads first)" in other
    assert isinstance(Combo.parse(str(plays[-1])), Combo)


def test_hand_command_runs() -> None:
    out = subprocess.run([sys.executable, "-m", "fourcards", "hand", "--seed", "3", "--colour", "never"],
                         capture_output=True, text=True, check=True).stdout
    assert out == show_hand(3) + "\n"


@pytest.mark.engine
def test_demo_is_a_seeded_match_between_rule_based_players() -> None:
    lines = demo_lines(5)
    assert lines == demo_lines(5) and lines != demo_lines(6)
    state = GangOfFour().new_match(5)
    bots = [GreedyBot() for _ in range(4)]
    while not state.is_terminal:
        p = state.current_player
        state.apply(bots[p].choose(state.observation(p), state.legal_actions()))
    winners = " and ".join(f"P{w}" for w in state.winners)
    assert lines[-1].startswith(f"Match over: {winners} win")
    plays = [line for line in lines if " passes" not in line and line.startswith("   P")]
    assert len(plays) == sum(1 for r in state.history if type(r).__name__ == "Played")


@pytest.mark.engine
def test_main_command_runs_the_demo() -> None:
    out = subprocess.run([sys.executable, "-m", "fourcards", "--seed", "5", "--colour", "never"],
                         capture_output=True, text=True, check=True).stdout
    lines = demo_lines(5)
    assert out.splitlines()[:len(lines)] == lines
    assert out.splitlines()[len(lines):] == next_steps("gang-of-four")
    assert "fourcards play gang-of-four" in out and "fourcards demo --game four-color" in out
    three = subprocess.run([sys.executable, "-m", "fourcards", "demo", "--players", "3"],
                           capture_output=True, text=True, check=True).stdout
    assert "3 rule-based players" in three and "Match over" in three


def test_docs_cli_has_a_row_for_every_command_and_names_their_options() -> None:
    """A first user's trial (2026-12-05): docs/cli.md's command table had no row for
    ``fourcards serve``, and never named ``--no-progress`` or simulate's ``--target-score``."""
    import argparse
    import re
    from pathlib import Path

    from fourcards.cli import build_parser

    text = (Path(__file__).parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    table = "\n".join(line for line in text.split("\n## ", 1)[0].splitlines() if line.startswith("| `fourcards"))
    commands = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    rows = {command: line.split(" | ")[0] for command in commands.choices for line in table.splitlines()
            if re.search(rf"`fourcards {command}[ `]", line)}
    assert set(commands.choices) - set(rows) == set(), sorted(rows)
    for command in ("simulate", "tournament", "bench"):
        flags = {flag for action in commands.choices[command]._actions for flag in action.option_strings
                 if flag.startswith("--") and flag not in ("--help", "--game", "--batch-size", "--backend",
                                                           "--scheduler")}
        assert {flag for flag in flags if flag not in rows[command]} == set(), (command, rows[command])
