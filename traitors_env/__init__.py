"""Traitors Aboard: a PettingZoo AEC environment for a hidden-role bluffing card game.

``from traitors_env import traitors_aboard_v0``; ``traitors_aboard_v0.env(num_players=5)``.
The pure rules engine is :mod:`traitors_env.traitors_aboard.engine` (no gymnasium/pettingzoo import).
"""

from .traitors_aboard.cards import CardKind, EndCondition, Role
from .traitors_aboard.engine import GameConfig, GameState, IllegalActionError, Phase, PositionError

__all__ = ["CardKind", "EndCondition", "GameConfig", "GameState", "IllegalActionError", "Phase", "PositionError", "Role"]
__version__ = "0.1.0"
