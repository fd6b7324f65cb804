"""The team game master of the JAX backend: a batch of games inside one ``lax.scan``, one trajectory per team per game.

Each scan step advances every game slot by one *game* decision. The game master reads the
roles (never shown to a policy) to see whose seat acts: a learner seat samples from the
learner's policy and that decision is a transition (``valid``); any other seat is played by
the slot's opponent, drawn when the game was dealt by the configured weights — the other
team's newest parameters (``latest``), an older snapshot (``past``), the JAX heuristic bot
or the random bot — and is not a transition. A game that ends is dealt again in place
(table size drawn per game, so one batch mixes sizes).

The semantics are those of ``training.team_env.TeamEnv`` (see its module doc):

- the learner's decisions in a game, in any of its seats, in order, form one trajectory;
- the terminal reward (R17: +1 won, −1 lost, shared by the team) reaches the learner's last
  decision of the game even when the game ends on an opponent's decision
  (:func:`~training.jax_backend.ppo.team_gae` carries it back over the opponents' decisions);
- a game in which the learner never acts yields no transition (counted in
  ``games_without_learner_decision``).

Policies see ``observation / OBS_SCALE`` of the seat to act; the heuristic bot sees the raw
observation, like the Python one.

``past``: the older snapshot is drawn once per rollout (each PPO iteration) rather than per
game — the games that draw ``past`` in one rollout meet the same one — so that one extra
forward pass, not one per snapshot, serves them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from traitors_env.agents.checkpoint import OBS_SCALE

from .engine import Engine
from .ppo import Batch, masked_logits, team_gae

#: opponent kinds, in the order of the config's ``opponents`` section
LATEST, PAST, HEURISTIC, RANDOM = 0, 1, 2, 3


class Opponents(NamedTuple):
    """The opponent mix of one rollout: ``probabilities`` float32 ``(4,)`` over (latest, past, heuristic, random)
    and the actor parameters of the other team's newest (``latest``) and one older (``past``) snapshot."""

    probabilities: jnp.ndarray
    latest: Any
    past: Any


class Slots(NamedTuple):
    """The batch of running games; every field has leading dimension ``B`` (games)."""

    state: Any
    kind: jnp.ndarray  # int32: the opponent kind drawn for the game
    memory: Any  # the heuristic bot's memory of the game
    learner_decisions: jnp.ndarray  # int32: learner decisions so far in the game
    last_learner_seat: jnp.ndarray  # int32: the seat of the learner's last decision
    decisions: jnp.ndarray  # int32: game decisions so far


class Settings(NamedTuple):
    """Static settings of a compiled rollout."""

    player_counts: tuple[int, ...]
    player_count_probabilities: tuple[float, ...]
    n_steps: int
    gamma: float
    gae_lambda: float
    #: compute the policy opponents' moves (``latest``/``past``); ``False`` only where none can be drawn
    policy_opponents: bool = True


#: games dealt ahead per slot at the start of each rollout (dealing costs about two engine steps; dealing
#: only at rollout starts instead of at every step keeps it out of the loop; a slot that runs out deals anew)
RESERVE = 2


class Reserve(NamedTuple):
    """Games dealt ahead: ``states`` with leading dimensions ``(RESERVE, B)``; ``used`` int32 ``(B,)`` per slot."""

    states: Any
    used: jnp.ndarray


def _deal(engine: Engine, settings: Settings, key, batch: int):
    """``batch`` new game states, table sizes drawn by the settings' weights."""
    k_count, k_init = jax.random.split(key)
    counts = jnp.asarray(settings.player_counts, jnp.int32)
    index = jax.random.choice(
        k_count, len(counts), (batch,), p=jnp.asarray(settings.player_count_probabilities, jnp.float32)
    )
    return jax.vmap(engine.init)(jax.random.split(k_init, batch), counts[index])


def _slots_of(engine: Engine, state, key, probabilities) -> Slots:
    batch = state.current_player.shape[0]
    kind = jax.random.choice(key, 4, (batch,), p=probabilities).astype(jnp.int32)
    memory = jax.vmap(lambda _: engine.heuristic_memory())(jnp.arange(batch))
    zeros = jnp.zeros(batch, jnp.int32)
    return Slots(state, kind, memory, zeros, zeros, zeros)


