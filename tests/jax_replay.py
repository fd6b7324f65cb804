"""Differential testing of the JAX twin: play random games in JAX (batched), replay each in the reference.

``play_batch`` plays a batch of random legal games with the JAX engine under ``jit`` + ``vmap`` +
``lax.scan`` and returns every state on the host. ``replay_game`` rebuilds one of them in the
reference :class:`GameState` from the same deal (``from_position``) and the same Spyglass shuffles
(:meth:`GameState.spyglass_shuffle`, overridden), and at every decision compares the current player,
the legal mask, the observation of every seat, rewards, termination and, at the end, the revealed
result and where every card lies.
"""

from __future__ import annotations

import copy
import functools

import jax
import jax.numpy as jnp
import numpy as np

from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.cards import LOOT_VALUES, ROLE_NAMES, EndCondition
from traitors_env.games.traitors_aboard.engine import GameState
from traitors_env.games.traitors_aboard.jax import engine as E
from traitors_env.games.traitors_aboard.jax.observation import observe
from traitors_env.games.traitors_aboard.observation import encode

#: Decisions a scan runs: above the longest possible game (every turn but the last takes a card from
#: the pile net, R06, and a turn has at most 4 decisions).
MAX_DECISIONS = 300


def random_policy(key, mask, open_prob):
    """A uniformly random legal action; opening the chest (when legal) only with probability ``open_prob``.

    The same policy as ``game_helpers.random_action`` (so games run long enough to meet every rule).
    """
    k_open, k_pick = jax.random.split(key)
    others = mask.at[A.OPEN_CHEST].set(False)
    pick = jax.random.categorical(k_pick, jnp.where(others, 0.0, -jnp.inf))
    opens = mask[A.OPEN_CHEST] & ((jax.random.uniform(k_open) < open_prob) | ~jnp.any(others))
    return jnp.where(opens, A.OPEN_CHEST, pick)


def _scan(game, key, open_prob, steps):
    """Random legal play of one game from ``game`` for ``steps`` decisions (the states before each, and so on)."""

    def body(game, key):
        k_act, k_step = jax.random.split(key)
        mask = E.legal_action_mask(game)
        action = random_policy(k_act, mask, open_prob)
        action = jnp.where(E.terminated(game), -1, action)
        after = E.step(game, action, k_step)
        return after, (game, mask, action, E.returns(after))

    final, (games, masks, actions, rewards) = jax.lax.scan(body, game, jax.random.split(key, steps))
    return final, games, masks, actions, rewards


@functools.partial(jax.jit, static_argnames=("steps",))
def _play(keys, num_players, claims, open_prob, steps):
    def one_game(key, n, claims, open_prob):
        k_init, k_play = jax.random.split(key)
        return _scan(E.init(k_init, n, claims), k_play, open_prob, steps)

    return jax.vmap(one_game)(keys, num_players, claims, open_prob)


@functools.partial(jax.jit, static_argnames=("steps",))
def _play_from(games, keys, open_prob, steps):
    return jax.vmap(lambda game, key, p: _scan(game, key, p, steps))(games, keys, open_prob)


def _host(final, games, masks, actions, rewards, steps: int) -> dict:
    out = jax.device_get({"final": final, "games": games, "masks": masks, "actions": actions, "rewards": rewards})
    out["lengths"] = (out["actions"] >= 0).sum(1)
    assert bool(np.all(out["final"].phase == E.GAME_OVER)), f"a game ran past {steps} decisions"
    return out


def play_batch(seed: int, num_players, claims, open_prob: float = 0.05, steps: int = MAX_DECISIONS) -> dict:
    """Random games, one per entry of ``num_players``/``claims`` (arrays of equal length), played in JAX.

    Returns host arrays: ``games`` (a :class:`Game` of arrays shaped ``(B, steps, …)``: the state
    before each decision), ``final`` (``(B, …)``), ``masks`` ``(B, steps, 196)``, ``actions``
    ``(B, steps)`` (-1 once the game is over), ``rewards`` ``(B, steps, 8)`` (returns after each
    decision), ``lengths`` ``(B,)`` (decisions of each game).
    """
    num_players = jnp.asarray(num_players, jnp.int32)
    keys = jax.random.split(jax.random.PRNGKey(seed), num_players.shape[0])
    open_prob = jnp.broadcast_to(jnp.asarray(open_prob, jnp.float32), num_players.shape)
    claims = jnp.broadcast_to(jnp.asarray(claims), num_players.shape)
    return _host(*_play(keys, num_players, claims, open_prob, steps), steps)


def play_variant_batch(seed: int, variant, games: int, claims=None, open_prob: float = 0.05, steps: int = 64) -> dict:
    """``games`` random games of small variant ``variant`` (a ``SmallVariant``), each dealt by the twin's
    ``init_variant`` (S01–S03), played in JAX; the same dict as :func:`play_batch`. ``claims``: a bool or an array of
    one per game (default the variant's)."""
    from traitors_env.games.traitors_aboard.jax.position import init_variant

    keys = jax.random.split(jax.random.PRNGKey(seed), games)
    k_init, k_play = jax.vmap(jax.random.split, out_axes=1)(keys)
    claims = jnp.broadcast_to(jnp.asarray(variant.claims if claims is None else claims), (games,))
    starts = jax.jit(jax.vmap(init_variant, in_axes=(0, None, 0)), static_argnums=1)(k_init, variant, claims)
    open_prob = jnp.full(games, open_prob, jnp.float32)
    return _host(*_play_from(starts, k_play, open_prob, steps), steps)


