"""Population training (a league) for the JAX backend: PSRO-style iterations over a meta-game solved by LP.

A config with a ``league:`` section (:class:`training.config.LeagueSection`, ``backend: jax`` and a game with a
JAX twin only) runs :func:`train_league` instead of the plain generation loop:

1. The population of each side starts with the fixed members (``league.fixed``): ``random``, ``heuristic`` (both
   sides) and the twin's scripted probes (:attr:`~.engine.Engine.probes`; a probe joins its own side only).
   Their cross-play matrix is played and the meta-game solved: the Nash mixture of each side (iteration 0).
2. Iteration ``k`` (1-based) trains each side in the game's training order (``league.order`` sets another), for
   its ``training`` steps, starting from its previous policy (``league.warm_start``), against opponents drawn per
   game: the other side's newest policy with probability ``league.latest`` (for the side trained second, the first
   side's policy of this iteration; none at iteration 1 for the side trained first), otherwise a member
   of the other side's population drawn by its Nash weights: a policy member through the rollout's stacked
   ``past`` snapshots (:attr:`.rollout.Opponents.past_weights`: at most :data:`.rollout.PAST_POOL` of them, the
   heaviest; the rest of their weight goes to those kept), the heuristic and random bots and the probes as the
   rollout's own opponent kinds. The new policies are saved as generation ``k``
   (``checkpoints/gen_00k/<side>.msgpack``), so agents by spec load a league's run folder like any other.
   With ``league.exploiters``, each named side then also trains an *exploiter* from fresh parameters against
   the other side's newest policy alone (``checkpoints/gen_00k/exploiter_<side>.msgpack``, member
   ``exploiter_k``): AlphaStar's main exploiters, which find what beats the newest policies so that the next
   iteration's policies meet it through the Nash mixture. Exploiters never become a side's newest policy. With
   ``league.final_exploiters: false`` the last iteration trains none: no policy of the league would ever meet them.
3. The new members join the populations; only the new cells of the cross-play matrix are played (members are
   frozen), in JAX (:func:`cross_play`: whole games of one member against another in one compiled loop, table
   sizes mixed in one batch, ``league.games`` per cell); the meta-game is solved again with the kit's LP
   (:func:`traitors_env.evaluation.metagame.solve_zero_sum`) and ``league.json`` is rewritten, with ``league.png``
   beside it (the Nash weights over iterations, :func:`traitors_env.evaluation.plots.plot_league`).

With ``league.meta_game: per_size`` the meta-game is also solved at each table size on that size's games of every
cell, and each side's training draws a game's opponent from the other side's mixture at the size the game is
dealt (:func:`opponent_mix_by_size`; the rollout's per-size rows, :class:`.rollout.Opponents`). The pooled mixture
is still solved and recorded (the plots read it; the kit's agent of ``league.json`` and ``traitors-exploit``'s
league target play ``nash_by_size``, or the pooled mixture with the ``:pooled`` suffix).

``league.json`` (in the run folder, rewritten after every iteration; floats rounded to 6 decimals)::

    {
      "schema": 1,
      "game": "traitors_aboard",              # registry name
      "sides": ["pirates", "mutineers"],      # row side, column side (GameType.sides)
      "side_labels": ["Pirates", "Mutineers"],
      "games_per_cell": 200, "player_counts": [3, ..., 8], "deterministic": false,
      "members": {                            # per side, in the order of the matrix's rows (row side) / columns
        "pirates": [{"name": "random", "kind": "random", "iteration": 0, "checkpoint": null},
                    {"name": "plank", "kind": "probe", "iteration": 0, "checkpoint": null},
                    {"name": "league_1", "kind": "policy", "iteration": 1,
                     "checkpoint": "checkpoints/gen_001/pirates.msgpack", "exploiter": false},
                    {"name": "exploiter_1", ..., "exploiter": true}, ...],   # with league.exploiters
        "mutineers": [...]},
      "matrix": {                             # the full current matrix: rows = row side's members, columns = column's
        "win_rate": [[...]],                  # the row side's win rate in the cell (games it won / games)
        "wins": [[...]], "games": [[...]],
        "ci_low": [[...]], "ci_high": [[...]]},   # 95 % Wilson interval of win_rate
      "matrix_by_size": {"3": {"wins": [[...]], "games": [[...]]}, ...},   # the same cells split by table size
      "iterations": [                         # one entry per solved meta-game: iteration 0 (fixed members), 1, ...
        {"iteration": 0,
         "value": 0.41,                       # the row side's equilibrium win rate
         "nash": {"pirates": {"random": 0.0, "heuristic": 1.0, ...}, "mutineers": {...}},   # members of that
                                              # iteration's population only (a prefix of "members")
         "unused": {"pirates": [...], "mutineers": [...]},   # members no equilibrium uses
         "nash_by_size": {"3": {"pirates": {...}, "mutineers": {...}}, ...},   # league.meta_game: per_size only
         "value_by_size": {"3": 0.52, ...},                                    # (as "nash" and "value", per size)
         "training": {"pirates": {"latest": 0.1, "past": 0.5, ...}, ...,  # the opponent mix each side's new
                      "exploiters": {"mutineers": {"latest": 1.0}}},   # policy trained against in this iteration
                                              # (absent for iteration 0; "exploiters" with league.exploiters only,
                                              # not in the last iteration with league.final_exploiters: false)
         "newest_met": {"pirates": "league_1", "mutineers": "league_2"},   # the other side's newest policy when
                                              # each side's new policy trained, its "latest" opponent (null: none
                                              # yet; absent for iteration 0; league.order decides which)
         "seconds": {"train": 812.3, "exploiters": 120.5, "cross_play": 41.0}},   # "exploiters": as in "training"
        ...]
    }

Nash weights over iterations: ``[it["nash"][side].get(name, 0.0) for it in iterations]`` for each member name.

Resuming (``--resume``) reads ``league.json`` back: the members and cells of completed iterations are kept. A league
that ended without exploiters in its last iteration (``league.final_exploiters: false``) is not resumed to more
iterations: the longer league trains exploiters there.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from traitors_env.core import load_game
from traitors_env.core.stats import wilson_interval
from traitors_env.evaluation.metagame import solve_zero_sum
from traitors_env.evaluation.plots import plot_league
from traitors_env.files import atomic_write_text

from ..config import ConfigError, RunConfig
from ..evaluate import complete_generation, vs_heuristic
from ..run import RunError, all_trained, derive_seed, prepare_run_folder
from ..storage import RunFolder
from ..table_sizes import table_size_probabilities
from .engine import Engine

__all__ = ["BOTS", "LEAGUE_FILE", "Member", "cross_play", "fixed_members", "opponent_mix", "opponent_mix_by_size",
           "train_league"]

#: the league's file in the run folder
LEAGUE_FILE = "league.json"
#: fixed members every engine has (both sides)
BOTS = ("heuristic", "random")
#: the cross-play loop's member kinds, as :func:`cross_play` switches on them (probe ``i`` is ``3 + i``)
POLICY, HEURISTIC, RANDOM = 0, 1, 2
#: most game decisions a cross-play game may take (a bound for the compiled loop; games are far shorter)
MAX_DECISIONS = 4000


@dataclass(frozen=True)
class Member:
    """A member of one side's population: ``kind`` ``"policy"`` (``checkpoint``: its file, relative to the run
    folder), ``"heuristic"``, ``"random"`` or ``"probe"``; ``iteration`` the one that added it (0 = fixed);
    ``exploiter``: a policy of ``league.exploiters`` (trained from fresh parameters against the other side's
    newest policy), not the side's own line of policies."""

    name: str
    kind: str
    iteration: int = 0
    checkpoint: str | None = None
    exploiter: bool = False


