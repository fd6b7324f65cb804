"""The environments in PettingZoo's registry, so that ``pettingzoo.make("aec", "traitors_aboard_v0")`` builds one.

PettingZoo has a registry from version 1.27 on (``pettingzoo.register`` / ``pettingzoo.make``,
after Gymnasium's); 1.24–1.26 have none. ``import traitors_env`` registers the environments where
the installed PettingZoo has a registry and does nothing otherwise (:data:`REGISTERED` says which).
The entry points are strings, so ``make`` imports the environment's module only when it is asked.
"""

from __future__ import annotations

__all__ = ["ENVIRONMENTS", "REGISTERED", "register_environments"]

#: Registry id → entry point (``module:callable``): the wrapped ``env()`` of each public module.
ENVIRONMENTS = {
    "traitors_aboard_v0": "traitors_env.traitors_aboard_v0:env",
    "the_traitors_v0": "traitors_env.the_traitors_v0:env",
}


def register_environments() -> bool:
    """Register :data:`ENVIRONMENTS` as AEC environments; ``False`` if PettingZoo has no registry (< 1.27)."""
    try:
        from pettingzoo import aec_registry, register
        from pettingzoo.env_registry.spec import EnvSpec
    except ImportError:
        return False
    for env_id, entry_point in ENVIRONMENTS.items():
        if EnvSpec(env_id).id not in aec_registry:  # a second call (a reload) does not warn "Overriding"
            register("aec", env_id, entry_point=entry_point)
    return True


#: Whether the installed PettingZoo has a registry and the environments are in it.
REGISTERED = register_environments()
