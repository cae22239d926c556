"""Write the golden Gang of Four playthroughs checked in under tests/golden/.

    python tools/generate_playthroughs.py

Each match is played by seeded bots (GreedyBot and RandomBot); the test
suite replays the recorded actions and compares the text.
"""

from __future__ import annotations

from pathlib import Path

from fourcards.gangoffour.bots import GreedyBot, RandomBot
from fourcards.gangoffour.match import GangOfFour, Rules
from fourcards.gangoffour.playthrough import record

ROOT = Path(__file__).resolve().parent.parent

MATCHES = {
    "gof_4p.txt": (Rules(players=4, target_score=30), 2026, "GRRG"),
    "gof_3p_options.txt": (Rules(players=3, target_score=25, manual_last_card=True,
                                 pass_is_final=True, chinese_dealing=True), 7, "GGR"),
    "gof_2p.txt": (Rules(players=2, target_score=40, last_card_may_pass=True), 11, "GR"),
}


def other_games(out: Path) -> None:
    from fourcards import playthrough
    from fourcards.duelo import CategoryBot, Duelo
    from fourcards.duelo import RandomBot as DueloRandom
    from fourcards.fourpack import FourPack, MemoryBot
    from fourcards.fourpack import RandomBot as PackRandom

    files = {
        "fourpack_4p.txt": (FourPack(players=4), 5, [MemoryBot(), PackRandom(1), MemoryBot(), PackRandom(3)]),
        "fourpack_3p_hold.txt": (FourPack(players=3, must_hold_family=True), 6,
                                 [MemoryBot(), MemoryBot(), PackRandom(2)]),
        "duelo_2p.txt": (Duelo(players=2), 7, [CategoryBot(), DueloRandom(1)]),
        "duelo_4p.txt": (Duelo(players=4), 8, [CategoryBot(), DueloRandom(1), CategoryBot(), DueloRandom(3)]),
    }
    from fourcards.fourcolor.bots import GreedyBot as ColourGreedy
    from fourcards.fourcolor.bots import RandomBot as ColourRandom
    from fourcards.fourcolor.game import FourColor

    files["fourcolor_4p.txt"] = (FourColor(players=4, rounds=1), 9,
                                 [ColourGreedy(), ColourRandom(1), ColourGreedy(), ColourRandom(3)])
    files["fourcolor_2p.txt"] = (FourColor(players=2, rounds=2), 10, [ColourGreedy(), ColourRandom(1)])
    from fourcards.zangle.bots import GreedyBot as ZangleGreedy
    from fourcards.zangle.bots import RandomBot as ZangleRandom
    from fourcards.zangle.game import ZangleGame

    files["zangle_3p.txt"] = (ZangleGame(players=3), 12, [ZangleGreedy(), ZangleRandom(1), ZangleGreedy()])
    files["zangle_solitaire.txt"] = (ZangleGame(mode="solitaire"), 13, [ZangleGreedy()])
    for name, (game, seed, bots) in files.items():
        text = playthrough.record(game, seed, bots)
        (out / name).write_text(text)
        print(f"wrote tests/golden/{name}: {len(text.splitlines()) - 2} actions")


def main() -> None:
    out = ROOT / "tests" / "golden"
    out.mkdir(exist_ok=True)
    other_games(out)
    for name, (rules, seed, seats) in MATCHES.items():
        bots = [GreedyBot() if s == "G" else RandomBot(seed + p) for p, s in enumerate(seats)]
        state, text = record(GangOfFour(rules), seed, bots)
        (out / name).write_text(text)
        print(f"wrote tests/golden/{name}: {len(state.actions)} actions, {state.round} rounds")


if __name__ == "__main__":
    main()
