"""Masked PPO in flax + optax, PureJaxRL-style: the actor-critic, the team GAE and the clipped update.

Same algorithm and defaults as sb3-contrib's ``MaskablePPO`` with ``MlpPolicy`` (so the two
backends train comparable policies): separate actor and critic MLPs of ``net_arch`` with
orthogonal initialisation (gain √2 hidden, 0.01 policy head, 1 value head), Adam (eps 1e-5)
after clipping the global gradient norm, illegal actions' logits set to a large negative
number, per-minibatch advantage normalisation, unclipped value loss.

Transitions come in a ``(steps, games)`` grid of *game* decisions in which only the
learner's decisions are transitions (``valid``); :func:`team_gae` turns that into the
advantages of the learner's one trajectory per game (see :mod:`.rollout`), and
:func:`compact` gathers the valid transitions into a fixed-size batch for :func:`update`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax

#: logit of an illegal action (finite, so masked softmax and entropy stay NaN-free)
ILLEGAL_LOGIT = -1e9


class _Affine(nn.Module):
    """The parameters of one dense layer (``kernel (in, out)``, ``bias (out,)``, as ``nn.Dense`` names and
    initialises them), returned rather than applied, so that two towers' first layers can run as one product."""

    features: int
    in_features: int
    scale: float

    @nn.compact
    def __call__(self):
        kernel = self.param("kernel", nn.initializers.orthogonal(self.scale), (self.in_features, self.features))
        return kernel, self.param("bias", nn.initializers.zeros, (self.features,))


class MLP(nn.Module):
    """The parameters of dense layers ``hidden_0 …`` of ``hidden`` sizes and a linear head ``out``:
    ``MLP(...)(in_features)`` returns their ``(kernel, bias)`` pairs, first to last (:func:`forward` applies them)."""

    hidden: Sequence[int]
    out: int
    head_scale: float

    @nn.compact
    def __call__(self, in_features: int):
        sizes = (in_features, *self.hidden)
        layers = [_Affine(w, sizes[i], math.sqrt(2), name=f"hidden_{i}")() for i, w in enumerate(self.hidden)]
        return layers + [_Affine(self.out, sizes[-1], self.head_scale, name="out")()]


def forward(layers, x, activation):
    """``layers`` (``(kernel, bias)`` pairs, from :class:`MLP`) applied to ``x``: the activation after each but the last."""
    for i, (kernel, bias) in enumerate(layers):
        x = x @ kernel + bias
        if i < len(layers) - 1:
            x = activation(x)
    return x


class ActorCritic(nn.Module):
    """``obs float32 (..., obs_size) -> (logits (..., num_actions), value (...))``; params ``{"actor": …,
    "critic": …}``, each ``{"hidden_0": {"kernel", "bias"}, …, "out": …}``.

    With ``belief_size > 0`` (``ppo.belief_coef > 0``, issue 27) the actor also has a **belief head**: params
    ``"belief": {"hidden_0": …, "out": {"kernel" (width, belief_size), "bias"}}``: its own hidden layers of
    ``belief_hidden`` sizes (none by default: one linear layer) on the actor's last hidden layer (the observation
    itself without hidden layers), whose logits are P(hidden side) per relative seat through a sigmoid
    (:meth:`with_beliefs`). It reads what the actor reads, so its auxiliary loss shapes the
    policy's own features; ``__call__`` and :meth:`logits` do not compute it (the rollout's cost is unchanged).
    Without it (``belief_size == 0``, the default) the parameters are exactly those of a network without one.

    The actor's and the critic's first layers run as one ``(N, 1228) × (1228, 2·width)`` product: on a CPU that
    layer is most of the network's work in the rollout and in the update, and one product reads the observations
    once and runs closer to the machine's matmul rate than two narrow ones. Same parameters and the same math as
    two separate MLPs (tested against a NumPy forward pass of each).
    """

    net_arch: Sequence[int]
    #: the game's number of actions (the actor's outputs)
    num_actions: int
    activation: str = "tanh"
    #: entries of the belief head (``Game.belief_size``); 0: no belief head
    belief_size: int = 0
    #: the belief head's own hidden layer sizes (``ppo.belief_net_arch``); empty: one linear layer
    belief_hidden: Sequence[int] = ()

    def setup(self):
        self.actor = MLP(tuple(self.net_arch), self.num_actions, 0.01)
        self.critic = MLP(tuple(self.net_arch), 1, 1.0)
        self._act = {"tanh": nn.tanh, "relu": nn.relu}[self.activation]
        if self.belief_size:
            self.belief = MLP(tuple(self.belief_hidden), self.belief_size, 0.01)

    def _towers(self, obs):
        """``(actor layers, the actor's last hidden features, value)``: the actor's features before its head."""
        actor, critic = self.actor(obs.shape[-1]), self.critic(obs.shape[-1])
        if not self.net_arch:  # the heads read the observation directly: nothing to share
            return actor, obs, forward(critic, obs, self._act)[..., 0]
        (actor_kernel, actor_bias), (critic_kernel, critic_bias) = actor[0], critic[0]
        width = actor_kernel.shape[1]
        kernel = jnp.concatenate([actor_kernel, critic_kernel], axis=1)
        first = self._act(obs @ kernel + jnp.concatenate([actor_bias, critic_bias]))
        hidden = first[..., :width]
        for kernel, bias in actor[1:-1]:
            hidden = self._act(hidden @ kernel + bias)
        return actor, hidden, forward(critic[1:], first[..., width:], self._act)[..., 0]

    def __call__(self, obs):
        actor, hidden, value = self._towers(obs)
        if self.belief_size and self.is_initializing():  # create the head's parameters (unused by this call)
            self._belief_logits(hidden)
        kernel, bias = actor[-1]
        return hidden @ kernel + bias, value

    def _belief_logits(self, hidden):
        return forward(self.belief(hidden.shape[-1]), hidden, self._act)

    def with_beliefs(self, obs):
        """``(logits, value, belief_logits (..., belief_size))``: ``sigmoid(belief_logits)`` is P(hidden side) per
        relative seat (index 0 the observer; entries for itself and absent seats are meaningless: masked in the
        loss, NaN in the checkpoint agent's ``beliefs``). Needs ``belief_size > 0``."""
        actor, hidden, value = self._towers(obs)
        kernel, bias = actor[-1]
        return hidden @ kernel + bias, value, self._belief_logits(hidden)

    def logits(self, obs):
        """The actor alone (the opponents' moves in the rollout)."""
        return forward(self.actor(obs.shape[-1]), obs, self._act)


