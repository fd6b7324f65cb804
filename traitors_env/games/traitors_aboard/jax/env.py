"""The pgx environment of *Traitors Aboard*: :class:`TraitorsAboard` (a ``pgx.Env``) and its :class:`State`.

Follows pgx's conventions (``pgx.Env``, ``pgx.State``): ``state = env.init(key)``,
``state = env.step(state, action, key)``; ``State`` carries ``current_player`` (int32 seat),
``observation`` (float32 ``(1228,)``, the acting player's, as ``raw_env``), ``legal_action_mask``
(bool ``(196,)``, the indices of :mod:`traitors_env.games.traitors_aboard.actions`), ``rewards`` (float32
``(8,)``, per seat), ``terminated``, ``truncated`` and the game itself in ``_game``.

Table sizes: pgx's ``num_players`` is one number per environment, while one batch here may mix
tables of 3–8 players. :attr:`TraitorsAboard.num_players` is therefore 8, the number of *seats* of
every state (the length of ``rewards``); a table of ``n`` players uses seats ``0 … n-1``, and
seats ``n … 7`` never act and always get reward 0. ``state.num_players`` gives each state's own
table size. ``TraitorsAboard(num_players=5)`` deals 5-player games only;
``TraitorsAboard(num_players=(3, 4, 5, 6, 7, 8))`` (the default) draws the size of each game
uniformly from the tuple in ``init``.

An illegal action ends the game with reward −1 for the player who took it and 0 for every other
seat, as ``traitors_aboard_v0.env()`` does (PettingZoo's ``TerminateIllegalWrapper``). After the
game ends pgx's conventions hold: ``step`` returns the state with zero rewards, and the mask is all
ones.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
import pgx.core as core
from pgx._src.struct import dataclass

from .. import actions as A
from ..cards import MAX_PLAYERS, MIN_PLAYERS
from ..observation import OBS_SIZE
from ..small import variant
from . import engine
from .observation import observe as observe_game
from .position import init_variant as init_variant_game
from .state import Game, empty_game

ENV_ID = "traitors_aboard"
VERSION = "v0"  # as traitors_aboard_v0: the same rules, observation and actions


@dataclass
class State(core.State):
    """One game in pgx's form (see the module doc); ``_game`` holds the full position (:class:`Game`)."""

    current_player: jax.Array = jnp.int32(0)
    observation: jax.Array = jnp.zeros(OBS_SIZE, jnp.float32)
    rewards: jax.Array = jnp.zeros(MAX_PLAYERS, jnp.float32)
    terminated: jax.Array = jnp.bool_(False)
    truncated: jax.Array = jnp.bool_(False)
    legal_action_mask: jax.Array = jnp.zeros(A.NUM_ACTIONS, jnp.bool_)
    _step_count: jax.Array = jnp.int32(0)
    _game: Game = empty_game()

    @property
    def env_id(self) -> str:
        return ENV_ID

    @property
    def num_players(self) -> jax.Array:
        """This game's table size, int8 () (3–8)."""
        return self._game.num_players


def _state(game: Game, rewards: jax.Array, step_count: jax.Array) -> State:
    """A :class:`State` around ``game``, its mask filled in (the observation is left to the caller)."""
    return State(
        current_player=game.current_player.astype(jnp.int32),
        observation=jnp.zeros(OBS_SIZE, jnp.float32),
        rewards=rewards,
        terminated=engine.terminated(game),
        truncated=jnp.bool_(False),
        legal_action_mask=engine.legal_action_mask(game),
        _step_count=step_count,
        _game=game,
    )


def init(key: jax.Array, num_players, claims=True) -> State:
    """A new game of ``num_players`` (3–8; may be a traced int) with the acting player's observation.

    Raises:
        ValueError: for a concrete ``num_players`` outside 3–8.
    """
    state = _state(engine.init(key, num_players, claims), jnp.zeros(MAX_PLAYERS, jnp.float32), jnp.int32(0))
    return state.replace(observation=observe_game(state._game, state.current_player))  # a seat of the table