def _new_games(engine: Engine, settings: Settings, key, batch: int, probabilities) -> Slots:
    k_deal, k_kind = jax.random.split(key)
    return _slots_of(engine, _deal(engine, settings, k_deal, batch), k_kind, probabilities)


def deal_reserve(engine: Engine, settings: Settings, key, batch: int) -> Reserve:
    """:data:`RESERVE` games per slot, dealt in one batch."""
    states = _deal(engine, settings, key, RESERVE * batch)
    states = jax.tree_util.tree_map(lambda x: x.reshape((RESERVE, batch) + x.shape[1:]), states)
    return Reserve(states, jnp.zeros(batch, jnp.int32))


def _next_games(engine: Engine, settings: Settings, key, ended, reserve: Reserve | None, probabilities):
    """New games for the slots whose game ended: from the reserve while it lasts, else dealt now."""
    k_deal, k_kind = jax.random.split(key)
    if reserve is None:
        return _new_games(engine, settings, key, ended.shape[0], probabilities), None
    batch = ended.shape[0]
    index = jnp.minimum(reserve.used, RESERVE - 1)
    taken = jax.tree_util.tree_map(lambda x: x[index, jnp.arange(batch)], reserve.states)
    short = ended & (reserve.used >= RESERVE)
    state = jax.lax.cond(
        short.any(),
        lambda: _where(short, _deal(engine, settings, k_deal, batch), taken),
        lambda: taken,
    )
    return _slots_of(engine, state, k_kind, probabilities), reserve._replace(used=reserve.used + ended)


def new_slots(engine: Engine, settings: Settings, key, batch: int, opponents: Opponents) -> Slots:
    """``batch`` freshly dealt games with opponents drawn from ``opponents.probabilities``."""
    return _new_games(engine, settings, key, batch, opponents.probabilities)


def _where(condition, a, b):
    """Per-game select of two pytrees with leading dimension ``B``."""

    def pick(x, y):
        c = condition.reshape(condition.shape + (1,) * (x.ndim - 1))
        return jnp.where(c, x, y)

    return jax.tree_util.tree_map(pick, a, b)


def _sample(key, logits, mask):
    logits = masked_logits(logits, mask)
    action = jax.random.categorical(key, logits)
    log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], axis=-1)[:, 0]
    return action.astype(jnp.int32), log_prob


def game_step(
    engine: Engine, settings: Settings, apply_fn, actor_fn, params, team, opponents: Opponents, slots, key, reserve=None
):
    """One decision in every game slot; returns the new slots, the reserve (``None`` if none: every step deals)
    and the step's record (see :func:`rollout`)."""
    batch = slots.kind.shape[0]
    k_learner, k_latest, k_past, k_random, k_bot, k_step, k_deal = jax.random.split(key, 7)
    state = slots.state
    seat = state.current_player.astype(jnp.int32)
    raw = jax.vmap(engine.acting_observation)(state)
    obs = raw / jnp.asarray(OBS_SCALE)
    mask = state.legal_action_mask.astype(bool)
    roles = jax.vmap(engine.roles)(state).astype(jnp.int32)
    rows = jnp.arange(batch)
    is_learner = roles[rows, seat] == team

    logits, value = apply_fn(params, obs)
    action, log_prob = _sample(k_learner, logits, mask)

    opponent, _ = _sample(k_random, jnp.zeros_like(logits), mask)
    bot_action, bot_memory = jax.vmap(engine.heuristic_act)(slots.memory, raw, mask, jax.random.split(k_bot, batch))
    opponent = jnp.where(slots.kind == HEURISTIC, bot_action.astype(jnp.int32), opponent)
    if settings.policy_opponents:
        latest, _ = _sample(k_latest, actor_fn(opponents.latest, obs), mask)
        past, _ = _sample(k_past, actor_fn(opponents.past, obs), mask)
        opponent = jnp.where(slots.kind == LATEST, latest, jnp.where(slots.kind == PAST, past, opponent))
    bot_acted = (~is_learner) & (slots.kind == HEURISTIC)
    memory = _where(bot_acted, bot_memory, slots.memory)
    action = jnp.where(is_learner, action, opponent)

    next_state = jax.vmap(engine.step)(state, action, jax.random.split(k_step, batch))
    ended = next_state.terminated.astype(bool) | next_state.truncated.astype(bool)
    learner_seat = jnp.argmax(roles == team, axis=1)
    team_reward = next_state.rewards[rows, learner_seat].astype(jnp.float32)
    learner_decisions = slots.learner_decisions + is_learner
    played = Slots(
        next_state,
        slots.kind,
        memory,
        learner_decisions,
        jnp.where(is_learner, seat, slots.last_learner_seat),
        slots.decisions + 1,
    )
    fresh, reserve = _next_games(engine, settings, k_deal, ended, reserve, opponents.probabilities)
    slots = _where(ended, fresh, played)
    finished = ended & (learner_decisions > 0)
    record = {
        "obs": obs,
        "mask": mask,
        "action": action,
        "log_prob": log_prob,
        "value": value,
        "valid": is_learner,
        "ended": ended,
        "team_reward": team_reward,
        # per-step sums for the logs
        "games": finished.sum(),
        "wins": (finished & (team_reward > 0)).sum(),
        "game_learner_decisions": jnp.where(finished, learner_decisions, 0).sum(),
        "game_decisions": jnp.where(finished, played.decisions, 0).sum(),
        "games_without_learner_decision": (ended & (learner_decisions == 0)).sum(),
    }
    return slots, reserve, record


