"""How far a policy imitating the Gang of Four search can go: the search's agreement with itself.

    python benchmarks/bench_imitation_ceiling.py [--matches 40] [--workers 2] [--time-per-move 0.02]
                                                 [--policy FILE] [--seed 10000]

Four search players play ``--matches`` matches; every decision with more than one legal action is
also put to two more search players (other seeds, the same clock) and to the learned policy. Two
searches of one position disagree as often as the search's own noise makes them: that agreement is
the ceiling of a policy fitted to the search's choices (``python -m fourcards.rl.distil``), and the
policy's agreement with a search is how far along it is. Printed by the number of legal actions, and
for the pass-or-play decisions (a pass and one combination) how often each passes.

Run with ``OPENBLAS_NUM_THREADS=1`` so that the policy leaves the searches their cores
(docs/ai/index.md, "How far imitation can go").
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from fourcards.errors import FourCardsError
from fourcards.gangoffour.bots import SearchBot
from fourcards.gangoffour.learned import LearnedBot
from fourcards.gangoffour.match import PASS, GangOfFour

#: One row a decision: legal actions, then the players' choices (PASS or not, same as the first or not).
COLUMNS = ("legal", "pass_or_play", "search_passes", "policy_passes", "searches_agree", "policy_agrees")
BUCKETS = ((2, 2), (3, 5), (6, 10), (11, 30), (31, 100), (101, 100_000))


def play(seed: int, time_per_move: float, policy: str | None) -> np.ndarray:
    """The rows of one match's decisions with a choice."""
    state = GangOfFour().new_match(seed)
    players = [SearchBot(seed=seed * 10 + seat, time_per_move=time_per_move) for seat in range(4)]
    judges = [SearchBot(seed=seed * 10 + 5 + k, time_per_move=time_per_move) for k in range(2)]
    learned = LearnedBot(policy=policy)
    rows = []
    while not state.is_terminal:
        seat = state.current_player
        legal = state.legal_actions()
        observation = state.observation(seat)
        action = players[seat].choose(observation, legal)
        if len(legal) > 1:
            first, second = (judge.choose(observation, legal) for judge in judges)
            chosen = learned.choose(observation, legal)
            rows.append((len(legal), len(legal) == 2 and PASS in legal, first == PASS, chosen == PASS,
                         first == second, chosen == first))
        state.apply(action, seat)
    return np.array(rows, dtype=np.int64).reshape(-1, len(COLUMNS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-per-move", type=float, default=0.02)
    parser.add_argument("--policy", default=None, help="a policy file (default: the shipped one)")
    parser.add_argument("--seed", type=int, default=10_000, help="the first match's seed")
    args = parser.parse_args()
    if args.matches < 1 or args.workers < 1 or not args.time_per_move > 0:
        parser.error("--matches and --workers take a whole number >= 1, --time-per-move seconds above 0")
    try:
        LearnedBot(policy=args.policy)  # a bad policy file is refused here, not in every worker
    except FourCardsError as error:
        parser.error(str(error))
    seeds = range(args.seed, args.seed + args.matches)
    with ProcessPoolExecutor(args.workers) as pool:
        parts = list(pool.map(play, seeds, [args.time_per_move] * len(seeds), [args.policy] * len(seeds)))
    rows = np.concatenate(parts)
    legal, pass_or_play, search_passes, policy_passes, searches_agree, policy_agrees = rows.T
    print(f"{args.matches} matches, {len(rows)} decisions with a choice, search at {args.time_per_move} s a move")
    print(f"{'legal actions':>14s} {'decisions':>10s} {'search with search':>19s} {'policy with search':>19s}")
    for low, high in BUCKETS:
        kept = (legal >= low) & (legal <= high)
        if kept.any():
            print(f"{f'{low}-{high}':>14s} {kept.sum():10d} {searches_agree[kept].mean():19.3f} "
                  f"{policy_agrees[kept].mean():19.3f}")
    print(f"{'all':>14s} {len(rows):10d} {searches_agree.mean():19.3f} {policy_agrees.mean():19.3f}")
    print(f"ceiling reached: {policy_agrees.mean() / max(searches_agree.mean(), 1e-9):.3f} "
          "(the policy's agreement over the search's own)")
    kept = pass_or_play == 1
    if kept.any():
        print(f"pass or play ({kept.sum()} decisions): the search passes {search_passes[kept].mean():.3f}, "
              f"the policy {policy_passes[kept].mean():.3f}; the policy passes where the search plays "
              f"{int(((policy_passes == 1) & (search_passes == 0) & kept).sum())}, plays where it passes "
              f"{int(((policy_passes == 0) & (search_passes == 1) & kept).sum())}")


if __name__ == "__main__":
    main()