def fixed_members(names, engine: Engine, sides) -> dict[str, list[Member]]:
    """Each side's fixed members from ``league.fixed``, in the order given (a probe only on its own side).

    Raises:
        ValueError: for a name that is neither a bot (:data:`BOTS`) nor one of the engine's probes (naming both),
            or for a side left without any fixed member.
    """
    probes = {name: side for name, side, _ in engine.probes}
    out: dict[str, list[Member]] = {side: [] for side in sides}
    for name in names:
        if name in BOTS:
            for side in sides:
                out[side].append(Member(name, name))
        elif name in probes:
            out[sides[probes[name]]].append(Member(name, "probe"))
        else:
            known = ", ".join([*BOTS, *probes]) or "none"
            raise ValueError(
                f"league.fixed names {name!r}, which is neither a bot nor a probe of {engine.game}'s JAX twin; "
                f"expected one of {known}"
            )
    for side, members in out.items():
        if not members:
            raise ValueError(f"league.fixed gives the {side} no member; add random or heuristic")
    return out


def check_fixed_shares(shares: dict, members: dict[str, list[Member]], sides) -> None:
    """``league.fixed_share``'s entries under a side name members of the other side's population (:func:`fixed_members`):
    a flat entry may name a member one side lacks (the Pirates-only ``plank`` keeps nothing in the Pirates' training),
    a side's own entry may not.

    Raises:
        ConfigError: naming the side, the member and the members that side's training meets.
    """
    for side, other in (tuple(sides), tuple(sides)[::-1]):
        own = shares.get(side)
        missing = sorted(set(own) - {m.name for m in members[other]}) if isinstance(own, dict) else []
        if missing:
            raise ConfigError(f"league.fixed_share.{side} names {', '.join(missing)}, which the {other}' population "
                              f"lacks (a probe plays its own side only); the {side}' training meets "
                              f"{', '.join(m.name for m in members[other])}")


