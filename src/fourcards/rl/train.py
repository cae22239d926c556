"""Train a Gang of Four policy against three greedy bots, and export it for numpy.

    pip install torch --index-url https://download.pytorch.org/whl/cpu   # torch's CPU build
    pip install "fourcards[train]"                                       # matplotlib, ...
    python -m fourcards.rl.train --updates 600 --seed 1 --out my_policy.npz --curve curve.png
    fourcards tournament --bots "learned:policy=my_policy.npz,greedy,greedy,greedy" --deals 300

The policy scores candidate actions (:mod:`fourcards.rl.candidates`): each
legal action is a row of 50 features (its cards, kind, rank, the cards it
leaves...), scored by a small MLP next to the 217 features of the state
(``score = w3 . relu(W2 relu(Ws state + Wc row + b1) + b2) + b3``), and the
action is drawn from the softmax over the rows.  A separate MLP of the state
is the value baseline.  The matches run in C, 128 at a time
(:class:`~fourcards.rl.vector.VectorGangOfFour` with ``candidates=K``: the
rows are written by the environment in the same step).

Training, all on one core:

1. imitation (DAgger): the learner plays, and learns to pick what the greedy
   bot would pick in its place (a cross-entropy over the candidates), which
   reaches the greedy bot's level in a minute or two;
2. PPO (clipped, with GAE), rewarded by the match (the seat's ``returns()``)
   and, at the end of each round, by its penalty points against the mean of
   the others' (in units of 20 points): the round signal is much denser than
   the match's.

Every ``--eval-every`` updates the greedy (argmax) policy plays
``--eval-matches`` fresh matches against the three greedy bots; the curve is
their win share.  The best evaluated policy is exported (``.npz``: the
weights, a format name and version, the candidate layout's hash; see
:mod:`fourcards.gangoffour.learned`), with the curve as CSV and (with
matplotlib) a PNG.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MissingExtraError
from ..terminal.args import Parser, check_output, int_in
from ..gangoffour import _deck, _kernels
from ..gangoffour.features import FEATURE_SIZE, LAYOUT_HASH
from ..gangoffour.learned import FORMAT, FORMAT_VERSION, PolicyWeights
from ..gangoffour.match import OBSERVATION_SIZE
from ._commands import above_0_at_most, check_outputs, file_to_write
from .vector import VectorGangOfFour

def _arguments(argv: Sequence[str] | None) -> tuple[Parser, argparse.Namespace]:
    """The command line's parser and arguments, every one checked (the files to write too: nothing made)."""
    parser = Parser(prog="python -m fourcards.rl.train", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--updates", type=int_in(1, 10**6), default=600,
                        help="PPO and imitation updates (the budget; default: %(default)s)")
    parser.add_argument("--minutes", type=above_0_at_most(10**6), default=30.0,
                        help="stop earlier after this much wall-clock time (default: %(default)s)")
    parser.add_argument("--seed", type=int_in(0, 2**63 - 1), default=1,
                        help="seeds the weights, the training matches and the evaluations (default: %(default)s)")
    parser.add_argument("--envs", type=int_in(1, 4096), default=128,
                        help="training matches played at once (default: %(default)s)")
    parser.add_argument("--steps", type=int_in(1, 10**5), default=64,
                        help="rollout length a PPO update (default: %(default)s)")
    parser.add_argument("--candidates", type=int_in(1, 256), default=64,
                        help="candidate rows an env (default: %(default)s)")
    parser.add_argument("--hidden", type=int_in(1, 4096), default=128,
                        help="units of the policy's first layer and of the value baseline (default: %(default)s)")
    parser.add_argument("--hidden2", type=int_in(1, 4096), default=64,
                        help="units of the policy's second layer (default: %(default)s)")
    parser.add_argument("--lr", type=above_0_at_most(1), default=3e-4,
                        help="Adam's learning rate (default: %(default)s)")
    parser.add_argument("--imitation", type=int_in(0, 10**6), default=30,
                        help="imitation (DAgger) updates before PPO (default: %(default)s)")
    parser.add_argument("--eval-every", type=int_in(1, 10**6), default=20,
                        help="updates between evaluations (default: %(default)s)")
    parser.add_argument("--eval-matches", type=int_in(1, 10**6), default=500,
                        help="matches of an evaluation against three greedy bots (default: %(default)s)")
    parser.add_argument("--out", type=file_to_write, default=Path("learned_policy.npz"),
                        help="the policy file to write (its folder is made; an existing file only if a policy "
                             "file; default: %(default)s)")
    parser.add_argument("--curve", type=file_to_write, default=Path("rl-training-curve.png"),
                        help="the curve: a PNG (with matplotlib) and always a CSV beside it (its folder is made; "
                             "default: %(default)s)")
    args = parser.parse_args(argv)
    check_outputs(parser, [("--out", args.out, FORMAT), ("--curve", args.curve, None),
                            ("--curve", args.curve.with_suffix(".csv"), None)])
    return parser, args


