"""Benchmarks that print ratios measured in one run (``fourcards bench``).

- :mod:`fourcards.benchmarks.core`: classification, legal plays and batch
  kernels against the call floor and peer evaluators (treys, phevaluator);
- :mod:`fourcards.benchmarks.engine`: the match engine, the C simulator
  against RLCard, ``clone`` and memory;
- :mod:`fourcards.benchmarks.search`: the search bot's speed and strength.

Peers are optional (``pip install "fourcards[bench]"``).  The scripts in the
repository's ``benchmarks/`` folder run these modules.
"""
