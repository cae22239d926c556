"""Distil the Gang of Four search into the learned policy (the search as the teacher).

    pip install torch --index-url https://download.pytorch.org/whl/cpu   # torch's CPU build
    python -m fourcards.rl.distil --matches 400 --workers 2 --out distilled.npz
    fourcards tournament --bots "learned:policy=distilled.npz,search,search,search" --deals 25

Search players (:class:`~fourcards.gangoffour.bots.SearchBot`) play whole
matches in every seat; each of their choices with more than one legal action
becomes a lesson: the state tensor, the candidate rows of the legal actions
(:func:`~fourcards.gangoffour.features.action_rows`), and as the target half
the search's choice and half its root visits (how much it looked at each
action). A policy of the learned bot's shape (starting from the shipped one,
or fresh with ``--hidden``) is fitted to them by cross-entropy over the
candidates; about a tenth of the matches is held out, and the epoch with the lowest
held-out loss is written (the same ``.npz`` format as ``python -m
fourcards.rl.train``). With ``--iterations`` the search is repeatable and so
is the whole run (same seed, same torch, same machine); with
``--time-per-move`` it is not.

With ``--rounds R`` the run goes on R - 1 more rounds (DAgger): the policy
fitted so far plays one seat of each match (seat ``i % 4`` of match ``i``)
against three search players, a search player labels each of its positions
without being followed, and the policy is fitted again, from where it was,
to every lesson so far. A policy learnt from the search's positions alone
meets positions the search never reaches once it plays; these rounds teach
it there. The policy file is written after every round.

The matches are the cost (a search a move); the fit takes minutes. With
``--save-lessons FILE`` every lesson so far is written after each round's
matches (:mod:`fourcards.rl.lessons`); with ``--lessons FILE ...`` the first
round plays no matches but fits the lessons of those files (collections made
apart, each with its own ``--seed``), so one collection can be fitted again
with other options::

    python -m fourcards.rl.distil --matches 2000 --workers 2 --save-lessons lessons.npz --out first.npz
    python -m fourcards.rl.distil --lessons lessons.npz --hidden 256 --lr 3e-3 --epochs 10 --out wider.npz

A fit of the same lessons with the same options and torch repeats itself
byte for byte, whatever the teacher's budget was.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FourCardsError, MissingExtraError
from ..gangoffour.bots import SearchBot
from ..gangoffour.features import FEATURE_SIZE, action_rows, observation_tensor
from ..gangoffour.learned import FORMAT, LearnedBot, PolicyWeights, load_policy
from ..gangoffour.match import OBSERVATION_SIZE, GangOfFour
from ..search import MAX_TIME_PER_MOVE
from .._words import escaped
from ..terminal.args import Parser, check_output, int_in, quote
from ._commands import above_0_at_most, check_outputs, file_to_write
from .lessons import LESSONS_FORMAT, Lessons, _joined, header_problem, load_lessons, save_lessons

def _arguments(argv: Sequence[str] | None) -> tuple[Parser, argparse.Namespace]:
    """The command line's parser and arguments, every one checked (the file to write too: nothing made)."""
    parser = Parser(prog="python -m fourcards.rl.distil", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--matches", type=int_in(2, 10**7), default=400,
                        help="matches a round: of four search players in the first, of the policy and three "
                             "search players after it (a tenth of them, at least one, held out; "
                             "default: %(default)s)")
    parser.add_argument("--workers", type=int_in(1, 1024), default=1,
                        help="processes playing them (default: %(default)s)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=int_in(1, 10**7), default=None,
                        help="the search's iterations a move, instead of --time-per-move: the search, and so "
                             "the whole run, repeat themselves (default: none, --time-per-move)")
    budget.add_argument("--time-per-move", type=above_0_at_most(MAX_TIME_PER_MOVE), default=0.02,
                        help="the search's seconds a move (default: %(default)s)")
    parser.add_argument("--epochs", type=int_in(1, 10**4), default=8,
                        help="passes over the lessons a round (default: %(default)s)")
    parser.add_argument("--hidden", type=int_in(1, 4096), default=None,
                        help="a fresh policy of this many units (default: start from the shipped policy)")
    parser.add_argument("--depth", type=int_in(0, 8), default=0,
                        help="with --hidden: this many more layers of half as many units before the output "
                             "(a version 2 policy file; default: %(default)s)")
    parser.add_argument("--lr", type=above_0_at_most(1), default=1e-3,
                        help="Adam's learning rate (default: %(default)s)")
    parser.add_argument("--seed", type=int_in(0, 2**31 - 1), default=1,
                        help="match i of the run is dealt from seed * 10**7 + i; it seeds the fit too (the "
                             "first weights, the held-out tenth, the order of the lessons; default: %(default)s)")
    parser.add_argument("--rounds", type=int_in(1, 1000), default=1,
                        help="rounds of matches: after the first, the policy so far plays one seat and the "
                             "search labels its positions (DAgger; default: %(default)s)")
    parser.add_argument("--out", type=file_to_write, default=Path("distilled_policy.npz"),
                        help="the policy file to write (its folder is made; an existing file only if a policy "
                             "file), after every round (default: %(default)s)")
    parser.add_argument("--lessons", type=file_to_read, nargs="+", default=None, metavar="FILE",
                        help="the first round plays no matches: it fits the lessons saved in these files, "
                             "in this order (--save-lessons); later rounds play --matches each as usual, "
                             "numbered after the files' matches of the same --seed (default: none)")
    parser.add_argument("--save-lessons", type=file_to_write, default=None, metavar="FILE",
                        help="write every lesson so far (those of --lessons too) to this file after each "
                             "round's matches, before fitting (an .npz that --lessons reads; an existing file "
                             "only if empty or one of --lessons; default: none)")
    args = parser.parse_args(argv)
    if args.matches * (args.rounds - (args.lessons is not None)) > 10**7:  # with --lessons: no first round's
        parser.error(f"--matches {args.matches} x --rounds {args.rounds}: at most 10**7 matches a run "
                     "(match i of the run is dealt from seed * 10**7 + i)")
    if args.depth and args.hidden is None:
        parser.error("--depth needs --hidden (it shapes a fresh policy; the shipped one keeps its own layers)")
    for number, path in enumerate(args.lessons or ()):
        if any(_same_file(path, other) for other in args.lessons[:number]):
            parser.error(f"argument --lessons: {escaped(str(path))} is named twice")
    for path in args.lessons or ():  # by their headers: quick, and before torch
        problem = header_problem(path)
        if problem is not None:
            parser.error(f"argument --lessons: {escaped(str(path))}: {problem}")
    outputs = [("--out", args.out, FORMAT)]  # before the matches, not after them
    if args.save_lessons is not None:
        outputs.append(("--save-lessons", args.save_lessons, LESSONS_FORMAT))
    check_outputs(parser, outputs)
    save = args.save_lessons
    if save is not None and save.is_file() and save.stat().st_size and \
            not any(_same_file(save, path) for path in args.lessons or ()):
        parser.error(f"argument --save-lessons: {escaped(str(save))}: a lessons file this run does not read is "
                     "there: name another file, or give it to --lessons to add to its lessons")
    return parser, args


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except (OSError, ValueError):
        return False