def masked_logits(logits, mask):
    """``logits`` with illegal actions (``mask`` False/0) set to :data:`ILLEGAL_LOGIT`."""
    return jnp.where(mask.astype(bool), logits, ILLEGAL_LOGIT)


def log_prob_entropy(logits, mask, actions):
    """Log-probability of ``actions`` and entropy of the masked categorical distribution."""
    logp_all = jax.nn.log_softmax(masked_logits(logits, mask))
    logp = jnp.take_along_axis(logp_all, actions[..., None], axis=-1)[..., 0]
    entropy = -jnp.sum(jnp.where(mask.astype(bool), jnp.exp(logp_all) * logp_all, 0.0), axis=-1)
    return logp, entropy


def team_gae(valid, values, ended, team_reward, bootstrap_value, gamma: float, gae_lambda: float, step_reward=None):
    """Advantages and returns of the learner's trajectories in a ``(T, B)`` grid of game decisions.

    Args:
        valid: bool ``(T, B)``: the learner made decision ``t`` of game slot ``b`` (a transition).
        values: float ``(T, B)``: the critic's value at each decision (read only where ``valid``).
        ended: bool ``(T, B)``: the slot's game ended on decision ``t`` (whoever made it).
        team_reward: float ``(T, B)``: the learner team's reward when ``ended`` (R17: +1 won, −1 lost).
        bootstrap_value: float ``(B,)``: value of the learner's next decision after the grid.
        step_reward: float ``(T, B)`` or ``None``: a reward the learner gets for decision ``t`` itself (R-NaD's
            transformed reward, :func:`rnad_step_reward`), read where ``valid``; ``None``: none (the game's reward
            only, computed exactly as before).

    The reward of a game reaches the learner's last decision in it, however many opponent
    decisions follow; discounting counts learner decisions only (as in ``TeamEnv``, where each
    learner decision is one step); a game without learner decisions contributes nothing.

    Returns:
        ``(advantages, returns)``, float32 ``(T, B)``, zero where not ``valid``.
    """

    def back(carry, x):
        gae, next_value, pending_reward, pending_done = carry
        is_valid, value, is_end, reward, own = x
        # The game of slot b ended on decision t: the later carry belongs to the next game.
        pending_reward = jnp.where(is_end, reward, pending_reward)
        pending_done = pending_done | is_end
        not_done = 1.0 - pending_done.astype(jnp.float32)
        delta = (pending_reward if own is None else own + pending_reward) + gamma * next_value * not_done - value
        new_gae = delta + gamma * gae_lambda * not_done * gae
        gae = jnp.where(is_valid, new_gae, gae)
        next_value = jnp.where(is_valid, value, next_value)
        pending_reward = jnp.where(is_valid, 0.0, pending_reward)
        pending_done = jnp.where(is_valid, False, pending_done)
        return (gae, next_value, pending_reward, pending_done), jnp.where(is_valid, new_gae, 0.0)

    batch = valid.shape[1]
    init = (
        jnp.zeros(batch, jnp.float32),
        bootstrap_value.astype(jnp.float32),
        jnp.zeros(batch, jnp.float32),
        jnp.zeros(batch, bool),
    )
    own = None if step_reward is None else step_reward.astype(jnp.float32)
    xs = (valid, values.astype(jnp.float32), ended, team_reward.astype(jnp.float32), own)
    _, advantages = jax.lax.scan(back, init, xs, reverse=True)
    return advantages, jnp.where(valid, advantages + values, 0.0)


