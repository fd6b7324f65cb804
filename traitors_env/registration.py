"""Every registered game in PettingZoo's registry, so that ``pettingzoo.make("aec", "traitors_aboard_v0")`` builds one.

PettingZoo has a registry from version 1.27 on (``pettingzoo.register`` / ``pettingzoo.make``,
after Gymnasium's); 1.24–1.26 have none. ``import traitors_env`` registers the games of
:func:`traitors_env.core.registry.registered_games` where the installed PettingZoo has a registry and
does nothing otherwise (:data:`REGISTERED` says which). No game is imported until ``make`` asks for it.
"""

from __future__ import annotations

from .core.registry import load_game, on_register, registered_env_ids

__all__ = ["REGISTERED", "make_env", "register_environments"]


def make_env(env_id: str, **kwargs):
    """The wrapped ``env()`` of the game registered as ``env_id``."""
    return load_game(env_id).env(**kwargs)


class _EnvFactory:
    """A picklable entry point for one environment id (PettingZoo calls it with the env's kwargs)."""

    def __init__(self, env_id: str) -> None:
        self.env_id = env_id

    def __call__(self, **kwargs):
        return make_env(self.env_id, **kwargs)


def register_environments() -> bool:
    """Register every registered game's env id as an AEC environment; ``False`` if PettingZoo has no registry."""
    try:
        from pettingzoo import aec_registry, register
        from pettingzoo.env_registry.spec import EnvSpec
    except ImportError:
        return False
    for env_id in registered_env_ids():
        if EnvSpec(env_id).id not in aec_registry:  # a second call (a reload) does not warn "Overriding"
            register("aec", env_id, entry_point=_EnvFactory(env_id))
    return True


#: Whether the installed PettingZoo has a registry and the environments are in it.
REGISTERED = register_environments()
if REGISTERED:  # a game registered later (register_game at run time) joins PettingZoo's registry too
    on_register(register_environments)
