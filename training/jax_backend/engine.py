"""The engine interface the JAX backend drives: pure functions over a pgx-style ``State``, from a game's JAX twin.

:class:`Engine` bundles what the game master needs: ``init(key, num_players) -> State``,
``step(state, action, key) -> State``, ``observe(state, player) -> float32 observation``,
``acting_observation(state)`` (the acting seat's observation: pgx's ``state.observation``, already
computed by ``init``/``step``, so the rollout does not encode it twice), ``roles(state) -> int (seats,)`` (each
seat's side: 0, 1, or −1 for an empty seat; read by the game master only, never shown to a policy) and the
game's heuristic bot ``heuristic_act(memory, observation, action_mask, key) -> (action, memory)`` with
``heuristic_memory()`` its memory at the start of a game (carried per game between the opponent's decisions, as
the Python bot keeps it between its calls); ``probes`` the twin's scripted probes (optional submodule ``probes``
with ``PROBES = {name: (side, act)}``, for a league); ``game`` names the registered game whose observation and action
shapes the engine has.

``State`` must carry pgx's ``current_player`` (int), ``legal_action_mask`` (bool/int8, ``(num_actions,)``),
``rewards`` (float, per seat: the game's returns on the last step), ``terminated`` and ``truncated``.

A game's JAX twin is what its :attr:`~traitors_env.core.Game.jax` loader returns: a module (package) with
``init(key, num_players, claims=...)``, ``step``, ``observe``, ``seat_sides(state)`` and a submodule
``heuristic`` with ``init_memory()`` and ``heuristic_act(observation, mask, memory, key)``. :func:`twin_engine`
adapts it; a small variant without a twin runs on its exact tree (:mod:`.tree_engine`);
:func:`standin_engine` is a stand-in game (:mod:`.standin`) for tests of the backend.
"""

from __future__ import annotations

import functools
import importlib
import sys

import jax
import jax.numpy as jnp

from traitors_env.core import load_game, registered_games
from traitors_env.core.registry import DEFAULT_GAME, loadable_games

from .interface import Engine

__all__ = ["STANDIN", "Engine", "EngineUnavailableError", "engine_names", "make_engine", "standin_engine",
           "twin_engine"]

#: The engine name of the stand-in game (:mod:`.standin`).
STANDIN = "standin"
#: The suffix of an engine name whose heuristic bot the random bot stands in for (development only).
WITHOUT_HEURISTIC = "_without_heuristic"


@functools.cache  # one object per engine: compiled functions are cached by it
def standin_engine() -> Engine:
    """The stand-in game of :mod:`.standin` (not a real game; for tests of the backend), with the default game's
    shapes."""
    from . import standin

    return Engine(
        STANDIN,
        standin.init,
        standin.step,
        standin.observe,
        lambda state: standin.observe(state, state.current_player),
        standin.roles,
        lambda: jnp.zeros((), jnp.int32),
        standin.heuristic_act,
        standin.GAME,
    )


class EngineUnavailableError(ImportError):
    """The game has no JAX twin, or its twin (or its heuristic bot) cannot be imported here."""


