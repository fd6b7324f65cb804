"""A JAX engine over a small variant's exact tree: any ``"<game>:<variant>"`` the game declares
(:func:`traitors_env.solve.small_variants`, e.g. ``avalon:mini5``, ``openspiel_social_deduction:mini3``) trains with
the JAX backend without a hand-written twin, by table lookups.

Why: a small variant's tree (:func:`traitors_env.solve.exact.build_tree`) holds every history, so the game needs no
rules inside JAX: the state is a node index. :func:`tables` renumbers the nodes breadth-first (each node's children
are contiguous: a decision's child is ``first[node] + rank of the action among the legal ones``) and keeps, per
node, its kind, seat, information state, chance probability, each seat's side and side 0's return; per
information state its legal mask and its observation (the game's own ``observation`` of that seat there, stored as
the few columns that vary over the table, deduplicated); per distinct observation the game's Python heuristic's
action probabilities (:func:`~traitors_env.solve.exact.agent_policy`), found from an observation by an exact
integer hash (checked collision-free at build time).

The state rests on decision or terminal nodes only: ``init``/``step`` resolve chance nodes by sampling their
outcomes with the key (as many rounds as the tree's longest chain of chance nodes). After the end, pgx's
conventions: a step changes nothing and its rewards are zero; an illegal action (the game master never plays one)
leaves the state as it was.

Approximation: ``observe(state, seat)`` of a seat that is not acting is that seat's observation at its last
decision (zeros before its first); the tree has no node object per history to ask. The game master reads it only
for the bootstrap value of the learner's last seat, which is exact there (the observation it last acted on).
"""

from __future__ import annotations

import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from traitors_env.core import load_game

from .interface import Engine

__all__ = ["Tables", "TreeState", "tables", "tree_engine", "tree_engine_names"]

_CHANCE, _DECISION, _TERMINAL = 0, 1, 2


class TreeState(NamedTuple):
    """pgx's fields the game master reads, the node, and each seat's last information state (−1: none yet)."""

    node: jnp.ndarray
    current_player: jnp.ndarray
    legal_action_mask: jnp.ndarray
    rewards: jnp.ndarray
    terminated: jnp.ndarray
    truncated: jnp.ndarray
    last_info: jnp.ndarray


class Tables(NamedTuple):
    """The numpy tables of one variant (module doc); nodes in breadth-first order, node 0 the root."""

    name: str
    num_players: int
    seats: int  # padded seat count (the game's max_players)
    kind: np.ndarray  # int8 (N,)
    player: np.ndarray  # int8 (N,), −1 off decisions
    first: np.ndarray  # int32 (N,): first child
    count: np.ndarray  # int32 (N,): children
    info: np.ndarray  # int32 (N,), −1 off decisions
    prob: np.ndarray  # float32 (N,): probability of the node at its chance parent (0 elsewhere)
    side0: np.ndarray  # int8 (N,): side 0's return at a terminal (0 elsewhere)
    roles: np.ndarray  # int8 (N, seats): each seat's side, −1 beyond the table
    legal: np.ndarray  # bool (I, A): legal mask per information state
    obs_row: np.ndarray  # int32 (I,): the information state's distinct observation
    base: np.ndarray  # float32 (D,): the observation columns that never vary
    columns: np.ndarray  # int32 (K,): the columns that vary
    values: np.ndarray  # float32 (R, K): each distinct observation's varying columns
    weights: np.ndarray  # uint32 (K,): the hash's multipliers
    hashes: np.ndarray  # uint32 (R,): sorted hashes of the distinct observations
    hash_rows: np.ndarray  # int32 (R,): the distinct observation of each sorted hash
    heuristic: np.ndarray  # float32 (R, A): the heuristic's action probabilities per distinct observation
    max_chance: int  # most outcomes of a chance node
    chance_chain: int  # longest chain of chance nodes
    seconds: float  # build time
    tree: Any  # the exact tree (preorder numbering; ``order[new] = old``)
    order: np.ndarray