@jax.jit
def _observe_all(games):
    """Observations of all 8 seats at every step of one game: ``(steps, 8, 1228)`` (seats ≥ n are junk)."""
    seats = jnp.arange(8)
    return jax.vmap(lambda g: jax.vmap(lambda s: observe(g, jnp.minimum(s, g.num_players - 1)))(seats))(games)


def _game_at(batch: dict, b: int, t: int | None = None):
    """Game ``b`` of a batch at step ``t`` (``None``: the final state), as a Game of numpy arrays."""
    source = batch["final"] if t is None else batch["games"]
    if t is None:
        return jax.tree_util.tree_map(lambda x: x[b], source)
    return jax.tree_util.tree_map(lambda x: x[b, t], source)


class ReplayedGame(GameState):
    """The reference engine told the Spyglass shuffles of a JAX game (R07), one per Spyglass of 2–3 cards."""

    shuffles: list

    def spyglass_shuffle(self, taken: int):
        if taken == 1:  # one card: no order to tell
            return [0]
        order = self.shuffles.pop(0)
        assert len(order) == taken, (order, taken)
        return order


def reference_start(game) -> ReplayedGame:
    """The reference game at the JAX game's first decision (same roles, hands, draw pile, first seat, and a small
    variant's pre-placed chest cards and Planks, S02: none in a full game's deal)."""
    n = int(game.num_players)
    hands = [[k for k in range(8) for _ in range(int(game.hands[s, k]))] for s in range(n)]
    draw_top_first = [int(k) for k in game.draw[: int(game.draw_size)]]
    chest_top_first = [
        (int(game.chest_kind[r]), int(game.chest_placer[r]), int(game.chest_announced[r]))
        for r in range(int(game.chest_size))
    ]
    state = ReplayedGame.from_position(
        n,
        roles=[int(r) for r in game.roles[:n]],
        hands=hands,
        draw_pile=draw_top_first,
        chest=chest_top_first,
        planks=[int(p) for p in game.planks[:n]],
        current_player=int(game.current_player),
        claims=bool(game.claims),
        seed=0,
    )
    state.shuffles = []
    return state


def _shuffles(batch: dict, b: int) -> list[list[int]]:
    """The Spyglass shuffles of game ``b``, in order: the seen order (indices into the taken cards, bottom first)."""
    games, actions = batch["games"], batch["actions"]
    orders = []
    for t in np.flatnonzero(actions[b] == A.SPYGLASS):
        after = t + 1
        taken = (
            int(games.spyglass_taken[b, after]) if after < actions.shape[1] else int(batch["final"].spyglass_taken[b])
        )
        phase = int(games.phase[b, after]) if after < actions.shape[1] else int(batch["final"].phase[b])
        if taken >= 2 and phase == E.SPYGLASS_ORDER:
            seen = games.spyglass_seen[b, after] if after < actions.shape[1] else batch["final"].spyglass_seen[b]
            # JAX names the seen cards by row (0 = top); the reference by index among the taken, bottom first.
            orders.append([taken - 1 - int(row) for row in seen[:taken]])
    return orders


def replay_game(batch: dict, b: int) -> GameState:
    """Replay game ``b`` of ``batch`` in the reference engine, asserting equality at every decision.

    Returns the final reference state.
    """
    length = int(batch["lengths"][b])
    final = _game_at(batch, b)
    # The states before each decision, then the state after the last one (``final``).
    stack = jax.tree_util.tree_map(lambda xs, x: np.concatenate([xs[b, :length], x[None]]), batch["games"], final)
    padded = 128 if length < 128 else MAX_DECISIONS + 1  # two shapes: two compilations
    stack = jax.tree_util.tree_map(lambda x: np.concatenate([x, np.repeat(x[-1:], padded - len(x), 0)]), stack)
    observations = np.asarray(_observe_all(stack))

    state = reference_start(_game_at(batch, b, 0))
    state.shuffles = _shuffles(batch, b)
    n = state.num_players
    masks, actions, rewards = batch["masks"][b], batch["actions"][b], batch["rewards"][b]
    where = f"game {b} ({n} players, claims {'on' if state.config.claims else 'off'})"
    for t in range(length + 1):
        at = f"{where}, decision {t}"
        if t < length:
            assert state.current_player == int(stack.current_player[t]), f"{at}: current player"
            np.testing.assert_array_equal(masks[t], state.legal_mask().astype(bool), err_msg=f"{at}: mask")
        expected = np.stack([encode(state, seat) for seat in range(n)])
        if not np.array_equal(observations[t, :n], expected):
            seat, index = np.argwhere(observations[t, :n] != expected)[0]
            raise AssertionError(
                f"{at}: observation of seat {seat} differs at {index}: JAX {observations[t, seat, index]}, "
                f"reference {expected[seat, index]} (phase {state.phase.name})"
            )
        reward = np.zeros(8, np.float32)
        reward[:n] = state.returns()
        np.testing.assert_array_equal(rewards[t - 1] if t else np.zeros(8), reward, err_msg=f"{at}: rewards")
        assert bool(stack.phase[t] == E.GAME_OVER) == state.is_terminal, f"{at}: termination"
        if t < length:
            state.apply_action(int(actions[t]))
    assert state.is_terminal and not state.shuffles, f"{where}: the reference game did not end with the JAX game"
    assert_same_result(final, state, where)
    return state