class Batch(NamedTuple):
    """Transitions for :func:`update`; every field has leading dimension ``N``; ``weight`` 0 = padding."""

    obs: jnp.ndarray
    mask: jnp.ndarray
    action: jnp.ndarray
    log_prob: jnp.ndarray
    value: jnp.ndarray
    advantage: jnp.ndarray
    ret: jnp.ndarray
    weight: jnp.ndarray
    #: the belief head's labels, ``float32 (N, belief_size)``: 1.0 where the relative seat is on the hidden side,
    #: 0.0 where not, NaN for the observer and absent seats (masked in the loss); ``None`` without a belief head
    belief: jnp.ndarray | None = None
    #: the magnet policy's logits at each row, ``float32 (N, num_actions)`` (MMD, :class:`UpdateConfig`
    #: ``magnet_coef``); ``None`` without a magnet
    magnet: jnp.ndarray | None = None


def compact(key, grid: Batch, valid, capacity: int) -> Batch:
    """The valid transitions of a ``(T, B, …)`` grid, in random order, in a batch of ``capacity`` rows.

    With fewer valid transitions than ``capacity`` the rest is padding (``weight`` 0); with more,
    a uniform random subset of ``capacity`` of them is kept (the static size keeps one compiled update).
    A grid of fewer than ``capacity`` rows (a rollout smaller than one minibatch) is padded too: its rows are
    repeated with ``weight`` 0, so :func:`update` always gets ``capacity`` rows.
    """
    flat = jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[2:]), grid)
    order = jnp.argsort(jnp.where(valid.reshape(-1), 0.0, 2.0) + jax.random.uniform(key, (valid.size,)))
    if capacity <= valid.size:
        take, real = order[:capacity], True
    else:  # fewer rows than the batch: repeat them as padding (the same indices as above where it fits)
        position = jnp.arange(capacity)
        take, real = order[position % valid.size], position < valid.size
    picked = jax.tree_util.tree_map(lambda x: x[take], flat)
    return picked._replace(weight=(valid.reshape(-1)[take] & real).astype(jnp.float32))


class UpdateConfig(NamedTuple):
    n_epochs: int
    minibatch_size: int
    clip_range: float
    ent_coef: float
    vf_coef: float
    #: weight of the belief head's loss (``ppo.belief_coef``); 0: no belief loss (the batch needs no ``belief``)
    belief_coef: float = 0.0
    #: MMD's weight α of ``KL(π ‖ magnet)`` in the loss (``ppo.regularizer``, kind ``mmd``); 0: no magnet term
    #: (the batch needs no ``magnet``)
    magnet_coef: float = 0.0


def _weighted_mean(x, w):
    return jnp.sum(x * w) / jnp.maximum(jnp.sum(w), 1.0)


def loss_fn(params, apply_fn, mb: Batch, cfg: UpdateConfig):
    """PPO's clipped surrogate + value + entropy loss of one minibatch (padding rows weigh 0), plus, with
    ``cfg.belief_coef > 0``, ``belief_coef`` times the belief head's binary cross-entropy against ``mb.belief``
    (mean over the rows' known seats; ``apply_fn`` must then take ``method=ActorCritic.with_beliefs``)."""
    if cfg.belief_coef:
        logits, value, belief_logits = apply_fn(params, mb.obs, method=ActorCritic.with_beliefs)
    else:
        logits, value = apply_fn(params, mb.obs)
    logp, entropy = log_prob_entropy(logits, mb.mask, mb.action)
    w = mb.weight
    adv_mean = _weighted_mean(mb.advantage, w)
    adv_std = jnp.sqrt(_weighted_mean((mb.advantage - adv_mean) ** 2, w))
    adv = (mb.advantage - adv_mean) / (adv_std + 1e-8)
    ratio = jnp.exp(logp - mb.log_prob)
    pg = -jnp.minimum(adv * ratio, adv * jnp.clip(ratio, 1 - cfg.clip_range, 1 + cfg.clip_range))
    pg_loss = _weighted_mean(pg, w)
    value_loss = _weighted_mean((mb.ret - value) ** 2, w)
    entropy_loss = -_weighted_mean(entropy, w)
    loss = pg_loss + cfg.ent_coef * entropy_loss + cfg.vf_coef * value_loss
    log_ratio = logp - mb.log_prob
    stats = {
        "train/policy_gradient_loss": pg_loss,
        "train/value_loss": value_loss,
        "train/entropy_loss": entropy_loss,
        "train/loss": loss,
        "train/approx_kl": _weighted_mean((ratio - 1) - log_ratio, w),
        "train/clip_fraction": _weighted_mean((jnp.abs(ratio - 1) > cfg.clip_range).astype(jnp.float32), w),
    }
    if cfg.magnet_coef:
        magnet_kl = _weighted_mean(masked_kl(logits, mb.magnet, mb.mask), w)
        loss = loss + cfg.magnet_coef * magnet_kl
        stats.update({"train/loss": loss, "train/magnet_kl": magnet_kl})
    if cfg.belief_coef:
        belief_loss, brier = belief_losses(belief_logits, mb.belief, w)
        loss = loss + cfg.belief_coef * belief_loss
        stats.update({"train/loss": loss, "train/belief_loss": belief_loss, "train/belief_brier": brier})
    return loss, stats