try:
    import torch
    from torch import nn
except ModuleNotFoundError as missing:  # the extra is not installed: say which to install
    _missing = MissingExtraError.of(missing.name or str(missing), "train", __spec__.name if __spec__ else __name__)
    if __name__ == "__main__":  # python -m ...: --help and a bad value first, then one line, no traceback
        _arguments(None)
        print(f"error: {_missing}", file=sys.stderr)
        raise SystemExit(2) from None
    raise _missing from missing

__all__ = ["main", "Policy", "evaluate", "save", "write_curve"]

PLAYERS = 4
TOTALS = slice(114, 114 + PLAYERS)  # match totals / target, seat-relative (slot 0: the learner)
ROUND_UNIT = 20 / 100  # the round reward's unit: 20 penalty points, over the target score


class Policy(nn.Module):
    """Candidate scores (the exported part) and a value baseline (training only)."""

    def __init__(self, hidden: int, hidden2: int, depth: int = 0) -> None:
        super().__init__()
        self.state = nn.Linear(OBSERVATION_SIZE, hidden)
        self.cand = nn.Linear(FEATURE_SIZE, hidden, bias=False)
        self.mid = nn.Linear(hidden, hidden2)
        #: ``depth`` more layers of ``hidden2`` units before the output (a version 2 policy file).
        self.more = nn.ModuleList(nn.Linear(hidden2, hidden2) for _ in range(depth))
        self.out = nn.Linear(hidden2, 1)
        self.value = nn.Sequential(nn.Linear(OBSERVATION_SIZE, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    @property
    def deeper(self) -> list[nn.Linear]:
        """The layers after the second, in order."""
        return [layer for layer in self.more if isinstance(layer, nn.Linear)]

    def scores(self, states: torch.Tensor, rows: torch.Tensor, owner: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.mid(torch.relu(self.state(states)[owner] + self.cand(rows))))
        for layer in self.deeper:
            h = torch.relu(layer(h))
        return self.out(h).squeeze(-1)

    @classmethod
    def of(cls, weights: PolicyWeights) -> Policy:
        """A policy scoring as ``weights`` do (the inverse of :meth:`export`; a fresh value baseline)."""
        deeper = [] if weights.wh is None or weights.bh is None else list(zip(weights.wh, weights.bh))
        policy = cls(weights.b1.shape[0], weights.b2.shape[0], len(deeper))
        with torch.no_grad():
            layers = ((policy.state, weights.state_w, weights.b1), (policy.cand, weights.cand_w, None),
                      (policy.mid, weights.w2, weights.b2), (policy.out, weights.w3[:, None], weights.b3),
                      *((layer, matrix, bias) for layer, (matrix, bias) in zip(policy.deeper, deeper)))
            for layer, matrix, bias in layers:
                layer.weight.copy_(torch.from_numpy(np.asarray(matrix)).T)
                if bias is not None:
                    layer.bias.copy_(torch.from_numpy(np.asarray(bias)))
        return policy

    def export(self) -> dict[str, np.ndarray]:
        def arr(t: torch.Tensor) -> np.ndarray:
            weights: np.ndarray = t.detach().cpu().numpy().astype(np.float32)
            return weights

        weights = {"state_w": arr(self.state.weight.T), "cand_w": arr(self.cand.weight.T),
                   "b1": arr(self.state.bias), "w2": arr(self.mid.weight.T), "b2": arr(self.mid.bias),
                   "w3": arr(self.out.weight[0]), "b3": arr(self.out.bias)}
        if self.deeper:
            weights["wh"] = np.stack([arr(layer.weight.T) for layer in self.deeper])
            weights["bh"] = np.stack([arr(layer.bias) for layer in self.deeper])
        return weights


def padded(values: torch.Tensor, valid: torch.Tensor, fill: float) -> torch.Tensor:
    """Per-row values as an (envs, K) table, ``fill`` in the empty cells."""
    table = torch.full(valid.shape, fill)
    table[valid] = values
    return table


def segment_log_softmax(scores: torch.Tensor, owner: torch.Tensor, groups: int) -> torch.Tensor:
    top = torch.full((groups,), -math.inf).scatter_reduce(0, owner, scores, "amax", include_self=True)
    z = scores - top[owner]
    total = torch.zeros(groups).index_add(0, owner, torch.exp(z))
    return z - torch.log(total)[owner]


def greedy_hint(observation: np.ndarray, actions: np.ndarray) -> int:
    """The row the greedy bot would choose in the learner's place (seat 0), from
    what the learner sees: its hand, the table, the hand sizes."""
    def mask(counts: np.ndarray) -> int:
        return _deck.canonical_from_sum(sum(int(counts[c]) * _deck.BIT[c] for c in np.flatnonzero(counts)))

    hand = mask(observation[0:34])
    table = int(_kernels.classify_mask(mask(observation[68:102]))) if observation[68:102].any() else -1
    sizes = tuple(int(round(float(x) * 16)) for x in observation[110:110 + PLAYERS])
    choice = int(_kernels.greedy_choose(hand, table, int(observation[139]), 0, sizes, actions.astype(np.int32)))
    return int(np.flatnonzero(actions == choice)[0])


class Rollout:
    """Steps a vector env with the policy and keeps what PPO needs."""

    def __init__(self, env: VectorGangOfFour) -> None:
        self.env = env
        env.reset()
        self.totals = np.array(env.observations[:, TOTALS])
        self.finished: list[float] = []  # win shares of the finished training matches

    def collect(self, policy: Policy, steps: int, hints: bool) -> dict[str, Any]:
        env, n, k = self.env, self.env.num_envs, self.env.max_candidates
        keep: dict[str, list[Any]] = {key: [] for key in
                                         ("obs", "rows", "counts", "choice", "logp", "value", "reward", "done", "hint")}
        for _ in range(steps):
            obs = np.array(env.observations)
            counts = np.array(env.candidate_counts)
            valid = np.arange(k)[None, :] < counts[:, None]
            rows = np.array(env.candidates[valid])
            owner = np.repeat(np.arange(n), counts)
            with torch.no_grad():
                states = torch.from_numpy(obs)
                scores = policy.scores(states, torch.from_numpy(rows), torch.from_numpy(owner))
                logp = segment_log_softmax(scores, torch.from_numpy(owner), n)
                gumbel = -torch.log(-torch.log(torch.rand(scores.shape).clamp_min(1e-12)))
                valid_t = torch.from_numpy(valid)
                choice = padded(logp + gumbel, valid_t, -math.inf).argmax(1)
                chosen_logp = padded(logp, valid_t, 0.0).gather(1, choice[:, None])[:, 0]
                value = policy.value(states)[:, 0]
            choice_np = choice.numpy()
            if hints:
                hint = np.array([greedy_hint(obs[i], env.candidate_actions[i, :counts[i]]) if counts[i] > 1 else 0
                                 for i in range(n)])
                keep["hint"].append(hint)
            actions = env.candidate_actions[np.arange(n), choice_np].astype(np.int64)
            env.step(actions)
            dones = np.array(env.dones)
            after = np.where(dones[:, None], env.final_observations[:, TOTALS], env.observations[:, TOTALS])
            delta = after - self.totals
            round_reward = -(delta[:, 0] - delta[:, 1:PLAYERS].mean(axis=1)) / ROUND_UNIT
            self.totals = np.array(env.observations[:, TOTALS])
            reward = np.array(env.rewards) + round_reward
            self.finished.extend((env.rewards[dones] + 1 / PLAYERS).tolist())
            for key, value_ in (("obs", obs), ("rows", rows), ("counts", counts), ("choice", choice_np),
                                ("logp", chosen_logp.numpy()), ("value", value.numpy()), ("reward", reward),
                                ("done", dones)):
                keep[key].append(value_)
        with torch.no_grad():
            last_value = policy.value(torch.from_numpy(np.array(env.observations)))[:, 0].numpy()
        return {**keep, "last_value": last_value}


def advantages(batch: dict[str, Any], gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    rewards = np.stack(batch["reward"])
    values = np.stack(batch["value"])
    dones = np.stack(batch["done"]).astype(np.float32)
    steps = rewards.shape[0]
    adv = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1], dtype=np.float32)
    next_value = batch["last_value"]
    for t in reversed(range(steps)):
        alive = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_value * alive - values[t]
        running = delta + gamma * lam * alive * running
        adv[t] = running
        next_value = values[t]
    return adv.reshape(-1), (adv + values).reshape(-1)


def flatten(batch: dict[str, Any]) -> dict[str, torch.Tensor]:
    counts = np.concatenate(batch["counts"])
    return {
        "obs": torch.from_numpy(np.concatenate(batch["obs"])),
        "rows": torch.from_numpy(np.concatenate(batch["rows"])),
        "counts": torch.from_numpy(counts.astype(np.int64)),
        "owner": torch.from_numpy(np.repeat(np.arange(len(counts)), counts)),
        "start": torch.from_numpy(np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)),
        "choice": torch.from_numpy(np.concatenate(batch["choice"]).astype(np.int64)),
        "logp": torch.from_numpy(np.concatenate(batch["logp"])),
    }