def result_of(game) -> dict:
    """The revealed result of a finished JAX game, in the form of ``GameState.result()``."""
    n = int(game.num_players)
    cs = int(game.chest_size)
    chest = [
        {
            "value": LOOT_VALUES[int(game.chest_kind[p])],
            "announced": LOOT_VALUES[int(game.chest_announced[p])],
            "placer": int(game.chest_placer[p]),
        }
        for p in range(cs)  # top first
    ]
    return {
        "winner": ROLE_NAMES[int(game.winner)],
        "end_condition": EndCondition(int(game.end_condition)).name.lower(),
        "roles": [ROLE_NAMES[int(r)] for r in game.roles[:n]],
        "chest_value": sum(item["value"] for item in chest),
        "target": int(E.TARGET[n]),
        "chest": chest,
        "turns": int(game.turn),
    }


def assert_same_result(game, state: GameState, where: str) -> None:
    """The revealed result and the place of every card agree between a final JAX game and the reference."""
    assert result_of(game) == state.result(), f"{where}: result"
    n = state.num_players
    assert [int(k) for k in game.draw[: int(game.draw_size)]][::-1] == state.draw_pile, f"{where}: draw pile"
    assert [list(map(int, h)) for h in game.hands[:n]] == state.hands, f"{where}: hands"
    assert list(map(int, game.discard)) == state.discard, f"{where}: discard"
    assert list(map(int, game.planks[:n])) == state.planks, f"{where}: planks"
    assert [bool(x) for x in game.revealed[:n]] == state.revealed, f"{where}: revealed roles"


def game_from_reference(state: GameState):
    """The JAX :class:`Game` of a reference position (any decision, Spyglass groups included)."""
    from traitors_env.games.traitors_aboard.jax.position import game_from_state

    return game_from_state(state)


_step_one = jax.jit(E.step)
_mask_one = jax.jit(E.legal_action_mask)
_observe_seats = jax.jit(jax.vmap(observe, in_axes=(None, 0)))


def assert_same_decision(game, state: GameState, where: str) -> None:
    """Mask, current player, termination and every seat's observation agree (JAX ``game``, reference ``state``)."""
    n = state.num_players
    assert bool(game.phase == E.GAME_OVER) == state.is_terminal, f"{where}: termination"
    if not state.is_terminal:
        assert int(game.current_player) == state.current_player, f"{where}: current player"
    np.testing.assert_array_equal(
        np.asarray(_mask_one(game)), state.legal_mask().astype(bool), err_msg=f"{where}: mask"
    )
    observations = np.asarray(_observe_seats(game, jnp.arange(n)))
    expected = np.stack([encode(state, seat) for seat in range(n)])
    np.testing.assert_array_equal(observations, expected, err_msg=f"{where}: observations")
    reward = np.zeros(8, np.float32)
    reward[:n] = state.returns()
    np.testing.assert_array_equal(np.asarray(E.returns(game)), reward, err_msg=f"{where}: returns")


def play_lockstep(state: GameState, seed: int, max_decisions: int = 400) -> GameState:
    """Play random legal moves from ``state`` in both engines at once, comparing every decision.

    The JAX engine steps first; a Spyglass shuffle it makes is then told to the reference. ``state``
    is not modified; the final reference state is returned.
    """
    reference = ReplayedGame.__new__(ReplayedGame)
    reference.__dict__.update(copy.deepcopy(state.__dict__))
    reference.shuffles = []
    game = game_from_reference(reference)
    rng = np.random.default_rng(seed)
    key = jax.random.PRNGKey(seed)
    for t in range(max_decisions):
        assert_same_decision(game, reference, f"lockstep seed {seed}, decision {t}")
        if reference.is_terminal:
            assert_same_result(jax.device_get(game), reference, f"lockstep seed {seed}")
            return reference
        legal = reference.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        key, sub = jax.random.split(key)
        after = _step_one(game, action, sub)
        if action == A.SPYGLASS and int(after.phase) == E.SPYGLASS_ORDER:
            taken = int(after.spyglass_taken)
            reference.shuffles.append([taken - 1 - int(row) for row in np.asarray(after.spyglass_seen)[:taken]])
        reference.apply_action(action)
        game = after
    raise AssertionError(f"lockstep seed {seed}: no end within {max_decisions} decisions")