def masked_kl(logits, reference_logits, mask):
    """``KL(π ‖ ρ)`` per row over the legal actions, π and ρ the masked softmax of ``logits`` and
    ``reference_logits`` (MMD's magnet term: Sokota et al. 2023, eq. 4, with the magnet ρ)."""
    legal = mask.astype(bool)
    logp = jax.nn.log_softmax(masked_logits(logits, mask))
    logq = jax.nn.log_softmax(masked_logits(reference_logits, mask))
    return jnp.sum(jnp.where(legal, jnp.exp(logp) * (logp - logq), 0.0), axis=-1)


def rnad_step_reward(log_prob, reference_logits, mask, action, eta: float):
    """R-NaD's reward transform of the learner's own decisions (Perolat et al. 2022, DeepNash, eq. 2, the
    player's own term): ``−η · log(π(a|s) / π_reg(a|s))`` for the action ``a`` taken with ``log_prob`` under
    π (the rollout's policy). ``reference_logits``: π_reg's logits at the same rows."""
    logq = jax.nn.log_softmax(masked_logits(reference_logits, mask))
    reference = jnp.take_along_axis(logq, action[..., None], axis=-1)[..., 0]
    return -eta * (log_prob - reference)


def belief_losses(belief_logits, labels, weight):
    """``(cross-entropy, Brier score)`` of the belief head: means over the known entries (finite ``labels``) of
    the rows of positive ``weight``. ``belief_logits``, ``labels`` ``(N, K)``; ``weight`` ``(N,)``."""
    known = jnp.isfinite(labels)
    target = jnp.where(known, labels, 0.0)
    w = weight[:, None] * known
    total = jnp.maximum(jnp.sum(w), 1.0)
    cross_entropy = jnp.sum(optax.sigmoid_binary_cross_entropy(belief_logits, target) * w) / total
    brier = jnp.sum((jax.nn.sigmoid(belief_logits) - target) ** 2 * w) / total
    return cross_entropy, brier


def make_optimizer(learning_rate: float, max_grad_norm: float) -> optax.GradientTransformation:
    return optax.chain(optax.clip_by_global_norm(max_grad_norm), optax.adam(learning_rate, eps=1e-5))


def update(params, opt_state, optimizer, apply_fn, batch: Batch, key, cfg: UpdateConfig):
    """``n_epochs`` passes over ``batch`` in shuffled minibatches; returns new params, opt state, mean stats.

    ``batch``'s size must be a multiple of ``cfg.minibatch_size``.
    """
    size = batch.weight.shape[0]
    n_minibatches = size // cfg.minibatch_size
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

    def minibatch_step(carry, mb):
        params, opt_state = carry
        (_, stats), grads = grad_fn(params, apply_fn, mb, cfg)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), stats

    def epoch(carry, epoch_key):
        perm = jax.random.permutation(epoch_key, size)
        shuffled = jax.tree_util.tree_map(
            lambda x: x[perm].reshape((n_minibatches, cfg.minibatch_size) + x.shape[1:]), batch
        )
        return jax.lax.scan(minibatch_step, carry, shuffled)

    (params, opt_state), stats = jax.lax.scan(epoch, (params, opt_state), jax.random.split(key, cfg.n_epochs))
    return params, opt_state, jax.tree_util.tree_map(jnp.mean, stats)


def explained_variance(values, returns, weight):
    """``1 − Var(returns − values) / Var(returns)`` over the weighted rows (SB3's ``train/explained_variance``)."""
    mean_r = _weighted_mean(returns, weight)
    var_r = _weighted_mean((returns - mean_r) ** 2, weight)
    diff = returns - values
    var_d = _weighted_mean((diff - _weighted_mean(diff, weight)) ** 2, weight)
    return jnp.where(var_r > 0, 1.0 - var_d / var_r, jnp.nan)
