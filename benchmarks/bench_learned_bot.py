"""The learned Gang of Four bot against three greedy bots, and its time a decision.

    python benchmarks/bench_learned_bot.py [--deals 250] [--workers 1] [--policy FILE]

A tournament (:mod:`fourcards.tournament`: every deal played once a rotation
of the seats, so ``4 * deals`` matches) of ``learned,greedy,greedy,greedy``
in the Python engine, with the learned bot's win share and its 95% Wilson
interval, over deals (the tournament's unit) and over matches; then the
learned bot's time a decision (numpy inference, the features included) next
to the greedy bot's, over whole matches.  The same as
``python -m fourcards tournament --game gang-of-four --bots learned,greedy,greedy,greedy --deals 250``
plus the timing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from fourcards.gangoffour.bots import GreedyBot
from fourcards.gangoffour.learned import LearnedBot
from fourcards.gangoffour.match import GangOfFour
from fourcards.tournament import Entrant, run_tournament, wilson_interval


class Timed:
    """A bot whose decisions (with more than one legal action) are timed."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.times: list[float] = []  # wall clock
        self.cpu: list[float] = []  # this thread's CPU time (not the time other processes took the core)

    def choose(self, observation: Any, legal: Any) -> int:
        started, cpu = time.perf_counter(), time.thread_time()
        action: int = self.bot.choose(observation, legal)
        if len(legal) > 1:
            self.times.append(time.perf_counter() - started)
            self.cpu.append(time.thread_time() - cpu)
        return action


def decision_times(policy: str | None, matches: int) -> None:
    learned, greedy = Timed(LearnedBot(policy=policy)), Timed(GreedyBot())
    game = GangOfFour()
    for seed in range(matches):
        state = game.new_match(50_000 + seed)
        bots: list[Any] = [learned, greedy, GreedyBot(), GreedyBot()]
        while not state.is_terminal:
            seat = state.current_player
            state.apply(bots[seat].choose(state.observation(seat), state.legal_actions()), seat)
    for name, timed in (("learned", learned), ("greedy", greedy)):
        for clock, values in (("wall", timed.times), ("CPU", timed.cpu)):
            times = sorted(values)
            print(f"{name:8s} a decision ({clock:4s}): mean {statistics.fmean(times) * 1e3:.3f} ms, median "
                  f"{times[len(times) // 2] * 1e3:.3f} ms, 99th percentile {times[int(len(times) * 0.99)] * 1e3:.3f} "
                  f"ms, max {times[-1] * 1e3:.3f} ms ({len(times)} decisions with a choice)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=250, help="deals, each played in 4 seatings")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--policy", default=None, help="a policy file (default: the shipped one)")
    parser.add_argument("--timing-matches", type=int, default=20)
    args = parser.parse_args()
    options = {} if args.policy is None else {"policy": args.policy}
    entrants = [Entrant.of("learned", **options), Entrant("greedy"), Entrant("greedy"), Entrant("greedy")]
    started = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            result = run_tournament(entrants, args.deals, seed=args.seed, executor=pool)
    else:
        result = run_tournament(entrants, args.deals, seed=args.seed)
    print(result.table())
    learned = result.stats["learned"]
    per_match = wilson_interval(learned.win_rate.mean, learned.matches)
    print(f"\nlearned vs 3 greedy: win share {learned.win_rate.mean:.3f} over {learned.matches} matches "
          f"({args.deals} deals, {time.perf_counter() - started:.0f} s)")
    print(f"  95% Wilson interval over deals:   [{learned.win_rate.low:.3f}, {learned.win_rate.high:.3f}]")
    print(f"  95% Wilson interval over matches: [{per_match.low:.3f}, {per_match.high:.3f}]")
    print(f"  target: share >= 0.30 and the interval's lower end above 0.25 -> "
          f"{'met' if learned.win_rate.mean >= 0.30 and learned.win_rate.low > 0.25 else 'NOT met'}")
    print()
    decision_times(args.policy, args.timing_matches)


if __name__ == "__main__":
    main()
