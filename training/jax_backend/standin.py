"""A stand-in game with a JAX twin's interface and the default game's shapes, for testing the backend fast.

Not a real game: a small team race that a policy can learn. Seats 0..n-1 (n = 3 up to the default game's
largest table, data, so one batch mixes sizes) each get a side (``roles``: 0 or 1; the last ``n // 3 + 1`` seats
are side 1 after a shuffle). Seats play in turn; each decision offers a random set of legal actions (about a
quarter of them); an even action scores a point for the acting seat's side, an odd one scores nothing. After
``2 n`` decisions the side with more points wins (a tie goes to side 1); rewards are +1 / −1 per seat, so the game
often ends on an opponent's decision. The observation (the default game's ``observation_shape``, ``float32``)
shows the observer's side, the legal actions, both scores and the decisions left — enough to learn "play even".

Same interface as a game's JAX twin (:mod:`training.jax_backend.engine`): ``init(key, num_players)``,
``step(state, action, key)``, ``observe(state, player)``, ``roles(state)`` and a pgx-style ``State``; :data:`GAME`
names the game whose shapes it has (the registry's default game).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from traitors_env.core import load_game
from traitors_env.core.registry import DEFAULT_GAME

#: The game whose observation and action shapes the stand-in has.
GAME = DEFAULT_GAME
NUM_ACTIONS = load_game(GAME).type.num_actions
MAX_PLAYERS = load_game(GAME).type.max_players
(OBS_SIZE,) = load_game(GAME).type.observation_shape

_O_MASK = 2
_O_SCORE = _O_MASK + NUM_ACTIONS
_O_LEFT = _O_SCORE + 2
_O_NP = _O_LEFT + 1


@struct.dataclass
class State:
    num_players: jnp.ndarray  # int32 ()
    roles: jnp.ndarray  # int8 (MAX_PLAYERS,): 0 Pirate, 1 Mutineer, -1 empty seat
    current_player: jnp.ndarray  # int32 ()
    legal_action_mask: jnp.ndarray  # bool (NUM_ACTIONS,)
    rewards: jnp.ndarray  # float32 (MAX_PLAYERS,)
    terminated: jnp.ndarray  # bool ()
    truncated: jnp.ndarray  # bool ()
    score: jnp.ndarray  # int32 (2,)
    decisions_left: jnp.ndarray  # int32 ()


def _mask(key) -> jnp.ndarray:
    mask = jax.random.uniform(key, (NUM_ACTIONS,)) < 0.25
    return mask.at[jax.random.randint(key, (), 0, NUM_ACTIONS)].set(True)  # never empty


def init(key, num_players) -> State:
    """A new game at ``num_players`` (int, may be traced)."""
    k_roles, k_mask = jax.random.split(key)
    n = jnp.asarray(num_players, jnp.int32)
    seats = jnp.arange(MAX_PLAYERS)
    mutineers = n // 3 + 1
    order = jax.random.permutation(k_roles, MAX_PLAYERS)
    # Shuffle the roles over the n real seats: rank of each real seat in a random order.
    keys = jnp.where(seats < n, order, MAX_PLAYERS + seats)
    rank = jnp.argsort(jnp.argsort(keys))
    roles = jnp.where(seats < n, (rank < mutineers).astype(jnp.int8), jnp.int8(-1))
    return State(
        num_players=n,
        roles=roles,
        current_player=jnp.int32(0),
        legal_action_mask=_mask(k_mask),
        rewards=jnp.zeros(MAX_PLAYERS, jnp.float32),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        score=jnp.zeros(2, jnp.int32),
        decisions_left=2 * n,
    )


def step(state: State, action, key) -> State:
    """The acting seat plays ``action``; the game ends after ``2 n`` decisions."""
    team = state.roles[state.current_player].astype(jnp.int32)
    score = state.score.at[team].add((action % 2 == 0).astype(jnp.int32))
    left = state.decisions_left - 1
    over = left <= 0
    winner = jnp.where(score[0] > score[1], 0, 1)
    rewards = jnp.where(state.roles == winner, 1.0, -1.0) * (state.roles >= 0)
    return state.replace(
        current_player=(state.current_player + 1) % state.num_players,
        legal_action_mask=_mask(key),
        rewards=jnp.where(over, rewards, 0.0).astype(jnp.float32),
        terminated=over,
        score=score,
        decisions_left=left,
    )


def observe(state: State, player) -> jnp.ndarray:
    """``float32 (OBS_SIZE,)``: the observer's team one-hot, the legal actions, both scores, decisions left."""
    team = state.roles[player].astype(jnp.int32)
    obs = jnp.zeros(OBS_SIZE, jnp.float32)
    obs = obs.at[team].set(1.0)
    obs = obs.at[_O_MASK:_O_SCORE].set(state.legal_action_mask.astype(jnp.float32))
    obs = obs.at[_O_SCORE : _O_SCORE + 2].set(state.score / 16.0)
    obs = obs.at[_O_LEFT].set(state.decisions_left / 16.0)
    return obs.at[_O_NP + state.num_players - 3].set(1.0)


def roles(state: State) -> jnp.ndarray:
    """``int8 (MAX_PLAYERS,)``: each seat's side (0 or 1), −1 for an empty seat."""
    return state.roles


def heuristic_act(memory, observation, mask, key):
    """The stand-in's "heuristic": the lowest even legal action if any, else the lowest legal one."""
    del observation, key
    even = mask & (jnp.arange(NUM_ACTIONS) % 2 == 0)
    return jnp.where(even.any(), jnp.argmax(even), jnp.argmax(mask)).astype(jnp.int32), memory