def file_to_read(text: str) -> Path:
    """An argparse type: the name of an existing file."""
    path = file_to_write(text)
    try:
        if not path.is_file():  # a FIFO or a device is not read: it could block, or never end
            raise argparse.ArgumentTypeError(f"{quote(text)}: " + (
                "a directory, not a file" if path.is_dir() else "not a regular file" if path.exists()
                else "no such file"))
    except (OSError, ValueError) as error:  # a name too long, a NUL in it
        raise argparse.ArgumentTypeError(f"{quote(text)}: {error}") from None
    return path


try:
    import torch
except ModuleNotFoundError as missing:  # the extra is not installed: say which to install
    _missing = MissingExtraError.of(missing.name or str(missing), "train", __spec__.name if __spec__ else __name__)
    if __name__ == "__main__":  # python -m ...: --help and a bad value first, then one line, no traceback
        _arguments(None)
        print(f"error: {_missing}", file=sys.stderr)
        raise SystemExit(2) from None
    raise _missing from missing

from .train import Policy, save, segment_log_softmax  # noqa: E402 (after torch: the error names distil)

__all__ = ["main", "collect", "fit", "held_out_matches", "Lessons", "load_lessons", "save_lessons",
           "lessons_of_files"]

#: The target's weight on the search's choice (the rest: its root visits).
CHOICE_WEIGHT = 0.5


