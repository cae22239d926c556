"""Train a Gang of Four policy: the trainer ships with the package as
``python -m fourcards.rl.train`` (``--help`` for its options; see
docs/rl-training.md). This file only runs it, for checkouts that had it here."""

import sys

from fourcards.rl.train import main

if __name__ == "__main__":
    sys.exit(main())