# ---------------------------------------------------------------- cross-play in JAX
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


# ---------------------------------------------------------------- the opponent mix of a side's training
def opponent_mix(nash: dict[str, float], members: list[Member], probes: list[str], latest: float,
                 newest: bool, pool: int, fixed_share: dict[str, float] | None = None,
                 pooled: list[str] | None = None) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The rollout's opponent probabilities for a side trained against the other side's ``members`` with Nash
    weights ``nash`` (name → weight), ``latest`` of the games against its newest policy (if ``newest``), and
    ``fixed_share[name]`` of them kept for each named fixed member among ``members`` (``league.fixed_share``;
    names absent from ``members`` keep nothing): the Nash mixture shares what is left. ``pooled``: the policy
    members of the ``past`` pool, in order (default: the ``pool`` heaviest with positive weight); one with no
    weight here gets probability 0 within ``past``.

    Returns:
        ``(probabilities, pooled, weights)``: float32 ``(4 + len(probes),)`` over (latest, past, heuristic, random,
        probes…); the names of the policy members in the ``past`` pool (the ``pool`` heaviest with positive weight);
        their probabilities within ``past`` (float32 ``(pool,)``, zeros past the real ones; ``[1, 0, …]`` when
        ``past`` cannot be drawn).
    """
    weight = {m.name: max(0.0, float(nash.get(m.name, 0.0))) for m in members}
    if pooled is None:
        policies = sorted((m for m in members if m.kind == "policy" and weight[m.name] > 0),
                          key=lambda m: (-weight[m.name], m.iteration))[:pool]
    else:
        by_name = {m.name: m for m in members}
        policies = [by_name[name] for name in pooled]

    def slot(m: Member) -> int:  # a fixed member's entry in the rollout's opponent kinds
        return 2 if m.kind == "heuristic" else 3 if m.kind == "random" else 4 + probes.index(m.name)

    share = latest if newest else 0.0
    raw = np.zeros(4 + len(probes))
    raw[0] = share
    raw[1] = sum(weight[m.name] for m in policies)
    for m in members:
        if m.kind != "policy":
            raw[slot(m)] += weight[m.name]
    rest = raw[1:].sum()
    if rest <= 0:  # cannot happen for a solved mixture; named if it does
        raise ValueError(f"the Nash mixture {nash} gives no weight to any member")
    kept = {m.name: float((fixed_share or {}).get(m.name, 0.0)) for m in members if m.kind != "policy"}
    raw[1:] *= (1 - share - sum(kept.values())) / rest
    for m in members:
        if kept.get(m.name):
            raw[slot(m)] += kept[m.name]
    past = np.zeros(pool)
    past[: len(policies)] = [weight[m.name] for m in policies]
    if past.sum() > 0:
        past /= past.sum()
    else:  # past is not drawn here (raw[1] == 0); the draw still needs a distribution
        past[0] = 1.0
    return (raw / raw.sum()).astype(np.float32), [m.name for m in policies], past.astype(np.float32)


def opponent_mix_by_size(nash_by_size: dict[int, dict[str, float]], members: list[Member], probes: list[str],
                         latest: float, newest: bool, pool: int, fixed_share: dict[str, float] | None,
                         player_counts, size_probabilities=None) -> tuple[np.ndarray, list[str], np.ndarray]:
    """:func:`opponent_mix` at each table size of ``player_counts`` (``league.meta_game: per_size``), from that
    size's Nash weights ``nash_by_size[n]``, over one ``past`` pool of at most ``pool`` policy members: all those
    with a positive weight at some size when they fit; else each size's heaviest, then the most often drawn
    (weight × ``size_probabilities``, the chance a game is dealt at each size; default uniform). A member left out
    gives its weight at a size to the rest of that size's mixture, as :func:`opponent_mix` does with the pool.

    Returns:
        ``(probabilities, pooled, weights)``: float32 ``(S, 4 + len(probes))`` and ``(S, pool)``, row ``s`` for
        table size ``player_counts[s]`` (the rollout's :class:`~.rollout.Opponents` rows), and the pool's names.
    """
    counts = list(player_counts)
    size_p = np.full(len(counts), 1 / len(counts)) if size_probabilities is None else np.asarray(size_probabilities)
    weight = {m.name: [max(0.0, float(nash_by_size[n].get(m.name, 0.0))) for n in counts]
              for m in members if m.kind == "policy"}
    best = {name: max(w) for name, w in weight.items()}
    order = sorted((m for m in members if m.kind == "policy" and best[m.name] > 0),
                   key=lambda m: (-best[m.name], m.iteration))
    if len(order) > pool:  # each size keeps its heaviest policy, so no size loses its whole policy share
        chosen = {max(order, key=lambda m: (weight[m.name][s], -m.iteration)).name
                  for s in range(len(counts)) if any(weight[m.name][s] > 0 for m in order)}
        often = sorted(order, key=lambda m: (-float(size_p @ np.asarray(weight[m.name])), m.iteration))
        for m in often:
            if len(chosen) >= pool:
                break
            chosen.add(m.name)
        order = [m for m in order if m.name in chosen][:pool]
    pooled = [m.name for m in order]
    rows = [opponent_mix(nash_by_size[n], members, probes, latest, newest, pool, fixed_share, pooled)
            for n in counts]
    return (np.stack([r[0] for r in rows]), pooled, np.stack([r[2] for r in rows]))


def mix_record(probabilities: np.ndarray, past_weights: np.ndarray, pooled: list[str], probes: list[str]) -> dict:
    """``league.json``'s record of an opponent mix: share of the games per member name (``latest``: the newest)."""
    return {
        "latest": round(float(probabilities[0]), 6),
        **{m: round(float(probabilities[1] * w), 6) for m, w in zip(pooled, past_weights)},
        **{k: round(float(p), 6) for k, p in zip(("heuristic", "random", *probes), probabilities[2:]) if p > 0},
    }


def mix_record_by_size(probabilities: np.ndarray, past_weights: np.ndarray, pooled: list[str], probes: list[str],
                       player_counts, size_probabilities: np.ndarray) -> dict:
    """:func:`mix_record` of per-size rows: each name's share averaged over the table-size draw, and ``by_size``."""
    rows = [mix_record(p, w, pooled, probes) for p, w in zip(probabilities, past_weights)]
    names = dict.fromkeys(k for record in rows for k in record)
    return {**{k: round(sum(p * r.get(k, 0.0) for p, r in zip(size_probabilities, rows)), 6) for k in names},
            "by_size": {str(n): r for n, r in zip(player_counts, rows)}}


# ---------------------------------------------------------------- the run
class _League:
    """The populations, their cross-play cells and the solved meta-games; ``league.json``'s content."""

    def __init__(self, config: RunConfig, engine: Engine, sides) -> None:
        self.config, self.engine, self.sides = config, engine, tuple(sides)
        league = config.league
        self.player_counts = list(league.player_counts or config.env.player_counts)
        self.members = fixed_members(league.fixed, engine, self.sides)
        self.cells: dict[tuple[str, str], list[int]] = {}
        #: the same cells per table size: (row name, column name) -> {size: [wins, games]}
        self.cells_by_size: dict[tuple[str, str], dict[int, list[int]]] = {}
        self.iterations: list[dict] = []
        self.params: dict[tuple[str, str], object] = {}  # (side, member name) -> parameters of a policy member

    # cross-play
    def code(self, member: Member) -> int:
        if member.kind == "policy":
            return POLICY
        if member.kind == "probe":
            return 3 + [name for name, _, _ in self.engine.probes].index(member.name)
        return {"heuristic": HEURISTIC, "random": RANDOM}[member.kind]

    def play_missing(self, any_params) -> float:
        """Play every cell not played yet; returns the seconds it took."""
        began = time.perf_counter()
        config, league = self.config, self.config.league
        model = (tuple(config.ppo.net_arch), config.game.type.num_actions, config.ppo.activation)
        row_side, column_side = self.sides
        for i, row in enumerate(self.members[row_side]):
            for j, column in enumerate(self.members[column_side]):
                if (row.name, column.name) in self.cells:
                    continue
                by_size = cross_play(
                    self.engine,
                    model,
                    (self.code(row), self.params.get((row_side, row.name), any_params)),
                    (self.code(column), self.params.get((column_side, column.name), any_params)),
                    league.games,
                    self.player_counts,
                    derive_seed(config.seed, 9, i, j),
                    league.deterministic,
                    by_size=True,
                )
                self.cells_by_size[(row.name, column.name)] = {n: list(c) for n, c in by_size.items()}
                self.cells[(row.name, column.name)] = [sum(w for w, _ in by_size.values()),
                                                       sum(g for _, g in by_size.values())]
        return time.perf_counter() - began

    def matrix(self, size: int | None = None) -> dict:
        """The current cross-play matrix (every table size, or ``size``'s games only)."""
        row_side, column_side = self.sides

        def cell(r: Member, c: Member) -> list[int]:
            if size is None:
                return self.cells[(r.name, c.name)]
            return self.cells_by_size.get((r.name, c.name), {}).get(size, [0, 0])

        wins = [[cell(r, c)[0] for c in self.members[column_side]] for r in self.members[row_side]]
        games = [[cell(r, c)[1] for c in self.members[column_side]] for r in self.members[row_side]]
        rate = [[w / g if g else 0.5 for w, g in zip(wr, gr)] for wr, gr in zip(wins, games)]
        intervals = [[wilson_interval(w, g) for w, g in zip(wr, gr)] for wr, gr in zip(wins, games)]
        return {
            "win_rate": [[round(x, 6) for x in r] for r in rate],
            "wins": wins,
            "games": games,
            "ci_low": [[round(lo, 6) for lo, _ in r] for r in intervals],
            "ci_high": [[round(hi, 6) for _, hi in r] for r in intervals],
        }

    def solve(self, iteration: int, extra: dict) -> dict:
        row_side, column_side = self.sides
        rows, columns = [x.name for x in self.members[row_side]], [x.name for x in self.members[column_side]]
        solved = solve_zero_sum(self.matrix()["win_rate"], rows, columns, sides=self.sides)
        entry = {
            "iteration": iteration,
            "value": solved["value"],
            "nash": {side: solved[side]["mixture"] for side in self.sides},
            "unused": {side: solved[side]["unused"] for side in self.sides},
        }
        if self.config.league.meta_game == "per_size":
            at = {n: solve_zero_sum(self.matrix(n)["win_rate"], rows, columns, sides=self.sides)
                  for n in self.player_counts}
            entry["nash_by_size"] = {str(n): {side: at[n][side]["mixture"] for side in self.sides} for n in at}
            entry["value_by_size"] = {str(n): at[n]["value"] for n in at}
        entry.update(extra)
        self.iterations.append(entry)
        return entry

    def to_json(self) -> dict:
        game = self.config.game
        return {
            "schema": 1,
            "game": game.name,
            "sides": list(self.sides),
            "side_labels": list(game.type.side_labels),
            "games_per_cell": self.config.league.games,
            "player_counts": self.player_counts,
            "deterministic": self.config.league.deterministic,
            "members": {side: [asdict(m) for m in self.members[side]] for side in self.sides},
            "matrix": self.matrix(),
            **({"matrix_by_size": {str(n): {k: self.matrix(n)[k] for k in ("wins", "games")}
                                   for n in self.player_counts}}
               if set(self.cells_by_size) == set(self.cells) else {}),  # not for cells of an older league.json
            "iterations": self.iterations,
        }

    def write(self, run: RunFolder) -> None:
        """``league.json`` and ``league.png`` (the Nash weights over iterations, the kit's :func:`plot_league`)."""
        data = self.to_json()
        atomic_write_text(run.path / LEAGUE_FILE, json.dumps(data, indent=1) + "\n")
        plot_league(data, run.path / "league.png")

    def restore(self, data: dict, completed: int) -> None:
        """The members, cells and meta-games of the first ``completed`` iterations of a saved ``league.json``."""
        row_side, column_side = self.sides
        self.members = {side: [Member(**m) for m in data["members"][side] if m["iteration"] <= completed]
                        for side in self.sides}
        matrix = data["matrix"]
        saved = {side: [m["name"] for m in data["members"][side]] for side in self.sides}
        by_size = data.get("matrix_by_size", {})  # absent in a league.json written before it existed
        for i, r in enumerate(saved[row_side]):
            for j, c in enumerate(saved[column_side]):
                self.cells[(r, c)] = [matrix["wins"][i][j], matrix["games"][i][j]]
                if by_size:
                    self.cells_by_size[(r, c)] = {int(n): [m["wins"][i][j], m["games"][i][j]]
                                                  for n, m in by_size.items()}
        self.iterations = [it for it in data["iterations"] if it["iteration"] <= completed]


def train_league(config: RunConfig, resume: bool = False, force: bool = False, engine: Engine | None = None
                 ) -> RunFolder:
    """Run (or resume) the iterations of ``config.league`` (see the module doc); returns the run folder.

    Raises:
        ConfigError: for ``league.fixed`` naming no bot or probe of the engine, or a side's ``league.fixed_share``
            naming a member the other side lacks (before the run folder is made).
        training.train.RunError: see :func:`training.run.prepare_run_folder`; resuming a league that ended without
            final exploiters to more iterations.
        training.jax_backend.engine.EngineUnavailableError: without the JAX engine.
    """
    from .rollout import PAST_POOL
    from .train import (
        Trainer,
        _load,
        _Logs,
        generation_check,
        iteration_logger,
        progress_bar,
        resolve_engine,
        save_team,
        team_record,
    )

    engine = resolve_engine(engine, config.env.claims, config.game.name)
    game = config.game
    sides = game.type.sides
    league_config = config.league
    order = (game.sides_in_training_order if league_config.order is None
             else tuple(list(sides).index(name) for name in league_config.order))
    try:  # a bad name fails before the run folder is made
        check_fixed_shares(league_config.fixed_share, fixed_members(league_config.fixed, engine, sides), sides)
    except ValueError as error:  # fixed_members' (a ConfigError passes as it is)
        raise error if isinstance(error, ConfigError) else ConfigError(str(error)) from None
    saved = _saved_league(config, engine, sides) if resume else None  # read and checked before the folder is touched
    if saved is not None:
        _check_extension(config, saved)
    run, state = prepare_run_folder(config, resume, force)
    start = state["completed_generations"]
    if all_trained(config, start):
        return run
    probes = [name for name, _, _ in engine.probes]
    exploiters = {sides[side]: league_config.exploiters[sides[side]] for side in order
                  if sides[side] in league_config.exploiters}
    pool = min(PAST_POOL, league_config.iterations * (2 if exploiters else 1))

    league = _League(config, engine, sides)
    base = Trainer(config, engine, past_pool=pool)
    teams: dict[str, dict] = {}
    for index, side in enumerate(order):
        params, opt_state = base.init_params(derive_seed(config.seed, 1, index))
        teams[sides[side]] = {"params": params, "opt_state": opt_state, "timesteps": 0, "newest_name": None}
    any_params = teams[sides[order[0]]]["params"]

    if start > 0:
        league.restore(saved, start)
        for team, entry in teams.items():
            for member in league.members[team]:
                if member.kind == "policy":
                    params, opt_state, steps = _load(run.path / member.checkpoint, entry["params"],
                                                     entry["opt_state"])
                    league.params[(team, member.name)] = params
                    if not member.exploiter:
                        entry.update(params=params, opt_state=opt_state, timesteps=steps, newest_name=member.name)
    else:
        seconds = league.play_missing(any_params)
        league.solve(0, {"seconds": {"cross_play": round(seconds, 2)}})
        league.write(run)

    if config.evaluation.games_per_generation and state.get("baselines_vs_heuristic") is None:
        state["baselines_vs_heuristic"] = vs_heuristic(config, None, baselines=True)

    exploiting_iterations = sum(_exploiting(league_config, generation + 1)
                                for generation in range(start, league_config.iterations))
    bar = progress_bar(config, (league_config.iterations - start) * sum(config.training.steps_for(t) for t in sides)
                       + exploiting_iterations * sum(exploiters.values()))
    logs = _Logs(run)
    try:
        for generation in range(start, league_config.iterations):
            iteration = generation + 1
            began = time.perf_counter()
            record = {"generation": iteration, "teams": {}}
            nash = league.iterations[-1]["nash"]
            mixes = {}
            met = {}  # the other side's newest policy each side's new policy met (league.order decides which)
            for index, side in enumerate(order):
                team, other = sides[side], sides[1 - side]
                entry = teams[team]
                if not league_config.warm_start and generation > 0:
                    params, opt_state = base.init_params(derive_seed(config.seed, 1, index, iteration))
                    entry.update(params=params, opt_state=opt_state)
                met[team] = teams[other]["newest_name"]
                newest = None if met[team] is None else league.params[(other, met[team])]
                opponents, sizing, mixes[team] = _opponents(config, league, nash, team, other, newest, probes, pool,
                                                            entry["params"])
                trainer = Trainer(config, engine, mix=sizing, past_pool=pool)
                bar.set_description(f"league {iteration}/{league_config.iterations} {team}")
                steps = config.training.steps_for(team)
                on_iteration = iteration_logger(config, logs, bar, entry, team, generation, steps)
                params, opt_state, summary = trainer.train_team(
                    side, entry["params"], entry["opt_state"], [], derive_seed(config.seed, generation, index),
                    steps, on_iteration, opponents=opponents,
                )
                path = save_team(config, run, generation, team, params, opt_state, entry["timesteps"])
                name = f"league_{iteration}"
                league.members[team].append(
                    Member(name, "policy", iteration, path.relative_to(run.path).as_posix()))
                league.params[(team, name)] = params
                entry.update(params=params, opt_state=opt_state, newest_name=name)
                record["teams"][team] = team_record(summary, entry["timesteps"])
            trained = time.perf_counter() - began
            exploiting = bool(exploiters) and _exploiting(league_config, iteration)
            if exploiting:
                record["exploiters"] = {}
                for index, side in enumerate(order):
                    team, other = sides[side], sides[1 - side]
                    if team not in exploiters:
                        continue
                    target = league.params[(other, teams[other]["newest_name"])]
                    params, summary, path = _train_exploiter(
                        config, engine, run, generation, side, team, target, pool, bar, logs, derive_seed(
                            config.seed, 3, index, iteration), exploiters[team])
                    name = f"exploiter_{iteration}"
                    league.members[team].append(Member(name, "policy", iteration,
                                                       path.relative_to(run.path).as_posix(), exploiter=True))
                    league.params[(team, name)] = params
                    record["exploiters"][team] = team_record(summary, exploiters[team])
                mixes["exploiters"] = {team: {"latest": 1.0} for team in exploiters}
            exploited = time.perf_counter() - began - trained
            seconds = league.play_missing(any_params)
            spent = {"train": round(trained, 2), "cross_play": round(seconds, 2)}
            if exploiting:
                spent["exploiters"] = round(exploited, 2)
            solved = league.solve(iteration, {"training": mixes, "newest_met": met, "seconds": spent})
            league.write(run)
            record["league"] = {"value": solved["value"], "nash": solved["nash"]}
            bar.write(f"league {iteration}: Nash weight of the newest policies: "
                      + ", ".join(f"{s} {solved['nash'][s].get(f'league_{iteration}', 0.0):.2f}" for s in sides)
                      + f"; value {solved['value']:.3f}")
            check = generation_check(config, run, generation, sides, state)
            if check is not None:
                record["vs_heuristic"] = check
            record["seconds"] = round(time.perf_counter() - began, 2)
            complete_generation(run, state, record, game)
    finally:
        bar.close()
        logs.close()
    return run


def _exploiting(league_config, iteration: int) -> bool:
    """Whether league iteration ``iteration`` (1-based) trains exploiters: all do, but with
    ``league.final_exploiters: false`` the last does not (the progress bar's total and the loop both ask here)."""
    return league_config.final_exploiters or iteration < league_config.iterations


def _saved_league(config: RunConfig, engine: Engine, sides) -> dict | None:
    """The saved ``league.json`` of the run folder a resumed league continues, or ``None`` where no iteration is
    complete (``state.json``).

    Raises:
        RunError: for a missing, unreadable or damaged file (before the run folder is touched: its ``config.yaml``
            stays as it was)."""
    run = RunFolder(config.run_dir)
    state = run.read_state() if run.config_path.exists() else None
    completed = (state or {}).get("completed_generations", 0)
    if not completed:
        return None
    path = run.path / LEAGUE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        _League(config, engine, sides).restore(data, completed)  # every field a resumed league reads
        if not data["iterations"]:
            raise ValueError("no iterations")
    except FileNotFoundError:
        raise RunError(f"cannot resume {str(run.path)!r}: {LEAGUE_FILE} is missing, though state.json counts "
                       f"{completed} completed iteration(s); start the league again with --force") from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, IndexError, TypeError) as error:
        raise RunError(f"cannot resume {str(run.path)!r}: {LEAGUE_FILE} is damaged ({type(error).__name__}: "
                       f"{error}); start the league again with --force") from None
    return data