class VariantTwin:
    """The twin of a small variant (``traitors_aboard:mini3``; S01–S03): this package's API (``init``, ``step``,
    ``observe``, ``seat_sides`` …) with ``init`` dealing the variant (:func:`.position.init_variant`). Why: a tool
    (the JAX training backend, :func:`training.jax_backend.engine.twin_engine`) reads a twin as a module, and its
    ``__name__`` (this package's) finds the ``heuristic`` and ``probes`` submodules, which play any position."""

    def __init__(self, name: str) -> None:
        self.variant = variant(name)
        self.__name__ = __package__

    def init(self, key: jax.Array, num_players=None, claims=None) -> State:
        """A dealt game of the variant with the acting player's observation; ``num_players`` (default: the
        variant's) must be the variant's (a traced value is not checked), ``claims`` defaults to the variant's.

        Raises:
            ValueError: for a concrete ``num_players`` other than the variant's, or ``claims`` not a bool.
        """
        v = self.variant
        size = engine._concrete(v.num_players if num_players is None else num_players)
        if size is not None and (size.dtype.kind not in "iu" or np.any(size != v.num_players)):
            raise ValueError(f"num_players={num_players!r}; the small variant {v.name!r} is played by "
                             f"{v.num_players} players")
        claims = v.claims if claims is None else claims
        engine.check_claims(claims)
        state = _state(init_variant_game(key, v, claims), jnp.zeros(MAX_PLAYERS, jnp.float32), jnp.int32(0))
        return state.replace(observation=observe_game(state._game, state.current_player))

    def __getattr__(self, name: str):  # step, observe, seat_sides, State …: the package's own
        from .. import jax as package

        return getattr(package, name)

    def __repr__(self) -> str:
        return f"<JAX twin of the small variant {self.variant.name!r} ({__package__})>"


def variant_twin(name: str) -> VariantTwin:
    """The twin of small variant ``name`` (:class:`VariantTwin`), one object per variant (compiled functions are
    cached by it)."""
    if name not in _TWINS:
        _TWINS[name] = VariantTwin(name)
    return _TWINS[name]


_TWINS: dict[str, VariantTwin] = {}


def seat_sides(state: State) -> jax.Array:
    """Each seat's side, int8 ``(8,)``: 0 Pirate, 1 Mutineer, −1 an empty seat (read by a game master, never by a
    player: the hidden deal)."""
    roles = state._game.roles
    return jnp.where(jnp.arange(roles.shape[-1]) < state._game.num_players, roles, -1).astype(jnp.int8)


def step(state: State, action, key: jax.Array) -> State:
    """pgx's ``Env.step`` for this game (illegal actions and finished games as the module doc says)."""
    return _ENV.step(state, action, key)


def observe(state: State, player) -> jax.Array:
    """The observation of seat ``player``, float32 ``(1228,)``: what ``raw_env().observe`` gives that seat.

    ``player`` is an integer seat ``0 … num_players-1`` (a Python or numpy int, or an int array of shape ``()``);
    a traced one (under ``jit`` / ``vmap``) is not checked.

    Raises:
        ValueError: for a concrete ``player`` that is not a seat of the table (0 … num_players-1).
        TypeError: for a ``player`` that is not an integer.
    """
    engine.check_seat(player, state._game.num_players)
    return observe_game(state._game, player)


