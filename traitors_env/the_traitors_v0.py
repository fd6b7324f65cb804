"""The public module of The Traitors board-game environment (PettingZoo convention: a versioned name).

``from traitors_env import the_traitors_v0``; ``the_traitors_v0.env(num_players=5)``. The code lives
in :mod:`traitors_env.games.the_traitors.env`. ``import traitors_env`` registers it in PettingZoo's
registry (where the installed PettingZoo has one, 1.27+) as ``the_traitors_v0``
(:mod:`traitors_env.registration`): ``pettingzoo.make("aec", "the_traitors_v0")``.
"""

from .games.the_traitors.env import RENDER_MODES, env, raw_env

__all__ = ["REGISTRY_ID", "RENDER_MODES", "env", "raw_env"]

REGISTRY_ID = "the_traitors_v0"