def _check_extension(config: RunConfig, saved: dict) -> None:
    """Refuse to resume a league past an iteration that ended it without exploiters (``league.final_exploiters:
    false``): the uninterrupted longer league trains them there, so the resumed one would be another league.

    Raises:
        RunError: before the run folder is touched."""
    league_config = config.league
    path = Path(config.run_dir) / LEAGUE_FILE
    if league_config.final_exploiters or not league_config.exploiters:
        return
    last = saved["iterations"][-1]
    if last["iteration"] > 0 and "exploiters" not in last.get("training", {}) \
            and last["iteration"] < league_config.iterations:
        raise RunError(
            f"{path} ended at iteration {last['iteration']} without exploiters (league.final_exploiters: false), "
            f"which a league of {league_config.iterations} iterations trains there; train the longer league "
            f"from the start (--force), or resume with league.iterations {last['iteration']}"
        )


def _opponents(config: RunConfig, league: _League, nash: dict, team: str, other: str, newest, probes: list[str],
               pool: int, filler) -> tuple:
    """The opponents ``team``'s new policy trains against this iteration (the last meta-game's Nash mixture of
    ``other``'s members, pooled or per table size, its ``newest`` policy's share and the fixed shares), the player
    sizing of the rollout for that mix, and ``league.json``'s record of it. ``filler``: any network, where a slot of
    the opponents is never drawn (no newest policy yet, no past member). Returns ``(Opponents, sizing, record)``."""
    import jax
    import jax.numpy as jnp

    from .rollout import Opponents, mix_sizing

    league_config = config.league
    if league_config.meta_game == "per_size":
        counts = list(config.env.player_counts)
        at = league.iterations[-1]["nash_by_size"]
        size_p = table_size_probabilities(config.env.count_weights_for(team), counts)
        probabilities, pooled, past_weights = opponent_mix_by_size(
            {n: at[str(n)][other] for n in counts}, league.members[other], probes, league_config.latest,
            newest is not None, pool, league_config.shares_for(team), counts, size_p,
        )
        average = size_p @ probabilities  # sized for the mix a game meets on average over the team's size draw
        record = mix_record_by_size(probabilities, past_weights, pooled, probes, counts, size_p)
    else:
        probabilities, pooled, past_weights = opponent_mix(
            nash[other], league.members[other], probes, league_config.latest, newest is not None, pool,
            league_config.shares_for(team),
        )
        average = probabilities
        record = mix_record(probabilities, past_weights, pooled, probes)
    newest = filler if newest is None else newest
    stacked = [league.params[(other, name)] for name in pooled] or [newest]
    stacked = stacked + [stacked[0]] * (pool - len(stacked))
    opponents = Opponents(
        jnp.asarray(probabilities), newest,
        jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *stacked),
        jnp.int32(max(1, len(pooled))), jnp.asarray(past_weights),
    )
    # the players sized for this mix only (so a resumed run compiles the same rollout)
    return opponents, tuple(mix_sizing(average).tolist()), record