class TraitorsAboard(core.Env):
    """*Traitors Aboard* as a ``pgx.Env`` (see the module doc for table sizes, rewards, illegal actions).

    Args:
        num_players: an int 3–8, or a sequence of them from which ``init`` draws each game's size.
        claims: the claim step (R14).

    Raises:
        ValueError: for a table size outside 3–8 or an empty sequence, or ``claims`` that is not a bool.
    """

    def __init__(self, num_players: int | Sequence[int] = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)), claims=True):
        super().__init__()
        if isinstance(num_players, numbers.Integral):
            sizes = (num_players,)
        elif isinstance(num_players, (Sequence, np.ndarray)) and not isinstance(num_players, str):
            sizes = tuple(num_players)
        else:  # 5.0 or "35" would fail further down with a message about something else
            raise ValueError(f"num_players={num_players!r}; expected an int 3–8 or a sequence of them")
        if not sizes:
            raise ValueError("num_players=() is empty; give an int 3–8 or a sequence of them")
        for size in sizes:
            engine.check_num_players(size)
        self.table_sizes = sizes
        engine.check_claims(claims)
        self.claims = bool(claims)

    def step(self, state: core.State, action: jax.Array, key: jax.Array | None = None) -> State:
        """pgx's ``Env.step`` semantics without its three whole-state ``lax.cond``s (under ``vmap`` each
        becomes a select over the whole state): a finished game is returned with zero rewards; an illegal
        action ends the game (see :meth:`_step_with_illegal_action`); a finished game's mask is all ones."""
        assert isinstance(state, State)
        if key is None:
            raise ValueError("TraitorsAboard.step needs a key: the Spyglass shuffle (R07) is random")
        action = engine.action_index(action)  # a float or bool action is refused, as raw_env refuses it
        over = state.terminated | state.truncated
        illegal = ~jnp.any(state.legal_action_mask & (jnp.arange(A.NUM_ACTIONS) == action)) & ~over
        stepped = engine.step_index(state._game, action, key)
        keep = illegal | over  # a game ended by an illegal action stays as it was
        game = jax.tree_util.tree_map(lambda before, after: jnp.where(keep, before, after), state._game, stepped)
        seats = jnp.arange(MAX_PLAYERS)
        rewards = jnp.where(
            illegal, jnp.where(seats == state.current_player, -1.0, 0.0), jnp.where(over, 0.0, engine.returns(game))
        ).astype(jnp.float32)
        terminated = engine.terminated(game) | illegal | state.terminated
        mask = jnp.where(terminated, True, engine.legal_action_mask(game))
        current = game.current_player.astype(jnp.int32)
        return state.replace(  # type: ignore[attr-defined]
            current_player=current,
            observation=observe_game(game, current),
            rewards=rewards,
            terminated=terminated,
            legal_action_mask=mask,
            _step_count=state._step_count + (~over).astype(jnp.int32),
            _game=game,
        )

    def _init(self, key: jax.Array) -> State:
        size_key, key = jax.random.split(key)
        sizes = jnp.asarray(self.table_sizes, jnp.int32)
        n = sizes[jax.random.randint(size_key, (), 0, len(self.table_sizes))]
        return _state(engine.init(key, n, self.claims), jnp.zeros(MAX_PLAYERS, jnp.float32), jnp.int32(0))

    def _step(self, state: core.State, action: jax.Array, key) -> State:
        assert isinstance(state, State)
        if key is None:
            raise ValueError("TraitorsAboard.step needs a key: the Spyglass shuffle (R07) is random")
        game = engine.step(state._game, action, key)
        return _state(game, engine.returns(game), state._step_count)

    def _observe(self, state: core.State, player_id: jax.Array) -> jax.Array:
        assert isinstance(state, State)
        return observe(state, player_id)

    def _step_with_illegal_action(self, state: core.State, loser: jax.Array) -> State:
        """An illegal action ends the game: −1 to the player who took it, 0 to every other seat."""
        rewards = jnp.where(jnp.arange(MAX_PLAYERS) == loser, -1.0, 0.0).astype(jnp.float32)
        return state.replace(rewards=rewards, terminated=jnp.bool_(True))  # type: ignore[attr-defined]

    @property
    def id(self) -> str:
        return ENV_ID

    @property
    def version(self) -> str:
        return VERSION

    @property
    def num_players(self) -> int:
        """Seats per state (8): the length of ``rewards``; see the module doc."""
        return MAX_PLAYERS


_ENV = TraitorsAboard()
