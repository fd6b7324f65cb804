"""The engine interface the JAX backend drives: pure functions over a pgx-style ``State``.

:class:`Engine` bundles what the game master needs: ``init(key, num_players) -> State``,
``step(state, action, key) -> State``, ``observe(state, player) -> float32 (1228,)``,
``roles(state) -> int (8,)`` (each seat's team: 0 Pirates, 1 Mutineers; read by the game
master only, never shown to a policy) and the heuristic bot
``heuristic_act(memory, observation, action_mask, key) -> (action, memory)`` with
``heuristic_memory()`` its memory at the start of a game (carried per game between the
opponent's decisions, as the Python bot keeps it between its calls).

``State`` must carry pgx's ``current_player`` (int), ``legal_action_mask`` (bool/int8,
``(196,)``), ``rewards`` (float, ``(8,)`` per seat, R17: +1/−1 on the last step),
``terminated`` and ``truncated``.

:func:`traitors_engine` adapts the real engine (:mod:`traitors_env.traitors_aboard.jax`,
issue 12) and its heuristic bot; :func:`standin_engine` the stand-in game of :mod:`.standin`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax.numpy as jnp


class Engine(NamedTuple):
    """Pure functions of one game (``vmap`` them for a batch); see the module doc."""

    name: str
    init: Callable[[Any, Any], Any]
    step: Callable[[Any, Any, Any], Any]
    observe: Callable[[Any, Any], jnp.ndarray]
    roles: Callable[[Any], jnp.ndarray]
    heuristic_memory: Callable[[], Any]
    heuristic_act: Callable[[Any, Any, Any, Any], tuple[Any, Any]]


def standin_engine() -> Engine:
    """The stand-in game of :mod:`.standin` (not *Traitors Aboard*; for tests of the backend)."""
    from . import standin

    return Engine(
        "standin",
        standin.init,
        standin.step,
        standin.observe,
        standin.roles,
        lambda: jnp.zeros((), jnp.int32),
        standin.heuristic_act,
    )


class EngineUnavailableError(ImportError):
    """The JAX engine (or its heuristic bot) is not installed in this checkout."""


def traitors_engine() -> Engine:
    """The JAX twin of *Traitors Aboard* and its JAX heuristic bot.

    Raises:
        EngineUnavailableError: if ``traitors_env.traitors_aboard.jax`` or its heuristic is missing.
    """
    try:
        from traitors_env.traitors_aboard import jax as game
    except ImportError as error:
        raise EngineUnavailableError(
            f"the JAX engine traitors_env.traitors_aboard.jax cannot be imported ({error}); "
            "install the jax extra (pip install -e '.[jax]') on a checkout that has it"
        ) from None
    try:
        from traitors_env.traitors_aboard.jax import heuristic
    except ImportError as error:
        raise EngineUnavailableError(f"the JAX heuristic bot cannot be imported: {error}") from None
    return Engine("traitors_aboard", game.init, game.step, game.observe, _roles_of(game), *_bot_of(heuristic))


def _roles_of(game) -> Callable:
    roles = getattr(game, "roles", None)
    if callable(roles):
        return roles
    return lambda state: state.roles


def _bot_of(heuristic) -> tuple[Callable, Callable]:
    return heuristic.init_memory, heuristic.act


def make_engine(name: str) -> Engine:
    """``"traitors_aboard"`` (the real game) or ``"standin"``."""
    if name == "standin":
        return standin_engine()
    if name == "traitors_aboard":
        return traitors_engine()
    raise ValueError(f"engine {name!r} is not known; expected 'traitors_aboard' or 'standin'")
