"""Cross-play of two league members in JAX: whole games of one member against another in one compiled loop.

A member is a code and parameters (:data:`POLICY` with its network's, :data:`HEURISTIC`, :data:`RANDOM`, or a
probe of the engine); :func:`cross_play` plays ``games`` games of a row member against a column member, table sizes
mixed in one batch, and counts the row side's wins. The league (:mod:`.population`) fills its cross-play matrix
with it.
"""

from __future__ import annotations

import functools

import numpy as np

from traitors_env.core import load_game

from .engine import Engine

__all__ = ["HEURISTIC", "MAX_DECISIONS", "POLICY", "RANDOM", "cross_play"]

#: the cross-play loop's member kinds, as :func:`cross_play` switches on them (probe ``i`` is ``3 + i``)
POLICY, HEURISTIC, RANDOM = 0, 1, 2
#: most game decisions a cross-play game may take (a bound for the compiled loop; games are far shorter)
MAX_DECISIONS = 4000


@functools.lru_cache(maxsize=4)
def _compiled_cross_play(engine: Engine, net_arch: tuple, num_actions: int, activation: str, deterministic: bool):
    import jax
    import jax.numpy as jnp

    from ..agents import observation_scale
    from . import ppo
    from .rollout import _where

    model = ppo.ActorCritic(net_arch, num_actions, activation)
    scale = jnp.asarray(observation_scale(load_game(engine.game)))

    def member_act(code, params, raw, mask, memory, key):
        batch = raw.shape[0]

        def policy(memory):
            logits = ppo.masked_logits(model.apply(params, raw / scale, method=ppo.ActorCritic.logits), mask)
            action = jnp.argmax(logits, -1) if deterministic else jax.random.categorical(key, logits)
            return action.astype(jnp.int32), memory

        def heuristic(memory):
            action, memory = jax.vmap(engine.heuristic_act)(memory, raw, mask, jax.random.split(key, batch))
            return action.astype(jnp.int32), memory

        def random(memory):
            return jax.random.categorical(key, jnp.where(mask, 0.0, ppo.ILLEGAL_LOGIT)).astype(jnp.int32), memory

        def probe(act):
            def run(memory):
                return jax.vmap(act)(raw, mask, jax.random.split(key, batch)).astype(jnp.int32), memory

            return run

        branches = [policy, heuristic, random, *(probe(act) for _, _, act in engine.probes)]
        return jax.lax.switch(code, branches, memory)

    def play(key, num_players, row_code, row_params, column_code, column_params):
        batch = num_players.shape[0]
        k_init, key = jax.random.split(key)
        state = jax.vmap(engine.init)(jax.random.split(k_init, batch), num_players)
        memory = jax.vmap(lambda _: engine.heuristic_memory())(jnp.arange(batch))
        rows = jnp.arange(batch)
        zeros = jnp.zeros(batch, bool)

        def cond(carry):
            _, _, _, done, _, steps, _ = carry
            return (~done).any() & (steps < MAX_DECISIONS)

        def body(carry):
            state, row_memory, column_memory, done, won, steps, key = carry
            key, k_row, k_column, k_step = jax.random.split(key, 4)
            raw = jax.vmap(engine.acting_observation)(state)
            mask = state.legal_action_mask.astype(bool)
            roles = jax.vmap(engine.roles)(state).astype(jnp.int32)
            is_row = roles[rows, state.current_player.astype(jnp.int32)] == 0
            row_action, row_next = member_act(row_code, row_params, raw, mask, row_memory, k_row)
            column_action, column_next = member_act(column_code, column_params, raw, mask, column_memory, k_column)
            action = jnp.where(is_row, row_action, column_action)
            row_memory = _where(is_row & ~done, row_next, row_memory)
            column_memory = _where(~is_row & ~done, column_next, column_memory)
            stepped = jax.vmap(engine.step)(state, action, jax.random.split(k_step, batch))
            state = _where(~done, stepped, state)
            ended = ~done & (state.terminated.astype(bool) | state.truncated.astype(bool))
            row_seat = jnp.argmax(roles == 0, axis=1)
            won = won | (ended & (state.rewards[rows, row_seat] > 0))
            return state, row_memory, column_memory, done | ended, won, steps + 1, key

        carry = (state, memory, memory, zeros, zeros, jnp.int32(0), key)
        _, _, _, done, won, _, _ = jax.lax.while_loop(cond, body, carry)
        return won, done

    return jax.jit(play)


def cross_play(engine: Engine, model: tuple, row: tuple, column: tuple, games: int, player_counts, seed: int,
               deterministic: bool = False, by_size: bool = False) -> tuple[int, int] | dict[int, tuple[int, int]]:
    """``games`` games of the ``row`` member (the game's row side, ``GameType.sides[0]``) against the ``column``
    member, played whole in one compiled loop of the JAX twin; table sizes ``player_counts[i % len]`` for game
    ``i``; each side's member plays every seat of it (one heuristic memory per side per game, as the kit's agent).

    Args:
        model: ``(net_arch, num_actions, activation)`` of the policies.
        row, column: ``(code, params)``: code :data:`POLICY` (``params`` its network's), :data:`HEURISTIC`,
            :data:`RANDOM`, or ``3 + i`` for the engine's probe ``i`` (``params``: any network's, unused).
        seed: the games' seed (deals and every draw).
        deterministic: policies play their most probable legal action.
        by_size: return the counts per table size.

    Returns:
        ``(row wins, finished games)`` (a game still running after :data:`MAX_DECISIONS` decisions is not
        counted); with ``by_size``, ``{table size: (row wins, finished games)}`` over ``player_counts``.
    """
    import jax
    import jax.numpy as jnp

    net_arch, num_actions, activation = model
    play = _compiled_cross_play(engine, tuple(net_arch), num_actions, activation, bool(deterministic))
    counts = np.asarray(player_counts, np.int32)
    num_players = jnp.asarray(counts[np.arange(games) % len(counts)])
    won, done = play(jax.random.key(seed), num_players, jnp.int32(row[0]), row[1], jnp.int32(column[0]), column[1])
    won, done = np.asarray(won), np.asarray(done)
    if by_size:
        size = np.asarray(num_players)
        return {int(n): (int((won & done)[size == n].sum()), int(done[size == n].sum())) for n in counts}
    return int((won & done).sum()), int(done.sum())