def _variant(name: str):
    """The declared small variant ``name`` (``"<game>:<variant>"``), or ``ValueError`` naming the declared ones."""
    from traitors_env.solve import small_variant_names, small_variants

    base, _, variant = name.partition(":")
    game = load_game(base)
    if variant not in small_variant_names(game):
        raise ValueError(f"{name!r} is no small variant with an exact tree; {game.name} declares "
                         f"{list(small_variant_names(game))}")
    return small_variants(game)[variant]


def tree_engine_names() -> tuple[str, ...]:
    """Every ``"<game>:<variant>"`` whose game declares it both as a small variant and as a game variant (so that
    ``load_game`` gives its spaces); a game that does not load is left out (its own error comes on use)."""
    from traitors_env.core.registry import loadable_games
    from traitors_env.solve import small_variant_names

    return tuple(f"{game.name}:{v}" for game in loadable_games() for v in small_variant_names(game)
                 if v in game.variants)


def _hash(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Exact uint32 hash of rows of float32 values (their bits × weights, summed mod 2**32), as :func:`_jax_hash`."""
    bits = np.ascontiguousarray(values, np.float32).view(np.uint32)
    with np.errstate(over="ignore"):
        return (_mix(bits, np.uint32) * weights).sum(axis=-1, dtype=np.uint32)


def _mix(x, uint32):
    """Murmur3's finaliser on each value's bits: a float's low bits are mostly zeros, which a plain product keeps."""
    x = x ^ (x >> uint32(16))
    x = x * uint32(0x85EBCA6B)
    x = x ^ (x >> uint32(13))
    x = x * uint32(0xC2B2AE35)
    return x ^ (x >> uint32(16))


def _jax_hash(values, weights):
    bits = jax.lax.bitcast_convert_type(values.astype(jnp.float32), jnp.uint32)
    return jnp.sum(_mix(bits, jnp.uint32) * weights, dtype=jnp.uint32)


@functools.cache
def tables(name: str, samples: int = 1024) -> Tables:
    """The tables of the small variant ``name`` (built once per process; module doc).

    Raises:
        ValueError: ``name`` is no declared small variant; two information states share an observation but not the
            heuristic's probabilities or legal actions; the returns are not ±1 per side.
        ImportError: the variant's tree needs OpenSpiel (the ``solve`` extra) and it is missing.
    """
    from traitors_env.solve import exact

    start = time.perf_counter()
    tree = exact.build_tree(_variant(name))
    game = load_game(name)
    num_actions, seats = game.type.num_actions, game.type.max_players
    n, players = len(tree.kind), tree.num_players
    # breadth-first renumbering: each node's children become contiguous
    order = [0]
    for old in order:  # the list grows while it is walked
        order.extend(tree.children[old])
    order = np.asarray(order, np.int64)
    new = np.empty(n, np.int64)
    new[order] = np.arange(n)
    kind = np.asarray(tree.kind, np.int8)
    count = np.asarray([len(c) for c in tree.children], np.int32)
    first = np.asarray([new[c[0]] if c else 0 for c in tree.children], np.int64)
    prob = np.zeros(n, np.float32)
    for node in np.flatnonzero(kind == _CHANCE):
        prob[tree.children[node]] = tree.probs[node]
        if not np.all(new[tree.children[node]] == first[node] + np.arange(count[node])):
            raise AssertionError("breadth-first children are not contiguous")  # pragma: no cover
    # each seat's side from any terminal below (seat s is side 0 iff its return is side 0's)
    roles = np.full((n, seats), -1, np.int8)
    side0 = np.zeros(n, np.int8)
    for node in range(n - 1, -1, -1):  # preorder reversed: children before parents
        if kind[node] == _TERMINAL:
            returns, r0 = np.asarray(tree.returns[node]), tree.side0_return[node]
            if abs(r0) != 1 or not np.all(np.abs(returns) == 1):
                raise ValueError(f"{name}: a terminal's returns are {returns.tolist()}; the tree engine expects ±1 per side")
            roles[node, :players] = np.where(returns == r0, 0, 1)
            side0[node] = r0
        else:
            roles[node] = roles[tree.children[node][0]]
    info = np.asarray(tree.info, np.int32)
    player = np.asarray(tree.player, np.int8)
    decisions = np.flatnonzero(kind == _DECISION)
    if not np.all(roles[decisions, player[decisions]] == np.asarray(tree.info_side)[info[decisions]]):
        raise ValueError(f"{name}: the seats' sides read from the terminals disagree with the information states'")
    chain = np.zeros(n, np.int32)
    for node in np.flatnonzero(kind == _CHANCE)[::-1]:
        chain[node] = 1 + chain[tree.children[node]].max()
    observations, legal = _observations(tree, num_actions)
    heuristic = _heuristic(tree, name, num_actions, samples)
    base, columns, values, obs_row = observations
    rows = len(values)
    full = np.zeros((rows, num_actions), np.float32)
    full[obs_row] = heuristic
    masks = np.zeros((rows, num_actions), bool)
    masks[obs_row] = legal
    if not (np.allclose(full[obs_row], heuristic, atol=1e-6) and np.array_equal(masks[obs_row], legal)):
        raise ValueError(f"{name}: two information states show the same observation but the heuristic's action "
                         "probabilities or the legal actions differ there; the tree engine's heuristic reads the "
                         "observation only and cannot play it")
    weights, hashes = _collision_free(values, name)
    sort = np.argsort(hashes, kind="stable")
    return Tables(
        name, players, seats, kind[order], player[order], first[order].astype(np.int32),
        count[order], info[order], prob[order], side0[order], roles[order], legal, obs_row, base, columns, values,
        weights, hashes[sort], sort.astype(np.int32), full, int(count[kind == _CHANCE].max(initial=1)),
        int(chain.max()), time.perf_counter() - start, tree, order,
    )


def _observations(tree, num_actions: int):
    """``(base, columns, values, obs_row)`` of the information states' observations (module doc) and their legal
    masks; two passes so that no ``(I, D)`` table is ever held (social deduction's would be 470 MB)."""
    states = range(len(tree.info_node))
    first = np.asarray(tree.info_node[0].observation(tree.info_seat[0]), np.float32)
    varies = np.zeros(first.shape, bool)
    legal = np.zeros((len(states), num_actions), bool)
    for i in states:
        node = tree.info_node[i]
        varies |= np.asarray(node.observation(tree.info_seat[i]), np.float32) != first
        legal[i] = np.asarray(node.legal_mask()) > 0
    columns = np.flatnonzero(varies).astype(np.int32)
    picked = np.stack([np.asarray(tree.info_node[i].observation(tree.info_seat[i]), np.float32)[columns]
                       for i in states]).reshape(len(states), len(columns))
    values, obs_row = np.unique(picked, axis=0, return_inverse=True)
    return (first, columns, values.astype(np.float32), obs_row.reshape(-1).astype(np.int32)), legal


def _heuristic(tree, name: str, num_actions: int, samples: int) -> np.ndarray:
    """The game's Python heuristic's action probabilities at every information state, ``(I, A)``."""
    from traitors_env.agents.spec import agent_maker
    from traitors_env.solve import exact

    _, make = agent_maker("heuristic", game=name)
    probabilities, _ = exact.agent_policy(tree, make, samples=samples)
    out = np.zeros((len(probabilities), num_actions), np.float32)
    for i, p in enumerate(probabilities):
        out[i, tree.info_node[i].legal_actions()] = p
    return out


def _collision_free(values: np.ndarray, name: str, tries: int = 16):
    """Hash multipliers under which the distinct observations' hashes are distinct, and those hashes."""
    for seed in range(tries):
        weights = np.random.default_rng(seed).integers(1, 2**32, values.shape[1], dtype=np.uint64)
        weights = (weights | 1).astype(np.uint32)
        hashes = _hash(values, weights)
        if len(np.unique(hashes)) == len(hashes):
            return weights, hashes
    raise ValueError(f"{name}: no collision-free observation hash in {tries} tries ({len(values)} observations)")


@functools.cache  # one object per engine: compiled functions are cached by it
def tree_engine(name: str) -> Engine:
    """The JAX engine of the small variant ``name`` (``"avalon:mini5"``), over :func:`tables`; ``init`` ignores
    its ``num_players`` (the variant's table size is fixed; the config's ``player_counts`` name it)."""
    t = tables(name)
    kind, player, first, count = (jnp.asarray(a) for a in (t.kind, t.player, t.first, t.count))
    info, prob, side0, roles = (jnp.asarray(a) for a in (t.info, t.prob, t.side0, t.roles))
    legal, obs_row, base, columns = (jnp.asarray(a) for a in (t.legal, t.obs_row, t.base, t.columns))
    values, weights, hashes, hash_rows = (jnp.asarray(a) for a in (t.values, t.weights, t.hashes, t.hash_rows))
    heuristic = jnp.asarray(t.heuristic)
    outcomes, last_node, seats = jnp.arange(t.max_chance), len(t.kind) - 1, t.seats

    def resolve(node, key):
        """Sample chance outcomes until a decision or terminal node."""

        def draw(i, node):
            p = jnp.where(outcomes < count[node], prob[(first[node] + outcomes).clip(0, last_node)], 0.0)
            u = jax.random.uniform(jax.random.fold_in(key, i)) * p.sum()
            pick = jnp.minimum(jnp.sum(jnp.cumsum(p) <= u), count[node] - 1)
            return jnp.where(kind[node] == _CHANCE, first[node] + pick, node)

        return jax.lax.fori_loop(0, t.chance_chain, draw, node.astype(jnp.int32))

    def arrive(node, last_info, previous_player):
        terminal = kind[node] == _TERMINAL
        seat = player[node].astype(jnp.int32)
        here = info[node]
        side = roles[node].astype(jnp.int32)
        r0 = side0[node].astype(jnp.float32)
        return TreeState(
            node,
            jnp.where(terminal, previous_player, seat),
            jnp.where(terminal, False, legal[here.clip(0)]),
            jnp.where(terminal, jnp.where(side == 0, r0, jnp.where(side == 1, -r0, 0.0)), 0.0),
            terminal,
            jnp.zeros((), bool),
            jnp.where(terminal, last_info, last_info.at[seat.clip(0)].set(here)),
        )

    def init(key, num_players=None):
        del num_players
        return arrive(resolve(jnp.zeros((), jnp.int32), key), jnp.full((seats,), -1, jnp.int32),
                      jnp.zeros((), jnp.int32))

    def step(state, action, key):
        action = jnp.asarray(action, jnp.int32).clip(0, legal.shape[1] - 1)
        mask = state.legal_action_mask
        ok = mask[action] & ~(state.terminated | state.truncated)
        child = first[state.node] + jnp.cumsum(mask)[action].astype(jnp.int32) - 1
        moved = arrive(resolve(jnp.where(ok, child, state.node), key), state.last_info, state.current_player)
        still = state._replace(rewards=jnp.zeros_like(state.rewards))
        return jax.tree_util.tree_map(lambda a, b: jnp.where(ok, a, b), moved, still)

    def observation_of(state_id):
        row = values[obs_row[state_id.clip(0)]]
        return jnp.where(state_id >= 0, base.at[columns].set(row), 0.0)

    def observe(state, seat):
        return observation_of(state.last_info[seat])

    def heuristic_act(memory, observation, mask, key):
        h = _jax_hash(observation[columns], weights)
        row = hash_rows[jnp.searchsorted(hashes, h).clip(0, hashes.shape[0] - 1)]
        mask = mask.astype(bool)
        p = jnp.where(mask, heuristic[row], 0.0)
        logits = jnp.where(p > 0, jnp.log(jnp.where(p > 0, p, 1.0)), -jnp.inf)
        logits = jnp.where(jnp.any(p > 0), logits, jnp.where(mask, 0.0, -jnp.inf))  # an unknown observation: uniform
        return jax.random.categorical(key, logits).astype(jnp.int32), memory

    return Engine(
        name, init, step, observe,
        lambda state: observe(state, state.current_player),
        lambda state: roles[state.node].astype(jnp.int32),
        lambda: jnp.zeros((), jnp.int32),
        heuristic_act,
        load_game(name).name,
    )