@functools.cache
def twin_engine(game: str = DEFAULT_GAME, claims: bool = True, heuristic: bool = True) -> Engine:
    """The JAX twin of ``game`` (its :attr:`~traitors_env.core.Game.jax`) and its JAX heuristic bot.

    Args:
        game: the registered game's name.
        claims: the claim step of the game.
        heuristic: require the JAX heuristic bot; ``False`` (development only) lets the random bot stand in for
            it and says so on stderr.

    Raises:
        EngineUnavailableError: if the game has no JAX twin, or the twin or (with ``heuristic``) its bot cannot be
            imported (the jax extra missing).
    """
    definition = load_game(game)
    if definition.jax is None:
        raise EngineUnavailableError(f"{definition.type.env_id} has no JAX twin; the jax backend cannot train it")
    try:
        twin = definition.jax()
    except ImportError as error:
        raise EngineUnavailableError(
            f"the JAX twin of {definition.type.env_id} cannot be imported ({error}); "
            "install the jax extra (pip install -e '.[jax]')"
        ) from None
    try:
        bot = importlib.import_module(f"{twin.__name__}.heuristic")
        memory = bot.init_memory

        def act(memory, observation, mask, key):
            return bot.heuristic_act(observation, mask, memory, key)
    except ImportError as error:
        if heuristic:
            raise EngineUnavailableError(f"the JAX heuristic bot cannot be imported: {error}") from None
        print(f"warning: no JAX heuristic bot ({error}); the random bot plays its games", file=sys.stderr)
        memory, act = _random_bot()

    return Engine(
        definition.name,
        functools.partial(twin.init, claims=claims),
        twin.step,
        twin.observe,
        lambda state: state.observation,
        twin.seat_sides,
        memory,
        act,
        definition.name,
        _probes(twin),
    )


def _probes(twin) -> tuple:
    """The twin's scripted probes, ``(name, side, act)`` each, from its optional ``probes`` submodule (none without)."""
    try:
        module = importlib.import_module(f"{twin.__name__}.probes")
    except ModuleNotFoundError as error:
        if error.name != f"{twin.__name__}.probes":
            raise
        return ()
    return tuple((name, side, act) for name, (side, act) in module.PROBES.items())


def _random_bot():
    def act(memory, observation, mask, key):
        return jax.random.categorical(key, jnp.where(mask, 0.0, -1e9)).astype(jnp.int32), memory

    return (lambda: jnp.zeros((), jnp.int32)), act


def engine_names() -> tuple[str, ...]:
    """The engines :func:`make_engine` knows: every registered game with a JAX twin (by its name) and every declared
    variant with one (``traitors_aboard:mini3``, :attr:`~traitors_env.core.game.Variant.jax`), the same with the
    random bot for its heuristic (``<name>_without_heuristic``, development only), every declared small variant
    without a twin (its exact tree: :mod:`.tree_engine`, e.g. ``avalon:mini5``), and ``standin``. A game that
    does not load (a broken plug-in) is left out with a warning (:func:`~traitors_env.core.registry.loadable_games`)."""
    twins = []
    for game in loadable_games():
        if game.jax is not None:
            twins.append(game.name)
        twins += [f"{game.name}:{name}" for name, variant in game.variants.items() if variant.jax is not None]
    from .tree_engine import tree_engine_names

    trees = [name for name in tree_engine_names() if name not in twins]  # small variants without a twin
    return (*twins, *trees, STANDIN, *(f"{name}{WITHOUT_HEURISTIC}" for name in twins))


def make_engine(name: str, claims: bool = True) -> Engine:
    """An engine by name (:func:`engine_names`): a game or variant with a JAX twin, else a declared small variant's
    exact tree (:mod:`.tree_engine`, ``claims`` fixed by the variant), ``"standin"`` (tests), or
    ``"<game>_without_heuristic"`` (development only: the random bot plays the heuristic's games).

    Raises:
        ValueError: for another name.
        traitors_env.core.registry.GameLoadError: for a registered game that does not load (a broken plug-in).
        EngineUnavailableError: see :func:`twin_engine`.
    """
    if name == STANDIN:
        return standin_engine()
    game = name.removesuffix(WITHOUT_HEURISTIC)
    if game.partition(":")[0] in registered_games():
        load_game(game.partition(":")[0])  # a game that does not load says why (GameLoadError), not "engine not known"
    names = engine_names()
    if name not in names:
        raise ValueError(f"engine {name!r} is not known; expected one of {', '.join(names)}")
    if name != game or load_game(game).jax is not None:
        return twin_engine(game, claims, heuristic=game == name)
    from .tree_engine import tree_engine

    try:
        return tree_engine(game)
    except ImportError as error:  # an OpenSpiel game's tree without the solve extra
        raise EngineUnavailableError(f"the exact tree of {game} cannot be built here: {error}") from None
