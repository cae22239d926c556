"""Golden seeded playthroughs: replaying the recorded actions reproduces every line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fourcards.engine import Bot
from fourcards.gangoffour.bots import GreedyBot, RandomBot
from fourcards.gangoffour.playthrough import parse_header, record, render

pytestmark = pytest.mark.engine
GOLDEN = sorted((Path(__file__).parent / "golden").glob("gof_*.txt"))


def test_golden_files_exist_for_2_3_and_4_players() -> None:
    players = {parse_header(p.read_text())[0].num_players for p in GOLDEN}
    assert players == {2, 3, 4}


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_replay_reproduces_the_playthrough(path: Path) -> None:
    text = path.read_text()
    game, seed, actions = parse_header(text)
    assert len(actions) > 50
    assert render(game, seed, actions) == text
    state = game.replay(seed, actions)
    assert state.is_terminal
    assert text.splitlines()[-1].endswith("winners " + ",".join(map(str, state.winners)))


def test_the_bots_play_the_recorded_match_again() -> None:
    path = next(p for p in GOLDEN if p.name == "gof_4p.txt")
    game, seed, actions = parse_header(path.read_text())
    bots: list[Bot] = [GreedyBot(), RandomBot(seed + 1), RandomBot(seed + 2), GreedyBot()]
    state, text = record(game, seed, bots)
    assert list(state.actions) == actions and text == path.read_text()


OTHER = sorted((Path(__file__).parent / "golden").glob("[dfz]*_*.txt"))


@pytest.mark.parametrize("path", OTHER, ids=lambda p: p.name)
def test_four_pack_and_duelo_playthroughs_replay(path: Path) -> None:
    from fourcards import playthrough
    from fourcards.duelo import Duelo
    from fourcards.duelo import Rules as DueloRules
    from fourcards.fourpack import FourPack
    from fourcards.fourpack import Rules as PackRules

    text = path.read_text()
    header, seed, actions = playthrough.parse(text)
    from fourcards.fourcolor.game import FourColor
    from fourcards.fourcolor.game import Rules as ColourRules

    rules = {k: v for k, v in header["rules"].items() if k != "deck"}
    game: Any
    if header["game"] == "four-pack":
        game = FourPack(PackRules(**rules))
    elif header["game"] == "duelo":
        game = Duelo(DueloRules(**rules))
    elif header["game"] == "zangle":
        from fourcards.zangle.game import Rules as ZangleRules
        from fourcards.zangle.game import ZangleGame

        zangle_rules = dict(header["rules"])
        zangle_rules["deck"] = tuple(tuple(item) for item in zangle_rules["deck"])
        game = ZangleGame(ZangleRules(**zangle_rules))
    else:
        game = FourColor(ColourRules(**rules))
    assert game.rules_dict() == header["rules"]
    assert len(actions) >= 5 and playthrough.render(game, seed, actions) == text


def test_other_games_have_playthroughs() -> None:
    assert {p.name.split("_")[0] for p in OTHER} == {"duelo", "fourpack", "fourcolor", "zangle"}
