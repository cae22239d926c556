"""Shipped data and constants match what the rules code derives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fourcards.gangoffour import _deck, _kernels
from fourcards.gangoffour import _reference as ref

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_combination_table_is_regenerated_exactly() -> None:
    assert _kernels.COMBO_MASKS.tobytes() == ref.table_masks()


@pytest.mark.skipif(not (ROOT / "tools" / "generate_tables.py").exists(), reason="source tree only")
def test_generator_check_passes() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "generate_tables.py"), "--check"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_constants_match_the_derived_table() -> None:
    assert ref.NUM_ACTIONS == _deck.NUM_ACTIONS
    assert tuple(ref.KIND_START) == _deck.KIND_START
    assert sum(_deck.CAP) == 64 and len(_deck.NAMES) == 34
    assert _deck.PENALTY_PER_CARD[16] == 5 and len(_deck.PENALTY_PER_CARD) == 17
