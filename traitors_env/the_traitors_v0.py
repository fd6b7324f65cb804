"""The public module of The Traitors board-game environment (PettingZoo convention: a versioned name).

``from traitors_env import the_traitors_v0``; ``the_traitors_v0.env(num_players=5)``. The code lives
in :mod:`traitors_env.the_traitors.env`. Importing this module also registers the environment in
PettingZoo's registry (where the installed PettingZoo has one, 1.27+) as ``the_traitors_v0``:
``pettingzoo.make("aec", "the_traitors_v0")``.
"""

from .the_traitors.env import RENDER_MODES, env, raw_env

__all__ = ["REGISTRY_ID", "RENDER_MODES", "env", "raw_env"]

REGISTRY_ID = "the_traitors_v0"


def _register() -> None:
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # a PettingZoo without a registry (before 1.25)
        return
    if REGISTRY_ID not in aec_registry:
        register("aec", REGISTRY_ID, entry_point="traitors_env.the_traitors_v0:env")


_register()
