"""The public module of every registered game under its environment id, PettingZoo's versioned name.

``from traitors_env import the_traitors_v0`` (or ``import traitors_env.avalon_v0``) gives a module with ``env``,
``raw_env``, ``RENDER_MODES`` and ``REGISTRY_ID`` (the id, for ``pettingzoo.make("aec", REGISTRY_ID)``) of the game
registered under that id (:func:`traitors_env.core.registry.registered_env_ids`): the built-in games and any game
registered by an entry point or ``register_game``. A game therefore needs no file outside its folder under
``traitors_env/games/``. The module is built on first import, from the game's ``Game`` (:func:`load_game`); the
finder is consulted only for names no file of the package provides.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys

from .core.registry import MissingExtraError, load_game, missing_extra, registered_env_ids

__all__ = ["PublicModules"]

PACKAGE = __name__.rpartition(".")[0]


class PublicModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and builds ``traitors_env.<env_id>`` for each registered environment id."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, env_id = fullname.rpartition(".")
        if package != PACKAGE or (env_id not in registered_env_ids() and missing_extra(env_id) is None):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module) -> None:
        env_id = module.__name__.rpartition(".")[2]
        try:
            game = load_game(env_id)
        except MissingExtraError as error:  # a built-in game whose optional extra is not installed: say how
            raise ImportError(str(error), name=module.__name__) from None
        module.__doc__ = (f"The public module of {game.type.long_name} ({env_id}): ``env``, ``raw_env``, "
                          f"``RENDER_MODES``, ``REGISTRY_ID``; the code lives in {game.raw_env.__module__}.")
        module.env, module.raw_env = game.env, game.raw_env
        module.RENDER_MODES = tuple(game.raw_env.metadata["render_modes"])
        module.REGISTRY_ID = env_id
        module.__all__ = ["REGISTRY_ID", "RENDER_MODES", "env", "raw_env"]


if not any(isinstance(finder, PublicModules) for finder in sys.meta_path):  # once, even on a reload
    sys.meta_path.append(PublicModules())