def collect(seed: int, matches: int, iterations: int | None, time_per_move: float | None,
            learner: str | Path | None = None) -> Lessons:
    """The lessons of ``matches`` matches of four search players (match ``i`` dealt from ``seed + i``).

    With ``learner`` (a policy file) that policy plays seat ``(seed + i) % 4`` of match ``i`` instead, and the
    search player of that seat labels its positions without being followed (``lessons["learner"]``
    marks them)."""
    game = GangOfFour()
    learned = LearnedBot(policy=learner) if learner is not None else None
    own: list[bool] = []
    states: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    counts: list[int] = []
    match_of: list[int] = []
    for index in range(matches):
        bots = [SearchBot(seed=(seed + index) * 8 + seat, iterations=iterations,
                          time_per_move=None if iterations is not None else time_per_move)
                for seat in range(game.num_players)]
        state = game.new_match(seed + index)
        learner_seat = (seed + index) % game.num_players if learned is not None else -1
        while not state.is_terminal:
            seat = state.current_player
            observation, legal = state.observation(seat), state.legal_actions()
            bot = bots[seat]
            searched = bot.searched_moves
            action = bot.choose(observation, legal)
            if len(legal) > 1:
                candidate_rows, actions = action_rows(observation.hand_mask, legal)
                where = {int(a): i for i, a in enumerate(actions)}
                visits = np.zeros(len(actions))
                if bot.searched_moves > searched:
                    for searched_action, count, _reward in bot.last_statistics:
                        if int(searched_action) in where:
                            visits[where[int(searched_action)]] += count
                choice = np.zeros(len(actions))
                choice[where[int(action)]] = 1.0
                target = choice if visits.sum() <= 0 else \
                    CHOICE_WEIGHT * choice + (1 - CHOICE_WEIGHT) * visits / visits.sum()
                states.append(observation_tensor(observation))
                rows.append(candidate_rows)
                targets.append(target.astype(np.float32))
                counts.append(len(actions))
                match_of.append(seed + index)
                own.append(seat == learner_seat)
            if seat == learner_seat and learned is not None:
                action = learned.choose(observation, legal)  # the label above; the policy's own move played
            state.apply(action)
    return {"states": np.array(states, dtype=np.float32).reshape(-1, OBSERVATION_SIZE),
            "rows": np.concatenate(rows) if rows else np.zeros((0, FEATURE_SIZE), np.float32),
            "targets": np.concatenate(targets) if targets else np.zeros(0, np.float32),
            "counts": np.array(counts, dtype=np.int64), "matches": np.array(match_of, dtype=np.int64),
            "learner": np.array(own, dtype=bool)}


def _collect_args(args: tuple[int, int, int | None, float, str | None]) -> Lessons:
    return collect(*args)


def lessons_of_files(paths: Sequence[str | Path]) -> Lessons:
    """The lessons of every file in ``paths`` (:func:`~fourcards.rl.lessons.load_lessons`), one after
    another; a match in two of them (the same file twice, or two collections of one ``--seed``) is refused."""
    parts: list[Lessons] = []
    seen: dict[int, str] = {}
    for path in paths:
        part = load_lessons(path)
        for match in np.unique(part["matches"]).tolist():
            if match in seen:
                raise FourCardsError(f"lessons file {path}: match {match} is in {seen[match]} too (the same file "
                                     "twice, or collections of the same --seed: give each its own)")
        seen.update(dict.fromkeys(np.unique(part["matches"]).tolist(), str(path)))
        parts.append(part)
    return _joined(parts)  # each checked as it was read


def held_out_matches(matches: np.ndarray, seed: int) -> np.ndarray:
    """The matches whose lessons :func:`fit` holds out: about a tenth, each by its own number and ``seed``
    (so a match stays on its side as rounds add lessons), and one at least of two or more."""
    keys = np.array([np.random.default_rng([seed, int(match)]).random() for match in matches])
    held = keys < 0.1
    if len(matches) > 1 and not held.any():
        held[np.argmin(keys)] = True
    return np.asarray(matches)[held]