def minibatch_logp(policy: Policy, flat: dict[str, torch.Tensor],
                   idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For samples ``idx``: the log-probability of each of their rows (in the
    minibatch's order), each sample's entropy, and where each global row is in
    the minibatch (-1: not in it)."""
    samples = len(flat["counts"])
    selected = torch.zeros(samples, dtype=torch.bool)
    selected[idx] = True
    local = torch.full((samples,), -1, dtype=torch.int64)
    local[idx] = torch.arange(len(idx))
    row_mask = selected[flat["owner"]]
    owner = local[flat["owner"][row_mask]]
    position = torch.full((len(row_mask),), -1, dtype=torch.int64)
    position[row_mask] = torch.arange(int(row_mask.sum()))
    scores = policy.scores(flat["obs"][idx], flat["rows"][row_mask], owner)
    logp = segment_log_softmax(scores, owner, len(idx))
    entropy = -torch.zeros(len(idx)).index_add(0, owner, torch.exp(logp) * logp)
    return logp, entropy, position


def evaluate(policy: Policy, matches: int, seed: int, candidates: int) -> float:
    """Win share of the argmax policy in the first ``matches`` matches of fresh envs against 3 greedy bots."""
    envs = 250 if matches >= 250 else matches
    quota = math.ceil(matches / envs)
    env = VectorGangOfFour(envs, seed=seed, opponents="greedy", candidates=candidates)
    env.reset()
    shares: list[float] = []
    done_count = np.zeros(envs, dtype=np.int64)
    k = candidates
    while (done_count < quota).any():
        counts = np.array(env.candidate_counts)
        valid = np.arange(k)[None, :] < counts[:, None]
        owner = np.repeat(np.arange(envs), counts)
        with torch.no_grad():
            scores = policy.scores(torch.from_numpy(np.array(env.observations)),
                                   torch.from_numpy(np.array(env.candidates[valid])), torch.from_numpy(owner))
            choice = padded(scores, torch.from_numpy(valid), -math.inf).argmax(1).numpy()
        env.step(env.candidate_actions[np.arange(envs), choice].astype(np.int64))
        for i in np.flatnonzero(env.dones):
            if done_count[i] < quota:
                shares.append(float(env.rewards[i]) + 1 / PLAYERS)
            done_count[i] += 1
    return float(np.mean(shares[:matches]))


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``python -m fourcards.rl.train --help``)."""
    parser, args = _arguments(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    policy = Policy(args.hidden, args.hidden2)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)
    try:
        env = VectorGangOfFour(args.envs, seed=args.seed, opponents="greedy", candidates=args.candidates)
    except RuntimeError as error:  # the compiled kernels are not in use
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    for flag, path in (("--out", args.out), ("--curve", args.curve)):
        check_output(parser, flag, path)  # every argument checked: the folders made now, before the training
    rollout = Rollout(env)
    started = time.perf_counter()
    curve: list[dict[str, Any]] = []
    best: tuple[float, dict[str, np.ndarray]] = (-1.0, policy.export())
    agent_steps = 0
    update = 0

    def evaluate_now(phase: str) -> None:
        nonlocal best
        share = evaluate(policy, args.eval_matches, seed=10_000 + args.seed, candidates=args.candidates)
        recent = rollout.finished[-500:]
        curve.append({"update": update, "agent_steps": agent_steps, "minutes": (time.perf_counter() - started) / 60,
                      "cpu_minutes": time.process_time() / 60,
                      "eval_win_share": share, "train_win_share": float(np.mean(recent)) if recent else math.nan,
                      "phase": phase})
        if share > best[0]:
            best = (share, policy.export())
        print(f"update {update:5d}  {phase:9s} agent steps {agent_steps:9d}  {curve[-1]['minutes']:6.1f} min "
              f"({curve[-1]['cpu_minutes']:5.1f} CPU)  "
              f"eval win share {share:.3f}  (training matches {curve[-1]['train_win_share']:.3f})", flush=True)

    evaluate_now("start")
    while update < args.updates and (time.perf_counter() - started) / 60 < args.minutes:
        imitation = update < args.imitation
        batch = rollout.collect(policy, args.steps, hints=imitation)
        agent_steps += args.steps * args.envs
        adv_np, returns_np = advantages(batch, gamma=0.995, lam=0.95)
        flat = flatten(batch)
        adv = torch.from_numpy(adv_np.astype(np.float32))
        returns = torch.from_numpy(returns_np.astype(np.float32))
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        hint = torch.from_numpy(np.concatenate(batch["hint"]).astype(np.int64)) if imitation else None
        samples = len(flat["counts"])
        epochs, minibatches = (2, 4) if imitation else (3, 4)
        for _ in range(epochs):
            order = torch.randperm(samples)
            for idx in order.chunk(minibatches):
                logp, entropy, position = minibatch_logp(policy, flat, idx)
                value = policy.value(flat["obs"][idx])[:, 0]
                value_loss = ((value - returns[idx]) ** 2).mean()
                if hint is not None:
                    # cross-entropy towards the greedy bot's row (forced moves carry no gradient)
                    hinted = logp[position[flat["start"][idx] + hint[idx]]]
                    loss = -hinted.mean() + 0.5 * value_loss
                else:
                    chosen = logp[position[flat["start"][idx] + flat["choice"][idx]]]
                    ratio = torch.exp(chosen - flat["logp"][idx])
                    a = adv[idx]
                    policy_loss = -torch.min(ratio * a, ratio.clamp(0.8, 1.2) * a).mean()
                    loss = policy_loss + 0.5 * value_loss - 0.01 * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
                optimizer.step()
        update += 1
        if update % args.eval_every == 0 or update == args.imitation:
            evaluate_now("imitation" if imitation else "ppo")
    evaluate_now("end")
    save(best[1], args.out)
    write_curve(curve, args.curve)
    print(f"best evaluated win share {best[0]:.3f}; policy written to {args.out}")
    print(f'evaluate it: fourcards tournament --bots "learned:policy={args.out},greedy,greedy,greedy" --deals 300')
    return 0


def save(weights: dict[str, np.ndarray], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    version = "2" if "wh" in weights else FORMAT_VERSION  # more layers: version 2
    arrays: dict[str, Any] = {"format": np.array(FORMAT), "version": np.array(version),
                              "layout_hash": np.array(LAYOUT_HASH), **weights}
    with path.open("wb") as handle:  # exactly ``path`` (np.savez would add .npz to a name without it)
        np.savez(handle, **arrays)


def write_curve(curve: list[dict[str, Any]], png: Path) -> None:
    """The curve as CSV beside ``png`` (its folder made), and as ``png`` when matplotlib is installed."""
    png.parent.mkdir(parents=True, exist_ok=True)
    with png.with_suffix(".csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(curve[0]))
        writer.writeheader()
        writer.writerows(curve)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: the curve is in", png.with_suffix(".csv"))
        return
    figure, axes = plt.subplots(figsize=(7, 4), dpi=110)
    steps = [row["agent_steps"] / 1e6 for row in curve]
    axes.plot(steps, [row["eval_win_share"] for row in curve], marker="o", label="learned (argmax), evaluation")
    axes.plot(steps, [row["train_win_share"] for row in curve], alpha=0.6, label="learned (sampling), training")
    axes.axhline(0.25, color="grey", linestyle="--", label="greedy's share (0.25)")
    imitation_end = [row["agent_steps"] / 1e6 for row in curve if row["phase"] == "imitation"]
    if imitation_end:
        axes.axvline(max(imitation_end), color="tab:green", linestyle=":", label="imitation ends, PPO starts")
    axes.set_xlabel("learner decisions (millions)")
    axes.set_ylabel("win share vs 3 greedy bots")
    axes.set_title("Gang of Four: learning against three greedy bots")
    axes.legend(loc="lower right", fontsize=8)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(png)
    print("curve written to", png)


if __name__ == "__main__":
    sys.exit(main())