def rollout(engine: Engine, settings: Settings, apply_fn, actor_fn, params, team, opponents: Opponents, slots, key):
    """``settings.n_steps`` decisions in every slot, then the team GAE.

    Returns:
        ``(slots, grid, valid, metrics)``: ``grid`` a :class:`~training.jax_backend.ppo.Batch` of shape
        ``(n_steps, B, …)`` (advantages and returns filled in), ``valid`` bool ``(n_steps, B)`` the learner's
        decisions, ``metrics`` sums over the rollout.
    """

    def body(carry, step_key):
        slots, reserve, record = game_step(
            engine, settings, apply_fn, actor_fn, params, team, opponents, carry[0], step_key, carry[1]
        )
        return (slots, reserve), record

    k_reserve, key = jax.random.split(key)
    reserve = deal_reserve(engine, settings, k_reserve, slots.kind.shape[0])
    (slots, _), rec = jax.lax.scan(body, (slots, reserve), jax.random.split(key, settings.n_steps))
    # Bootstrap: the value, seen from the learner's last seat, of each game still running.
    last = jax.vmap(engine.observe)(slots.state, slots.last_learner_seat) / jnp.asarray(OBS_SCALE)
    _, bootstrap = apply_fn(params, last)
    advantage, ret = team_gae(
        rec["valid"], rec["value"], rec["ended"], rec["team_reward"], bootstrap, settings.gamma, settings.gae_lambda
    )
    grid = Batch(rec["obs"], rec["mask"], rec["action"], rec["log_prob"], rec["value"], advantage, ret, rec["valid"])
    metrics = {
        key: rec[key].sum()
        for key in ("games", "wins", "game_learner_decisions", "game_decisions", "games_without_learner_decision")
    }
    metrics["learner_decisions"] = rec["valid"].sum()
    return slots, grid, rec["valid"], metrics


def opponent_probabilities(weights: dict[str, float], snapshots: int) -> np.ndarray:
    """The per-game opponent distribution over (latest, past, heuristic, random): kinds without a snapshot to draw
    (``latest`` needs one, ``past`` two) drop out and the rest is renormalised, as in ``OpponentPool``.

    Raises:
        ValueError: if no kind is left with a positive weight.
    """
    available = (snapshots >= 1, snapshots >= 2, True, True)
    kinds = ("latest", "past", "heuristic", "random")
    raw = np.array([weights.get(k, 0.0) if ok else 0.0 for k, ok in zip(kinds, available)], dtype=np.float64)
    if raw.sum() <= 0:
        raise ValueError(f"no opponent kind can be drawn from weights={dict(weights)} with {snapshots} snapshots")
    return (raw / raw.sum()).astype(np.float32)