def fit(lessons: Lessons, epochs: int, seed: int, hidden: int | None = None, lr: float = 1e-3,
        log: Any = print, start_from: PolicyWeights | None = None,
        depth: int = 0) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """A policy fitted to ``lessons``: the weights of its best held-out epoch and that epoch's figures
    (``loss``, ``agreement``: the share of held-out lessons where its top row is the search's choice).
    It starts from ``start_from`` if given, else from a fresh policy of ``hidden`` units (and ``depth``
    more layers of half as many), else from the shipped one."""
    torch.manual_seed(seed)
    generator = np.random.default_rng(seed)
    counts = lessons["counts"]
    start = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    states = torch.from_numpy(lessons["states"])
    rows = torch.from_numpy(lessons["rows"])
    targets = torch.from_numpy(lessons["targets"])
    is_held = np.isin(lessons["matches"], held_out_matches(np.unique(lessons["matches"]), seed))
    train_ids, held_ids = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    if len(held_ids) == 0 or len(train_ids) == 0:
        raise FourCardsError(f"lessons of {len(np.unique(lessons['matches']))} match(es): a tenth of the matches "
                             "(at least one) is held out to measure the fit, so it needs two or more")

    policy = Policy.of(start_from) if start_from is not None else _policy(hidden, depth)
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)

    def loss_of(ids: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        picked = np.concatenate([np.arange(start[i], start[i] + counts[i]) for i in ids])
        owner = torch.from_numpy(np.repeat(np.arange(len(ids)), counts[ids]))
        rows_of = torch.from_numpy(picked)
        scores = policy.scores(states[torch.from_numpy(ids)], rows[rows_of], owner)
        log_p = segment_log_softmax(scores, owner, len(ids))
        target = targets[rows_of]
        loss = -(target * log_p).sum() / len(ids)
        best = torch.full((len(ids),), -math.inf).scatter_reduce(0, owner, scores, "amax", include_self=True)
        top_target = torch.zeros(len(ids)).scatter_reduce(0, owner, target, "amax", include_self=True)
        hit = ((scores == best[owner]) & (target == top_target[owner])).float()
        agreement = torch.zeros(len(ids)).index_add(0, owner, hit).clamp(max=1).mean()
        return loss, agreement

    def held_out() -> dict[str, float]:
        with torch.no_grad():
            parts = [loss_of(chunk) for chunk in np.array_split(held_ids, max(1, len(held_ids) // 4096))]
        sizes = [len(chunk) for chunk in np.array_split(held_ids, max(1, len(held_ids) // 4096))]
        return {"loss": float(np.average([p[0].item() for p in parts], weights=sizes)),
                "agreement": float(np.average([p[1].item() for p in parts], weights=sizes))}

    def report(when: str, figures: dict[str, float]) -> None:
        log(f"{when:9s} held-out loss {figures['loss']:.4f}  agreement with the search {figures['agreement']:.3f}")

    figures = held_out()
    report("start", figures)
    best: tuple[dict[str, float], dict[str, np.ndarray]] = (figures, policy.export())
    for epoch in range(epochs):
        if epoch == max(1, epochs // 2):
            for group in optimizer.param_groups:
                group["lr"] = lr / 3
        order = generator.permutation(train_ids)
        for chunk in np.array_split(order, max(1, len(order) // 512)):
            loss, _ = loss_of(np.sort(chunk))
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
        figures = held_out()
        report(f"epoch {epoch + 1:3d}", figures)
        if figures["loss"] < best[0]["loss"]:
            best = (figures, policy.export())
    return best[1], best[0]


def _policy(hidden: int | None, depth: int = 0) -> Policy:
    """A fresh policy of ``hidden`` units (and half as many in the second layer and ``depth`` more), or
    the shipped one."""
    if hidden is not None:
        return Policy(hidden, max(1, hidden // 2), depth)
    return Policy.of(load_policy())


def _first_new_match(lessons: Lessons | None, seed: int) -> int:
    """The number (from ``seed * 10**7``) of the run's first new match: after every match of that seed's span
    the lessons hold."""
    if lessons is None:
        return 0
    matches = lessons["matches"]
    ours = matches[(matches >= seed * 10**7) & (matches < (seed + 1) * 10**7)]
    return int(ours.max()) - seed * 10**7 + 1 if len(ours) else 0


def _save(lessons: Lessons, path: Path) -> str | None:
    """Write the lessons so far to ``path``; why it could not (None: written). The run goes on without
    them: its matches are not thrown away with the file."""
    try:
        save_lessons(lessons, path)
    except FourCardsError as error:
        problem = f"the lessons were not written: {escaped(str(error))}"
        print(f"warning: {problem}; the policy is fitted and written all the same", file=sys.stderr, flush=True)
        return problem
    print(f"{len(lessons['counts'])} lessons written to {escaped(str(path))}", flush=True)
    return None


def _hold(parser: argparse.ArgumentParser, path: Path) -> Any:
    """Lock ``path``'s lessons for this run (a lock file beside it, held while the process lives): two runs
    writing one lessons file would each write over the other's lessons. None where there are no such locks."""
    try:
        import fcntl
    except ImportError:  # not on Windows: nothing to hold
        return None
    lock = path.with_name(f".{path.name}.lock")
    handle = open(lock, "a")  # noqa: SIM115 (held until the process ends)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        parser.error(f"argument --save-lessons: {escaped(str(path))}: another run is writing its lessons "
                     f"(it holds {escaped(str(lock))})")
    return handle


def _fit_round(args: argparse.Namespace, lessons: Lessons, start_from: PolicyWeights | None) -> None:
    """Fit the policy to ``lessons`` and write it to ``--out``."""
    weights, figures = fit(lessons, args.epochs, args.seed, args.hidden, args.lr, start_from=start_from,
                           depth=args.depth)
    save(weights, args.out)
    print(f"held-out agreement with the search {figures['agreement']:.3f}; policy written to "
          f"{escaped(str(args.out))}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``python -m fourcards.rl.distil --help``)."""
    parser, args = _arguments(argv)
    lessons: Lessons | None = None
    if args.lessons is not None:
        try:
            lessons = lessons_of_files(args.lessons)
        except FourCardsError as error:
            parser.error(f"argument --lessons: {error}")
        matches = len(np.unique(lessons["matches"]))
        if matches < 2:
            parser.error(f"argument --lessons: lessons of {matches} match(es): a tenth of the matches (at least "
                         "one) is held out to measure the fit, so it needs two or more")
    first_match = _first_new_match(lessons, args.seed)  # a new match is never one the files hold
    if first_match + args.matches * (args.rounds - (lessons is not None)) > 10**7:
        parser.error(f"argument --rounds: the files hold matches of --seed {args.seed} up to number "
                     f"{first_match - 1}; {args.rounds - 1} more round(s) of --matches {args.matches} would pass "
                     "10**7 matches of that seed: give another --seed")
    if args.lessons is None or args.rounds > 1:
        try:
            SearchBot(iterations=1)  # the compiled search, or its error
        except RuntimeError as error:
            parser.exit(2, f"{parser.prog}: error: {error}\n")
    check_output(parser, "--out", args.out)  # every argument checked: its folder made now, before the matches
    held = None
    if args.save_lessons is not None:
        check_output(parser, "--save-lessons", args.save_lessons)
        held = _hold(parser, args.save_lessons)
    unsaved: str | None = None
    torch.set_num_threads(1)
    start_from: PolicyWeights | None = None
    for round_ in range(args.rounds):
        started = time.perf_counter()
        if round_ == 0 and lessons is not None:
            print(f"{'' if args.rounds == 1 else 'round 1: '}{len(lessons['counts'])} lessons of "
                  f"{len(np.unique(lessons['matches']))} matches from {len(args.lessons)} lessons file(s)",
                  flush=True)
            if args.save_lessons is not None:  # the files' lessons as one file
                unsaved = _save(lessons, args.save_lessons)
            _fit_round(args, lessons, start_from)
            start_from = load_policy(args.out)
            continue
        learner = str(args.out) if round_ else None
        shares = [args.matches // args.workers + (i < args.matches % args.workers) for i in range(args.workers)]
        played = round_ - (args.lessons is not None)  # rounds of matches before this one
        firsts = np.concatenate([[0], np.cumsum(shares)[:-1]]) + first_match + played * args.matches
        jobs = [(args.seed * 10**7 + int(first), share, args.iterations, args.time_per_move, learner)
                for first, share in zip(firsts, shares) if share]
        if len(jobs) == 1:
            new = _collect_args(jobs[0])
        else:
            with ProcessPoolExecutor(len(jobs)) as pool:
                new = _joined(list(pool.map(_collect_args, jobs)))
        players = "the policy and three search players" if round_ else "four search players"
        print(f"{'' if args.rounds == 1 else f'round {round_ + 1}: '}{len(new['counts'])} lessons from "
              f"{args.matches} matches of {players} in {time.perf_counter() - started:.0f} s", flush=True)
        lessons = new if lessons is None else _joined([lessons, new])
        if args.save_lessons is not None:
            unsaved = _save(lessons, args.save_lessons)
        _fit_round(args, lessons, start_from)
        start_from = load_policy(args.out)
    print(f'evaluate it: fourcards tournament --bots "learned:policy={escaped(str(args.out))},search,search,search" '
          "--deals 25")
    if held is not None:
        held.close()
        Path(held.name).unlink(missing_ok=True)
    if unsaved is not None:
        print(f"{parser.prog}: error: {unsaved}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
