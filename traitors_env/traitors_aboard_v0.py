"""The public module of the Traitors Aboard environment (PettingZoo convention: a versioned name).

``from traitors_env import traitors_aboard_v0``; ``traitors_aboard_v0.env(num_players=5)``. The code
lives in :mod:`traitors_env.games.traitors_aboard.env`.
"""

from .games.traitors_aboard.env import RENDER_MODES, env, raw_env

__all__ = ["RENDER_MODES", "env", "raw_env"]
