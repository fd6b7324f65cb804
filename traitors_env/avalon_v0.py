"""The public module of the *Avalon* environment (PettingZoo convention: a versioned name).

``from traitors_env import avalon_v0``; ``avalon_v0.env(num_players=5)``. The code lives in
:mod:`traitors_env.games.avalon.env`. ``import traitors_env`` registers it in PettingZoo's registry (1.27+) as
``avalon_v0``: ``pettingzoo.make("aec", "avalon_v0")``.
"""

from .games.avalon.env import RENDER_MODES, env, raw_env

__all__ = ["REGISTRY_ID", "RENDER_MODES", "env", "raw_env"]

REGISTRY_ID = "avalon_v0"
