"""Write the golden Gang of Four playthroughs checked in under tests/golden/.

    python tools/generate_playthroughs.py

Each match is played by seeded bots (GreedyBot and RandomBot); the test
suite replays the recorded actions and compares the text.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from fourcards.gangoffour.bots import GreedyBot, RandomBot  # noqa: E402
from fourcards.gangoffour.match import GangOfFour, Rules  # noqa: E402
from fourcards.gangoffour.playthrough import record  # noqa: E402

MATCHES = {
    "gof_4p.txt": (Rules(players=4, target_score=30), 2026, "GRRG"),
    "gof_3p_options.txt": (Rules(players=3, target_score=25, manual_last_card=True,
                                 pass_is_final=True, chinese_dealing=True), 7, "GGR"),
    "gof_2p.txt": (Rules(players=2, target_score=40, last_card_may_pass=True), 11, "GR"),
}


def main() -> None:
    out = ROOT / "tests" / "golden"
    out.mkdir(exist_ok=True)
    for name, (rules, seed, seats) in MATCHES.items():
        bots = [GreedyBot() if s == "G" else RandomBot(seed + p) for p, s in enumerate(seats)]
        state, text = record(GangOfFour(rules), seed, bots)
        (out / name).write_text(text)
        print(f"wrote tests/golden/{name}: {len(state.actions)} actions, {state.round} rounds")


if __name__ == "__main__":
    main()
