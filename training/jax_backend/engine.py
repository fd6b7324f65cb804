"""The engine interface the JAX backend drives: pure functions over a pgx-style ``State``.

:class:`Engine` bundles what the game master needs: ``init(key, num_players) -> State``,
``step(state, action, key) -> State``, ``observe(state, player) -> float32 (1228,)``,
``acting_observation(state)`` (the acting seat's observation: pgx's ``state.observation``, already
computed by ``init``/``step``, so the rollout does not encode it twice), ``roles(state) -> int (8,)`` (each seat's team: 0 Pirates, 1 Mutineers; read by the game
master only, never shown to a policy) and the heuristic bot
(:mod:`traitors_env.games.traitors_aboard.jax.heuristic`)
``heuristic_act(memory, observation, action_mask, key) -> (action, memory)`` with
``heuristic_memory()`` its memory at the start of a game (carried per game between the
opponent's decisions, as the Python bot keeps it between its calls).

``State`` must carry pgx's ``current_player`` (int), ``legal_action_mask`` (bool/int8,
``(196,)``), ``rewards`` (float, ``(8,)`` per seat, R17: +1/−1 on the last step),
``terminated`` and ``truncated``.

:func:`traitors_engine` adapts the real engine (:mod:`traitors_env.games.traitors_aboard.jax`,
issue 12) and its heuristic bot; :func:`standin_engine` the stand-in game of :mod:`.standin`.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp


class Engine(NamedTuple):
    """Pure functions of one game (``vmap`` them for a batch); see the module doc."""

    name: str
    init: Callable[[Any, Any], Any]
    step: Callable[[Any, Any, Any], Any]
    observe: Callable[[Any, Any], jnp.ndarray]
    acting_observation: Callable[[Any], jnp.ndarray]
    roles: Callable[[Any], jnp.ndarray]
    heuristic_memory: Callable[[], Any]
    heuristic_act: Callable[[Any, Any, Any, Any], tuple[Any, Any]]


@functools.cache  # one object per engine: compiled functions are cached by it
def standin_engine() -> Engine:
    """The stand-in game of :mod:`.standin` (not *Traitors Aboard*; for tests of the backend)."""
    from . import standin

    return Engine(
        "standin",
        standin.init,
        standin.step,
        standin.observe,
        lambda state: standin.observe(state, state.current_player),
        standin.roles,
        lambda: jnp.zeros((), jnp.int32),
        standin.heuristic_act,
    )


class EngineUnavailableError(ImportError):
    """The JAX engine (or its heuristic bot) is not installed in this checkout."""


@functools.cache
def traitors_engine(claims: bool = True, heuristic: bool = True) -> Engine:
    """The JAX twin of *Traitors Aboard* (:mod:`traitors_env.games.traitors_aboard.jax`) and its JAX heuristic bot.

    Args:
        claims: the claim step (R14).
        heuristic: require the JAX heuristic bot; ``False`` (development only, until it exists) lets the
            random bot stand in for it and says so on stderr.

    Raises:
        EngineUnavailableError: if ``traitors_env.games.traitors_aboard.jax`` or (with ``heuristic``) its bot is missing.
    """
    try:
        from traitors_env.games.traitors_aboard import jax as game
    except ImportError as error:
        raise EngineUnavailableError(
            f"the JAX engine traitors_env.games.traitors_aboard.jax cannot be imported ({error}); "
            "install the jax extra (pip install -e '.[jax]')"
        ) from None
    try:
        from traitors_env.games.traitors_aboard.jax import heuristic as bot

        memory = bot.init_memory

        def act(memory, observation, mask, key):
            return bot.heuristic_act(observation, mask, memory, key)
    except ImportError as error:
        if heuristic:
            raise EngineUnavailableError(f"the JAX heuristic bot cannot be imported: {error}") from None
        print(f"warning: no JAX heuristic bot ({error}); the random bot plays its games", file=sys.stderr)
        memory, act = _random_bot()

    def roles(state):
        g = state._game
        return jnp.where(jnp.arange(g.roles.shape[-1]) < g.num_players, g.roles, -1)

    return Engine(
        "traitors_aboard",
        functools.partial(game.init, claims=claims),
        game.step,
        game.observe,
        lambda state: state.observation,
        roles,
        memory,
        act,
    )


def _random_bot():
    def act(memory, observation, mask, key):
        return jax.random.categorical(key, jnp.where(mask, 0.0, -1e9)).astype(jnp.int32), memory

    return (lambda: jnp.zeros((), jnp.int32)), act


ENGINES = ("traitors_aboard", "standin", "traitors_aboard_without_heuristic")


def make_engine(name: str, claims: bool = True) -> Engine:
    """An engine by name: ``"traitors_aboard"`` (the real game), ``"standin"`` (tests), or
    ``"traitors_aboard_without_heuristic"`` (development only: the random bot plays the heuristic's games).

    Raises:
        ValueError: for another name.
    """
    if name == "standin":
        return standin_engine()
    if name in ("traitors_aboard", "traitors_aboard_without_heuristic"):
        return traitors_engine(claims, heuristic=name == "traitors_aboard")
    raise ValueError(f"engine {name!r} is not known; expected one of {', '.join(ENGINES)}")
