"""The team game master of the JAX backend: a batch of games inside one ``lax.scan``, one trajectory per team per game.

Each scan step advances the game slots by one *game* decision. The game master reads the
roles (never shown to a policy) to see whose seat acts: a learner seat samples from the
learner's policy and that decision is a transition (``valid``); any other seat is played by
the slot's opponent, drawn when the game was dealt by the configured weights — the other
team's newest parameters (``latest``), an older snapshot (``past``), the JAX heuristic bot
or the random bot — and is not a transition. A game that ends leaves its slot empty until the next
deal, which hands new games (table size drawn per game, so one batch mixes sizes) to a fixed number
of empty slots at once (:func:`deal_size`); an empty slot makes no decision meanwhile.

Each player is computed only on the games where it acts: those games are gathered into a
sub-batch of a fixed size (:func:`capacities`), the player runs there and its moves are
scattered back; a game that finds no room waits for a later step (the team semantics and the
opponent draw per game are unchanged). Only the learner's sub-batch is stored for the update.

The semantics are those of ``training.team_env.TeamEnv`` (see its module doc):

- the learner's decisions in a game, in any of its seats, in order, form one trajectory;
- the terminal reward (R17: +1 won, −1 lost, shared by the team) reaches the learner's last
  decision of the game even when the game ends on an opponent's decision
  (:func:`~training.jax_backend.ppo.team_gae` carries it back over the opponents' decisions);
- a game in which the learner never acts yields no transition (counted in
  ``games_without_learner_decision``).

Policies see ``observation / observation_scale(game)`` of the seat to act; the heuristic bot sees the raw
observation, like the Python one.

``past``: each game that draws ``past`` also draws, when it is dealt, which of the other team's
older snapshots it meets (uniformly, as ``OpponentPool`` does) and keeps it for the whole game.
The snapshots are stacked (:attr:`Opponents.past`, at most :data:`PAST_POOL` of them) and each is
run on the ``past`` sub-batch, so the cost of ``past`` grows with the pool, not with the games.

A league (:mod:`.league`) uses two additions, both absent (and the rollout unchanged) otherwise:
:attr:`Opponents.past_weights` draws the snapshot of a ``past`` game by weights (the meta-game's Nash mixture)
instead of uniformly; ``probabilities`` longer than 4 draws, as kinds ``4, 5, …``, the engine's scripted
probes (:attr:`~.engine.Engine.probes`, in order); and a league that solves its meta-game per table size
(``league.meta_game: per_size``) passes ``probabilities`` and ``past_weights`` with one row per table size, in the
order of :attr:`Settings.player_counts`: a game draws its opponent from the row of the size it was dealt.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from traitors_env.core import load_game

from ..agents import observation_scale
from .engine import Engine
from .ppo import Batch, masked_logits, rnad_step_reward, team_gae

#: opponent kinds, in the order of the config's ``opponents`` section
LATEST, PAST, HEURISTIC, RANDOM = 0, 1, 2, 3
#: the players of a rollout, in the order of :attr:`Settings.capacities`
PLAYERS = ("learner", "latest", "past", "heuristic", "random")


#: most older snapshots a rollout holds for ``past`` (with more, :func:`past_pool` samples this many per team's turn)
PAST_POOL = 8


class Opponents(NamedTuple):
    """The opponent mix of a team's turn: ``probabilities`` float32 ``(4,)`` over (latest, past, heuristic, random)
    (``(4 + k,)``: then also the engine's first ``k`` probes); the actor parameters of the other team's newest
    snapshot (``latest``); its older snapshots stacked on a leading axis of static size ``P`` (``past``, see
    :func:`past_pool`), of which the first ``past_count`` (int32 scalar, ≥ 1) are real and the rest repeat them;
    ``past_weights``: ``None`` (each ``past`` game draws one of the real snapshots uniformly) or float32 ``(P,)``,
    the probability of each (a league's Nash weights). A per-size meta-game's league passes ``probabilities``
    ``(S, 4 + k)`` and ``past_weights`` ``(S, P)``: row ``s`` for the games of table size
    ``Settings.player_counts[s]``."""

    probabilities: jnp.ndarray
    latest: Any
    past: Any
    past_count: jnp.ndarray
    past_weights: Any = None


class Slots(NamedTuple):
    """The batch of running games; every field has leading dimension ``B`` (games)."""

    state: Any
    kind: jnp.ndarray  # int32: the opponent kind drawn for the game
    past: jnp.ndarray  # int32: which of Opponents.past the game meets if its kind is PAST (drawn per game)
    memory: Any  # the heuristic bot's memory of the game
    learner_decisions: jnp.ndarray  # int32: learner decisions so far in the game
    last_learner_seat: jnp.ndarray  # int32: the seat of the learner's last decision
    decisions: jnp.ndarray  # int32: game decisions so far
    empty: jnp.ndarray  # bool: the slot's game has ended and no new one has been dealt yet


class Settings(NamedTuple):
    """Static settings of a compiled rollout."""

    player_counts: tuple[int, ...]
    player_count_probabilities: tuple[float, ...]
    n_steps: int
    gamma: float
    gae_lambda: float
    #: compute the policy opponents' moves (``latest``/``past``); ``False`` only where none can be drawn
    policy_opponents: bool = True
    #: games per step each player may act in, for (learner, latest, past, heuristic, random), see
    #: :func:`capacities`; ``None``: every player is computed on the whole batch (no game ever waits)
    capacities: tuple[int, ...] | None = None
    #: games handed out per deal (see :func:`deal_size`); ``None``: :func:`deal_size` of the batch
    deals: int | None = None
    #: store each learner transition's role labels for the belief head (:func:`belief_labels`; ``ppo.belief_coef``)
    belief_labels: bool = False
    #: R-NaD's η (``ppo.regularizer`` kind ``rnad``): each learner decision's reward gets
    #: :func:`~.ppo.rnad_step_reward` against the regularisation policy passed to :func:`rollout`; 0: none
    rnad_eta: float = 0.0


#: the learner's share of game decisions per team (Pirates, Mutineers), measured on the real game with table
#: sizes 3–8 drawn uniformly (Pirates hold most seats)
LEARNER_SHARE = (0.72, 0.28)
#: how many times more opponent decisions a game against one opponent kind may take than a game against another
#: (measured: Mutineers learning against the heuristic Pirates play ~4× the opponent decisions per game that
#: they play against untrained policies or the random bot)
LONGER_GAMES = 4.0


def capacities(batch: int, team: int, probabilities, margin: float = 1.15, share=LEARNER_SHARE) -> tuple[int, ...]:
    """Games per step each player acts in — (learner, latest, past, heuristic, random) — for a batch of ``batch``
    games of the learner ``team`` (0 Pirates, 1 Mutineers) against opponents drawn by ``probabilities``
    (latest, past, heuristic, random), × ``margin``, in multiples of 8, at least 8 for a kind that can be drawn,
    0 for one that cannot.

    Each player is computed only on a sub-batch of that many games (gathered from the games where it acts, its
    moves scattered back); when more games need it in a step, the others wait for a later step (drawn uniformly
    by :func:`_pick`). Waiting keeps the game semantics and the opponent draw per game; it only delays those
    games (and costs the engine step of a game that waits). The learner gets its share of the game decisions;
    an opponent kind drawn with probability ``p`` gets the share its games would take if they were
    :data:`LONGER_GAMES` times as long as the others' — an upper bound: an opponent's rows are cheap next to
    the engine step a waiting game wastes.
    """
    s = share[team]

    def cap(expected):
        return min(batch, max(8, math.ceil(expected * margin / 8) * 8))

    def upper(p):
        return p * LONGER_GAMES / (p * LONGER_GAMES + 1 - p)

    kinds = tuple(0 if p <= 0 else cap(batch * (1 - s) * upper(p)) for p in probabilities)
    return (cap(batch * s),) + kinds


def capacities_of(settings: Settings, batch: int, kinds: int = 4) -> tuple[int, ...]:
    """``settings.capacities``, or the whole batch for every player (the learner and ``kinds`` opponent kinds); the
    policy opponents get 0 without ``settings.policy_opponents``."""
    caps = settings.capacities or (batch,) * (1 + kinds)
    if not settings.policy_opponents:
        caps = (caps[0], 0, 0) + tuple(caps[3:])
    return tuple(int(c) for c in caps)


def deal_size(batch: int) -> int:
    """Games handed out per deal in a batch of ``batch`` slots: a sixteenth of the batch (at least 8, at most the
    batch). A deal happens on a step that finds at least half that many slots empty.

    Why: dealing a game (shuffle, hands, first observation) costs about four engine steps, so dealing the whole
    batch whenever one slot needs a game, or dealing ahead for every slot, costs more than the game steps
    themselves; dealing only what ended, a batch at a time, leaves a few percent of the slots idle for a step or two.
    """
    return min(batch, max(8, batch // 16))


def _deal(engine: Engine, settings: Settings, key, batch: int):
    """``batch`` new game states, table sizes drawn by the settings' weights, and each one's index in
    ``settings.player_counts`` (int32 ``(batch,)``)."""
    k_count, k_init = jax.random.split(key)
    counts = jnp.asarray(settings.player_counts, jnp.int32)
    index = jax.random.choice(
        k_count, len(counts), (batch,), p=jnp.asarray(settings.player_count_probabilities, jnp.float32)
    )
    return jax.vmap(engine.init)(jax.random.split(k_init, batch), counts[index]), index


def _draw(key, probabilities, size_index, batch: int):
    """One draw per game from ``probabilities`` (``(n,)``, or ``(S, n)``: the row of each game's table size)."""
    if probabilities.ndim == 1:  # jax.random.choice, as before per-size rows existed (the same draws)
        return jax.random.choice(key, probabilities.shape[0], (batch,), p=probabilities).astype(jnp.int32)
    return jax.random.categorical(key, jnp.log(probabilities[size_index]), axis=-1).astype(jnp.int32)


def _slots_of(engine: Engine, state, key, opponents: Opponents, size_index) -> Slots:
    batch = state.current_player.shape[0]
    k_kind, k_past = jax.random.split(key)
    kind = _draw(k_kind, opponents.probabilities, size_index, batch)  # 4 kinds, or 4 + the probes a league draws
    if opponents.past_weights is None:
        past = jax.random.randint(k_past, (batch,), 0, opponents.past_count).astype(jnp.int32)
    else:
        past = _draw(k_past, opponents.past_weights, size_index, batch)
    memory = jax.vmap(lambda _: engine.heuristic_memory())(jnp.arange(batch))
    zeros = jnp.zeros(batch, jnp.int32)
    return Slots(state, kind, past, memory, zeros, zeros, zeros, jnp.zeros(batch, bool))


def _new_games(engine: Engine, settings: Settings, key, batch: int, opponents: Opponents) -> Slots:
    rows = opponents.probabilities.shape[0] if opponents.probabilities.ndim == 2 else None
    if rows is not None and rows != len(settings.player_counts):  # a gather would clamp a wrong index silently
        raise ValueError(f"Opponents.probabilities has {rows} rows; per-size rows need one per table size of "
                         f"Settings.player_counts {settings.player_counts}, in that order")
    k_deal, k_kind = jax.random.split(key)
    state, size_index = _deal(engine, settings, k_deal, batch)
    return _slots_of(engine, state, k_kind, opponents, size_index)


def _deal_empty(engine: Engine, settings: Settings, key, slots: Slots, opponents: Opponents) -> Slots:
    """New games in up to ``settings.deals`` (:func:`deal_size`) empty slots, drawn uniformly when more are empty,
    on a step that finds at least half that many empty; else ``slots`` unchanged."""
    batch = slots.kind.shape[0]
    size = min(batch, settings.deals or deal_size(batch))
    k_pick, k_new = jax.random.split(key)

    def deal(slots):
        return _put(slots, _pick(k_pick, slots.empty, size), _new_games(engine, settings, k_new, size, opponents))

    return jax.lax.cond(slots.empty.sum() >= max(1, size // 2), deal, lambda slots: slots, slots)


def new_slots(engine: Engine, settings: Settings, key, batch: int, opponents: Opponents) -> Slots:
    """``batch`` freshly dealt games with opponents drawn from ``opponents.probabilities`` (and, for ``past``,
    a snapshot drawn from the first ``opponents.past_count`` of ``opponents.past``)."""
    return _new_games(engine, settings, key, batch, opponents)


def _where(condition, a, b):
    """Per-game select of two pytrees with leading dimension ``B``."""

    def pick(x, y):
        c = condition.reshape(condition.shape + (1,) * (x.ndim - 1))
        return jnp.where(c, x, y)

    return jax.tree_util.tree_map(pick, a, b)


def _pick(key, acts, capacity: int):
    """Up to ``capacity`` of the games where ``acts`` (bool ``(B,)``), as indices ``int32 (capacity,)`` (``B`` =
    an unused row); the search starts at a random game, so when more games than ``capacity`` need a player, which
    of them wait a step is drawn uniformly."""
    batch = acts.shape[0]
    if capacity >= batch:
        return jnp.where(acts, jnp.arange(batch), batch).astype(jnp.int32)
    shift = jax.random.randint(key, (), 0, batch)
    (found,) = jnp.nonzero(jnp.roll(acts, -shift), size=capacity, fill_value=-1)
    return jnp.where(found >= 0, (found + shift) % batch, batch).astype(jnp.int32)


def _rows(tree, index):
    """Rows ``index`` of a pytree with leading dimension ``B`` (an index ``B`` reads the last row: unused)."""
    return jax.tree_util.tree_map(lambda x: jnp.take(x, index, axis=0, mode="clip"), tree)


def _put(tree, index, rows):
    """``tree`` with rows ``index`` replaced by ``rows`` (an index ``B`` is dropped)."""
    return jax.tree_util.tree_map(lambda x, r: x.at[index].set(r, mode="drop"), tree, rows)


def _sample(key, logits, mask):
    logits = masked_logits(logits, mask)
    action = jax.random.categorical(key, logits)
    log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], axis=-1)[:, 0]
    return action.astype(jnp.int32), log_prob


def belief_labels(roles, seat, hidden_side: int, size: int):
    """The belief head's labels of decisions by ``seat``: per seat *relative* to it (index ``r`` = absolute seat
    ``(seat + r) % n``, as the observations and ``BeliefAgent.beliefs`` count seats), 1.0 where that seat is on
    ``hidden_side``, else 0.0; NaN at ``r = 0`` (the decider knows its own role) and at ``r >= n`` (no such seat).

    The game master's truth, read from ``roles`` (:attr:`.engine.Engine.roles`); it goes into the loss only, never
    into an observation.

    Args:
        roles: int ``(C, S)``: each seat's side, −1 for an empty seat (the occupied seats come first).
        seat: int ``(C,)``: the deciding seat. hidden_side: ``Game.hidden_side``. size: ``Game.belief_size``.

    Returns:
        float32 ``(C, size)``.
    """
    n = jnp.maximum((roles >= 0).sum(axis=1), 1)[:, None]
    relative = jnp.arange(size)[None, :]
    absolute = (seat[:, None] + relative) % n
    side = jnp.take_along_axis(roles, absolute.astype(jnp.int32), axis=1)
    label = (side == hidden_side).astype(jnp.float32)
    return jnp.where((relative >= 1) & (relative < n), label, jnp.nan)


def game_step(
    engine: Engine, settings: Settings, apply_fn, actor_fn, params, team, opponents: Opponents, slots, key
):
    """One decision in every running game slot that gets its player this step (see :class:`Settings`
    ``capacities``), then a deal if enough slots are empty (:func:`deal_size`); returns the new slots and the
    step's record (see
    :func:`rollout`; ``record["learner"]`` holds the learner's sub-batch: ``index`` int32 ``(C,)`` its games,
    ``B`` for an unused row, and their ``obs``, ``mask``, ``action``, ``log_prob``, ``value``)."""
    batch = slots.kind.shape[0]
    kinds = opponents.probabilities.shape[-1]
    caps = capacities_of(settings, batch, kinds)
    k_pick, k_learner, k_latest, k_past, k_random, k_bot, k_step, k_deal = jax.random.split(key, 8)
    k_pick = jax.random.split(k_pick, len(caps))
    state = slots.state
    seat = state.current_player.astype(jnp.int32)
    raw = jax.vmap(engine.acting_observation)(state)
    mask = state.legal_action_mask.astype(bool)
    roles = jax.vmap(engine.roles)(state).astype(jnp.int32)
    rows = jnp.arange(batch)
    running = ~slots.empty
    is_learner = (roles[rows, seat] == team) & running
    action = jnp.zeros(batch, jnp.int32)
    moved = jnp.zeros(batch, bool)

    scale = jnp.asarray(observation_scale(load_game(engine.game)))

    def network_input(index):  # the networks' scaled observation (the heuristic reads the raw one)
        return _rows(raw, index) / scale

    # The learner, on the games where it acts (its sub-batch is the rollout's transitions).
    index = _pick(k_pick[0], is_learner, caps[0])
    obs = network_input(index)
    sub_mask = _rows(mask, index)
    logits, value = apply_fn(params, obs)
    learner_action, log_prob = _sample(k_learner, logits, sub_mask)
    action = action.at[index].set(learner_action, mode="drop")
    moved = moved.at[index].set(True, mode="drop")
    waiting = [(is_learner.sum() - caps[0]).clip(0)]
    learner = {
        "index": index,
        "obs": obs,
        "mask": sub_mask,
        "action": learner_action,
        "log_prob": log_prob,
        "value": value,
    }
    if settings.belief_labels:  # the truth for the belief head's loss (never part of ``obs``)
        game = load_game(engine.game)
        learner["belief"] = belief_labels(
            _rows(roles, index), _rows(seat, index), game.require("hidden_side"), game.belief_size
        )
    full_value = jnp.zeros(batch, jnp.float32).at[index].set(value, mode="drop")

    # Each opponent kind on the games where it acts.
    memory = slots.memory
    probes = [(4 + i, caps[5 + i], jax.random.fold_in(k_random, 1 + i)) for i in range(kinds - 4)]
    for kind, capacity, k_act in (
        (LATEST, caps[1], k_latest),
        (PAST, caps[2], k_past),
        (HEURISTIC, caps[3], k_bot),
        (RANDOM, caps[4], k_random),
        *probes,
    ):
        acts = (~is_learner) & running & (slots.kind == kind)
        waiting.append((acts.sum() - capacity).clip(0))
        if capacity == 0:
            continue
        index = _pick(k_pick[kind + 1], acts, capacity)
        sub_mask = _rows(mask, index)
        if kind == HEURISTIC:
            sub_memory = _rows(memory, index)
            chosen, sub_memory = jax.vmap(engine.heuristic_act)(
                sub_memory, _rows(raw, index), sub_mask, jax.random.split(k_act, capacity)
            )
            memory = _put(memory, index, sub_memory)
        elif kind == RANDOM:
            chosen, _ = _sample(k_act, jnp.zeros(sub_mask.shape, jnp.float32), sub_mask)
        elif kind >= 4:  # a scripted probe of the engine
            act = engine.probes[kind - 4][2]
            chosen = jax.vmap(act)(_rows(raw, index), sub_mask, jax.random.split(k_act, capacity))
        elif kind == LATEST:
            chosen, _ = _sample(k_act, actor_fn(opponents.latest, network_input(index)), sub_mask)
        else:  # every pooled snapshot on the sub-batch; each game takes the one it drew
            obs = network_input(index)
            every = jax.vmap(actor_fn, in_axes=(0, None))(opponents.past, obs)  # (P, capacity, actions)
            drawn = _rows(slots.past, index)
            chosen, _ = _sample(k_act, every[drawn, jnp.arange(capacity)], sub_mask)
        action = action.at[index].set(chosen.astype(jnp.int32), mode="drop")
        moved = moved.at[index].set(True, mode="drop")

    stepped = jax.vmap(engine.step)(state, action, jax.random.split(k_step, batch))
    next_state = _where(moved, stepped, state)  # a game whose player had no room this step waits
    ended = moved & (next_state.terminated.astype(bool) | next_state.truncated.astype(bool))
    valid = moved & is_learner
    learner_seat = jnp.argmax(roles == team, axis=1)
    team_reward = next_state.rewards[rows, learner_seat].astype(jnp.float32)
    learner_decisions = slots.learner_decisions + valid
    played = Slots(
        next_state,
        slots.kind,
        slots.past,
        memory,
        learner_decisions,
        jnp.where(valid, seat, slots.last_learner_seat),
        slots.decisions + moved,
        slots.empty | ended,
    )
    slots = _deal_empty(engine, settings, k_deal, played, opponents)
    finished = ended & (learner_decisions > 0)
    record = {
        "learner": learner,
        "action": action,
        "value": full_value,
        "valid": valid,
        "ended": ended,
        "team_reward": team_reward,
        # per-step sums for the logs
        "decisions": moved.sum(),
        "waiting": jnp.stack(waiting),  # games that wait for (learner, latest, past, heuristic, random)
        "empty": slots.empty.sum(),  # slots left without a game for the next step (no deal yet)
        "games": finished.sum(),
        "wins": (finished & (team_reward > 0)).sum(),
        "game_learner_decisions": jnp.where(finished, learner_decisions, 0).sum(),
        "game_decisions": jnp.where(finished, played.decisions, 0).sum(),
        "games_without_learner_decision": (ended & (learner_decisions == 0)).sum(),
    }
    return slots, record


def rollout(engine: Engine, settings: Settings, apply_fn, actor_fn, params, team, opponents: Opponents, slots, key,
            reg_params=None):
    """``settings.n_steps`` steps of :func:`game_step`, then the team GAE (with ``settings.rnad_eta > 0``, over
    rewards transformed by R-NaD against the actor parameters ``reg_params``, :func:`~.ppo.rnad_step_reward`).

    Returns:
        ``(slots, batch, valid, metrics)``: ``batch`` a :class:`~training.jax_backend.ppo.Batch` of shape
        ``(n_steps, C, …)`` — the learner's sub-batch of each step, ``C`` its capacity — with advantages and
        returns filled in; ``valid`` bool ``(n_steps, C)`` the rows that are the learner's decisions;
        ``metrics`` sums over the rollout (``decisions``: game decisions made).
    """

    def body(carry, step_key):
        return game_step(engine, settings, apply_fn, actor_fn, params, team, opponents, carry, step_key)

    batch = slots.kind.shape[0]
    slots, rec = jax.lax.scan(body, slots, jax.random.split(key, settings.n_steps))
    # Bootstrap: the value, seen from the learner's last seat, of each game still running.
    scale = jnp.asarray(observation_scale(load_game(engine.game)))
    last = jax.vmap(engine.observe)(slots.state, slots.last_learner_seat) / scale
    _, bootstrap = apply_fn(params, last)
    sub = rec["learner"]
    valid = sub["index"] < batch
    step_reward = None
    if settings.rnad_eta:  # the learner's rows only: one more actor pass over the stored sub-batch
        reference = jnp.zeros(sub["mask"].shape, jnp.float32) if reg_params is None else actor_fn(reg_params, sub["obs"])
        own = rnad_step_reward(sub["log_prob"], reference, sub["mask"], sub["action"], settings.rnad_eta)
        steps = jnp.broadcast_to(jnp.arange(settings.n_steps)[:, None], sub["index"].shape)
        step_reward = jnp.zeros((settings.n_steps, batch), jnp.float32).at[steps, sub["index"]].add(
            jnp.where(valid, own, 0.0), mode="drop")
    advantage, ret = team_gae(
        rec["valid"], rec["value"], rec["ended"], rec["team_reward"], bootstrap, settings.gamma, settings.gae_lambda,
        step_reward,
    )
    index = jnp.minimum(sub["index"], batch - 1)
    grid = Batch(
        sub["obs"],
        sub["mask"],
        sub["action"],
        sub["log_prob"],
        sub["value"],
        jnp.take_along_axis(advantage, index, axis=1),
        jnp.take_along_axis(ret, index, axis=1),
        valid,
        sub.get("belief"),
    )
    metrics = {
        key: rec[key].sum()
        for key in (
            "decisions",
            "games",
            "wins",
            "game_learner_decisions",
            "game_decisions",
            "games_without_learner_decision",
        )
    }
    metrics["learner_decisions"] = rec["valid"].sum()
    for i, player in enumerate(PLAYERS):  # game-steps spent waiting for a player with no room left
        metrics[f"waiting_{player}"] = rec["waiting"][:, i].sum()
    for i in range(len(PLAYERS), rec["waiting"].shape[1]):  # a league's probes
        metrics[f"waiting_{engine.probes[i - len(PLAYERS)][0]}"] = rec["waiting"][:, i].sum()
    metrics["waiting_deal"] = rec["empty"].sum()  # slot-steps spent empty, waiting for a deal
    return slots, grid, valid, metrics


def past_pool(older: list, size: int, rng: np.random.Generator) -> tuple[list, int]:
    """The ``past`` pool of a team's turn from the other team's ``older`` snapshots (oldest first): ``size``
    entries (the static ``P`` of :class:`Opponents`) and the number that are real.

    All of them when they fit; else a uniform sample of ``size`` drawn without replacement by ``rng`` (each game
    then draws uniformly from it, so every older snapshot stays equally likely). Fewer are repeated to fill
    ``size``; an empty ``older`` gives ``([], 0)`` (``past`` cannot be drawn: the caller fills the pool).
    """
    if not older:
        return [], 0
    if len(older) > size:
        older = [older[i] for i in sorted(rng.choice(len(older), size, replace=False))]
    count = len(older)
    return [older[i % count] for i in range(size)], count


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


def mix_sizing(probabilities: np.ndarray) -> np.ndarray:
    """Probabilities rounded up to powers of two (at least 1/16) for sizing the rollout's players: the compiled
    rollout depends on the sizes, so nearby mixes share one compilation."""
    out = np.where(probabilities > 0, 2.0 ** np.ceil(np.log2(np.maximum(probabilities, 1 / 16))), 0.0)
    return np.minimum(out, 1.0)
