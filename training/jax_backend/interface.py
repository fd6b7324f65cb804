"""The :class:`Engine` tuple alone (its contract: :mod:`.engine`'s module doc), so that an engine maker such as
:mod:`.tree_engine` builds one without importing :mod:`.engine`, which picks the maker (no import cycle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax.numpy as jnp

__all__ = ["Engine"]


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
    #: the registered game whose observation and action shapes (and observation scale) the engine has
    game: str
    #: the twin's scripted probes (its optional ``probes`` submodule's ``PROBES``), ``(name, side, act)`` each with
    #: ``act(raw observation, mask, key) -> int32`` for one decision; drawn only by a league (``league.fixed``)
    probes: tuple = ()
