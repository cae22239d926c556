"""Benchmarks that print ratios measured in one run (``fourcards bench``).

- :mod:`fourcards.benchmarks.core`: classification, legal plays and batch
  kernels against the call floor and peer evaluators (treys, phevaluator);
- :mod:`fourcards.benchmarks.engine`: the match engine, the C simulator
  against RLCard, ``clone`` and memory;
- :mod:`fourcards.benchmarks.search`: the search bot's speed and strength;
- :mod:`fourcards.benchmarks.costs`: every game's constructor, and tournaments against the same
  matches in a plain loop, every game.
- :mod:`fourcards.benchmarks.saves`: loading saves and snapshots, and a hosted
  action (:mod:`fourcards.hosting`), at 30 and 3,000 actions.

Peers are optional (``pip install "fourcards[bench]"``).  The scripts in the
repository's ``benchmarks/`` folder run these modules.
"""

from __future__ import annotations

from importlib import import_module

from ..errors import FourCardsError

__all__ = ["BENCHMARKS", "DEFAULT_BENCHMARKS", "run_benchmark"]

#: The benchmarks ``fourcards bench`` runs, by module name.
BENCHMARKS = ("core", "engine", "search", "fourcolor", "zangle", "saves", "costs", "strength")
#: Those it runs when none is named (the search's and the strength's take minutes: only when asked).
DEFAULT_BENCHMARKS = ("core", "engine", "fourcolor", "zangle", "saves", "costs")


def run_benchmark(name: str, quick: bool = False) -> None:
    """Run one benchmark module's ``main`` (``quick``: smaller workloads)."""
    if name not in BENCHMARKS:
        raise FourCardsError(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")
    module = import_module(f"{__name__}.{name}")
    if name == "search":
        module.main(["--deals", "2", "--budgets", "5"] if quick else [])
    else:
        module.main(["--quick"] if quick else [])
