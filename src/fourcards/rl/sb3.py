"""Stable-Baselines3 pieces for large masked action spaces (extra ``fourcards[train]``).

- :class:`SparseMaskablePolicy`: sb3-contrib's ``MaskablePPO`` policy for a
  ``Discrete`` action space whose distribution touches the legal actions
  only. Same network, same parameters (a ``state_dict`` loads into
  ``MlpPolicy`` and back), the same masked softmax; but where ``MlpPolicy``
  computes every logit of a wide action space (12,387 for the largest game
  here), normalizes them, masks them and backpropagates through all of them,
  this policy computes the logits of the legal actions (a handful, in a
  typical turn) straight from the action layer's rows.
- :class:`VecEnvFromGymnasium`: an SB3 ``VecEnv`` over a Gymnasium vector
  environment that resets in the same step (a game's ``make_vec`` entry
  point, which steps its matches in C, or a ``SyncVectorEnv`` with
  ``autoreset_mode=SAME_STEP``), with ``action_masks()`` for ``MaskablePPO``.

Usage (the ``"MaskablePPO"`` section of ``docs/rl-training.md``)::

    envs = VecEnvFromGymnasium(gymnasium.make_vec(game_id, num_envs=64, observation="compact"))
    model = MaskablePPO(SparseMaskablePolicy, envs)
    model.learn(1_000_000)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import FourCardsError, MissingExtraError

try:
    import gymnasium
    import torch as th
    from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableDistribution
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.vec_env import VecEnv
    from torch import nn
except ModuleNotFoundError as missing:  # the extra is not installed: say which to install
    raise MissingExtraError.of(missing.name or str(missing), "train", __name__) from missing

__all__ = ["SparseMaskablePolicy", "SparseMaskableCategoricalDistribution", "VecEnvFromGymnasium"]

#: What sb3-contrib gives a masked-out logit (its probability is then 0 in float32).
HUGE_NEG = -1e8


def _legal_pairs(masks: th.Tensor | npt.NDArray[Any], batch: int, width: int,
                 device: th.device) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
    """``masks`` as bools ``(batch, width)``, and the row and column of each True, row by row."""
    size = masks.numel() if isinstance(masks, th.Tensor) else np.size(masks)
    if size != batch * width:
        shape = tuple(masks.shape) if hasattr(masks, "shape") else type(masks).__name__
        raise FourCardsError(f"action masks of shape {shape}: expected {batch} rows of {width} (one per "
                             f"sample, one column per action)")
    if device.type == "cpu":  # numpy finds the Trues of a wide mask several times faster than torch here
        array = masks.detach().numpy() if isinstance(masks, th.Tensor) else np.asarray(masks)
        allowed = array.reshape(batch, width)
        if allowed.dtype != np.bool_:
            allowed = allowed.astype(np.bool_)
        elif not allowed.flags.writeable:  # a read-only view (an environment's buffer): torch wants its own
            allowed = allowed.copy()
        flat = th.from_numpy(np.flatnonzero(allowed))
        return th.from_numpy(allowed), flat // width, flat % width
    tensor = th.as_tensor(masks, device=device).reshape(batch, width)
    tensor = tensor if tensor.dtype == th.bool else tensor != 0
    rows, cols = tensor.nonzero(as_tuple=True)
    return tensor, rows, cols


class SparseMaskableCategoricalDistribution(MaskableDistribution):
    """A categorical distribution over ``action_dim`` actions, masked, that
    computes only the legal actions' logits.

    :meth:`from_latent` binds it to the policy's last hidden layer and its
    action layer (an ``nn.Linear``); :meth:`apply_masking` then computes each
    legal action's logit as one row of that layer, and the log-softmax over
    those. Without a mask (or with a row that allows nothing), it falls back
    to sb3-contrib's dense :class:`MaskableCategorical`, so it answers exactly
    as ``MaskableCategoricalDistribution`` does in every case.
    """

    def __init__(self, action_dim: int) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.action_dim = action_dim
        self._latent: th.Tensor | None = None
        self._layer: nn.Linear | None = None
        self._dense: MaskableCategorical | None = None
        self._sparse: tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor, th.Tensor] | None = None

    # sb3's Distribution sets and reads ``self.distribution``: the dense one, built when asked for.
    @property
    def distribution(self) -> MaskableCategorical:  # type: ignore[override]
        if self._dense is None:
            self._dense = self._build_dense(self._masks_of_sparse())
        return self._dense

    @distribution.setter  # type: ignore[override]
    def distribution(self, value: MaskableCategorical | None) -> None:
        self._dense = value

    def proba_distribution_net(self, latent_dim: int) -> nn.Module:
        """The action layer: ``nn.Linear(latent_dim, action_dim)``, as sb3-contrib's."""
        return nn.Linear(latent_dim, self.action_dim)

    def from_latent(self, latent: th.Tensor, layer: nn.Linear) -> SparseMaskableCategoricalDistribution:
        """Bind the distribution to ``layer(latent)`` without computing it."""
        self._latent, self._layer = latent.reshape(-1, layer.in_features), layer
        self._dense = self._sparse = None
        return self

    def proba_distribution(self, action_logits: th.Tensor) -> SparseMaskableCategoricalDistribution:
        """The dense distribution over ``action_logits`` (sb3's interface)."""
        self._latent = self._layer = None
        self._sparse = None
        self._dense = MaskableCategorical(logits=action_logits.view(-1, self.action_dim))
        return self

    def apply_masking(self, masks: th.Tensor | npt.NDArray[Any] | None) -> None:
        """Keep the actions ``masks`` allows (True or nonzero), one row per sample."""
        if masks is None or self._latent is None or self._layer is None:
            self._sparse = None
            self._dense = self._build_dense(masks)
            return
        latent, layer = self._latent, self._layer
        batch = latent.shape[0]
        allowed, rows, cols = _legal_pairs(masks, batch, self.action_dim, latent.device)
        if rows.shape[0] == 0 or int(th.bincount(rows, minlength=batch).min()) == 0:
            self._sparse = None  # a row that allows nothing: sb3-contrib's answer (uniform)
            self._dense = self._build_dense(allowed)
            return
        logits = (latent.index_select(0, rows) * layer.weight.index_select(0, cols)).sum(dim=1)
        if layer.bias is not None:
            logits = logits + layer.bias.index_select(0, cols)
        top = th.full((batch,), -th.inf, dtype=logits.dtype, device=logits.device)
        top = top.scatter_reduce(0, rows, logits.detach(), reduce="amax")
        shifted = logits - top[rows]
        total = th.zeros(batch, dtype=logits.dtype, device=logits.device).index_add(0, rows, shifted.exp())
        log_total = total.log()
        log_probs = shifted - log_total[rows]
        self._sparse = (allowed, rows, cols, log_probs, top + log_total)
        self._dense = None

    def _build_dense(self, masks: th.Tensor | npt.NDArray[Any] | None) -> MaskableCategorical:
        if self._latent is None or self._layer is None:
            if self._dense is None:
                raise FourCardsError("the distribution has no parameters yet: call from_latent or "
                                     "proba_distribution first")
            self._dense.apply_masking(masks)
            return self._dense
        logits = self._layer(self._latent)
        return MaskableCategorical(logits=logits, masks=masks)

    def _masks_of_sparse(self) -> th.Tensor | None:
        return self._sparse[0] if self._sparse is not None else None

    def _logit(self, actions: th.Tensor) -> th.Tensor:
        assert self._latent is not None and self._layer is not None
        layer = self._layer
        logits = (self._latent * layer.weight.index_select(0, actions)).sum(dim=1)
        return logits + layer.bias.index_select(0, actions) if layer.bias is not None else logits

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        if self._sparse is None:
            dense: th.Tensor = self.distribution.log_prob(actions)  # type: ignore[no-untyped-call]
            return dense
        allowed, _, _, _, log_normalizer = self._sparse
        actions = actions.reshape(-1).long()
        legal = allowed[th.arange(actions.shape[0], device=actions.device), actions]
        logit = th.where(legal, self._logit(actions), th.full_like(log_normalizer, HUGE_NEG))
        return logit - log_normalizer

    def entropy(self) -> th.Tensor:
        if self._sparse is None:
            return self.distribution.entropy()
        allowed, rows, _, log_probs, _ = self._sparse
        terms = log_probs.exp() * log_probs
        return -th.zeros(allowed.shape[0], dtype=terms.dtype, device=terms.device).index_add(0, rows, terms)

    def _pick(self, keys: th.Tensor) -> th.Tensor:
        """Each row's legal action of the largest key (the lowest such action on a tie, as ``argmax``)."""
        assert self._sparse is not None
        allowed, rows, cols, _, _ = self._sparse
        batch = allowed.shape[0]
        top = th.full((batch,), -th.inf, dtype=keys.dtype, device=keys.device)
        top = top.scatter_reduce(0, rows, keys, reduce="amax")
        winners = keys == top[rows]
        chosen = th.full((batch,), self.action_dim, dtype=th.long, device=keys.device)
        return chosen.scatter_reduce(0, rows[winners], cols[winners], reduce="amin")

    def sample(self) -> th.Tensor:
        if self._sparse is None:
            drawn: th.Tensor = self.distribution.sample()  # type: ignore[no-untyped-call]
            return drawn
        log_probs = self._sparse[3].detach()
        uniform = th.rand_like(log_probs).clamp_(min=th.finfo(log_probs.dtype).tiny, max=1.0)
        return self._pick(log_probs - (-uniform.log()).log())  # Gumbel-max: a draw from softmax

    def mode(self) -> th.Tensor:
        if self._sparse is None:
            return th.argmax(self.distribution.probs, dim=1)
        return self._pick(self._sparse[3].detach())

    def actions_from_params(self, action_logits: th.Tensor, deterministic: bool = False) -> th.Tensor:
        self.proba_distribution(action_logits)
        return self.get_actions(deterministic=deterministic)

    def log_prob_from_params(self, action_logits: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        actions = self.actions_from_params(action_logits)
        return actions, self.log_prob(actions)


class SparseMaskablePolicy(MaskableActorCriticPolicy):  # type: ignore[misc,unused-ignore]
    """sb3-contrib's ``MaskableActorCriticPolicy`` (``"MlpPolicy"``) whose
    action distribution computes the legal actions' logits only
    (:class:`SparseMaskableCategoricalDistribution`).

    Pass the class as ``MaskablePPO``'s policy:
    ``MaskablePPO(SparseMaskablePolicy, env)``; every keyword of
    ``MlpPolicy`` (``net_arch``, ``activation_fn``, ...) applies. The
    network and its parameters are ``MlpPolicy``'s, so a ``state_dict``
    moves between the two. A ``Discrete`` action space is required.
    Each call builds its own distribution, so several threads may call
    ``predict`` on one policy at once (a server's bots, say).
    """

    def __init__(self, observation_space: gymnasium.spaces.Space[Any], action_space: gymnasium.spaces.Space[Any],
                 *args: Any, **kwargs: Any) -> None:
        if not isinstance(action_space, gymnasium.spaces.Discrete):
            raise FourCardsError(f"SparseMaskablePolicy needs a Discrete action space, not {action_space!r}")
        if kwargs.get("optimizer_class", th.optim.Adam) is th.optim.Adam and len(args) < 9:
            # torch's one-pass Adam: the same update as sb3's default (eps 1e-5 when no options), in one kernel
            given = kwargs.get("optimizer_kwargs")
            options = {"eps": 1e-5} if given is None else dict(given)
            if "fused" not in options and "foreach" not in options:
                options["fused"] = True
            kwargs["optimizer_kwargs"] = options
        super().__init__(observation_space, action_space, *args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        space = self.action_space
        assert isinstance(space, gymnasium.spaces.Discrete)
        self.action_dist = SparseMaskableCategoricalDistribution(int(space.n))
        super()._build(lr_schedule)

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> SparseMaskableCategoricalDistribution:
        # A new distribution each call (sb3-contrib rebinds one shared object): threads predicting
        # with the same policy at once never see each other's latents or masks.
        assert isinstance(self.action_net, nn.Linear)
        fresh = SparseMaskableCategoricalDistribution(self.action_net.out_features)
        return fresh.from_latent(latent_pi, self.action_net)


class VecEnvFromGymnasium(VecEnv):  # type: ignore[misc,unused-ignore]
    """An SB3 ``VecEnv`` over a Gymnasium vector environment that resets in
    the same step (``AutoresetMode.SAME_STEP``: the fourcards C environments,
    or ``SyncVectorEnv(..., autoreset_mode=SAME_STEP)``).

    Observations, rewards and dones pass through as arrays; an ended env's
    last observation is in its info's ``"terminal_observation"`` (SB3's
    convention, from Gymnasium's ``infos["final_obs"]``); ``action_masks()``
    (for ``MaskablePPO``) asks the vector environment's ``action_masks()``,
    or each sub-environment's. A truncation is a ``done`` with
    ``"TimeLimit.truncated"`` set, as SB3 expects.
    """

    def __init__(self, envs: gymnasium.vector.VectorEnv) -> None:
        if not isinstance(envs, gymnasium.vector.VectorEnv):
            raise FourCardsError(f"VecEnvFromGymnasium needs a gymnasium.vector.VectorEnv, not "
                                 f"{type(envs).__name__}")
        mode = envs.metadata.get("autoreset_mode")
        if mode != gymnasium.vector.AutoresetMode.SAME_STEP:
            raise FourCardsError(f"the vector environment resets with {mode!r}: VecEnvFromGymnasium needs "
                                 "AutoresetMode.SAME_STEP, as SB3 resets an env in the step that ends it")
        self.envs: Any = envs  # get_attr, set_attr and call are on every vector environment but not typed there
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)
        self._actions: Any = None

    def reset(self) -> Any:
        seed = self._seeds[0]
        observations, _ = self.envs.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._actions = actions

    def step_wait(self) -> Any:
        observations, rewards, terminations, truncations, infos = self.envs.step(self._actions)
        dones = np.logical_or(terminations, truncations)
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = infos.get("_final_obs")
        if ended is not None:
            for i in np.flatnonzero(ended).tolist():
                out[i]["terminal_observation"] = infos["final_obs"][i]
                out[i]["TimeLimit.truncated"] = bool(truncations[i] and not terminations[i])
                final_info = infos.get("final_info")
                if isinstance(final_info, dict):
                    out[i].update({key: value[i] for key, value in final_info.items()
                                   if not key.startswith("_") and final_info.get("_" + key, ended)[i]})
        return observations, np.asarray(rewards, dtype=np.float32), dones, out

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of every env, as bools ``(num_envs, n)``."""
        method = getattr(self.envs, "action_masks", None)
        if method is not None:
            return np.asarray(method(), dtype=np.bool_)
        return np.stack([np.asarray(mask, dtype=np.bool_) for mask in self.envs.call("action_masks")])

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        answers = self.envs.call(method_name, *method_args, **method_kwargs)
        return [answers[i] for i in self._get_indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        if attr_name == "action_masks":
            if hasattr(self.envs, "action_masks"):
                return True
        try:
            self.envs.get_attr(attr_name)
        except (AttributeError, NotImplementedError):
            return False
        return True

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":  # the vector environment's, for each env
            return [self.envs.render_mode for _ in self._get_indices(indices)]
        answers = self.envs.get_attr(attr_name)
        return [answers[i] for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        if indices is not None and list(self._get_indices(indices)) != list(range(self.num_envs)):
            raise FourCardsError("set_attr on some envs only: the vector environment sets all of them")
        self.envs.set_attr(attr_name, value)

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        self.envs.close()