def _train_exploiter(config: RunConfig, engine: Engine, run: RunFolder, generation: int, side: int, team: str,
                     target, pool: int, bar, logs, seed: int, steps: int):
    """Train side ``team``'s exploiter of iteration ``generation + 1`` from fresh parameters (``seed``) for ``steps``
    learner decisions against ``target`` (the other side's newest policy's parameters) in every game, and save it
    as ``checkpoints/gen_NNN/exploiter_<team>.msgpack``; returns ``(params, summary, checkpoint path)``."""
    import jax
    import jax.numpy as jnp

    from .rollout import Opponents, mix_sizing
    from .train import Trainer, iteration_logger, save_team

    probabilities = np.zeros(4 + len(engine.probes), np.float32)
    probabilities[0] = 1.0  # the newest policy alone
    trainer = Trainer(config, engine, mix=tuple(mix_sizing(probabilities).tolist()), past_pool=pool)
    params, opt_state = trainer.init_params(seed)
    opponents = Opponents(jnp.asarray(probabilities), target,
                          jax.tree_util.tree_map(lambda leaf: jnp.stack([leaf] * pool), target),
                          jnp.int32(1), jnp.asarray(np.eye(1, pool, dtype=np.float32)[0]))
    entry = {"timesteps": 0}
    label = f"exploiter_{team}"
    bar.set_description(f"league {generation + 1}/{config.league.iterations} {label}")
    on_iteration = iteration_logger(config, logs, bar, entry, label, generation, steps)
    params, opt_state, summary = trainer.train_team(side, params, opt_state, [], seed, steps, on_iteration,
                                                    opponents=opponents)
    path = save_team(config, run, generation, team, params, opt_state, entry["timesteps"], file=label)
    return params, summary, path


def read_league(path: str | Path) -> dict:
    """A run folder's (or a file's) ``league.json`` as a dict (schema in the module doc).

    Raises:
        FileNotFoundError: naming the path, if there is none.
    """
    path = Path(path)
    if path.is_dir():
        path = path / LEAGUE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no league file at {str(path)!r}; a run with a league: section writes one")
    return json.loads(path.read_text(encoding="utf-8"))
