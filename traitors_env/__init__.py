"""Traitors Aboard: a PettingZoo AEC environment for a hidden-role bluffing card game.

``from traitors_env import traitors_aboard_v0``; ``traitors_aboard_v0.env(num_players=5)``.
The pure rules engine is :mod:`traitors_env.games.traitors_aboard.engine` (no gymnasium/pettingzoo import).
Importing the package registers ``traitors_aboard_v0`` in PettingZoo's registry where the installed
PettingZoo has one (1.27 on): ``pettingzoo.make("aec", "traitors_aboard_v0", num_players=5)``.
"""

# The package's version, written here only: pyproject.toml reads it ([tool.setuptools.dynamic]), CHANGELOG.md names it.
__version__ = "0.1.0"

from . import (
    public_modules,  # noqa: F401  (traitors_env.<env_id>: each registered game's public module)
    registration,  # noqa: F401  (registers the environments with PettingZoo)
)
from .core import Game, GameType, load_game, register_game, registered_games
from .games.traitors_aboard.cards import CardKind, EndCondition, Role
from .games.traitors_aboard.engine import GameConfig, GameState, IllegalActionError, Phase, PositionError

__all__ = ["Game", "GameType", "load_game", "register_game", "registered_games", "CardKind", "EndCondition", "GameConfig", "GameState", "IllegalActionError", "Phase", "PositionError", "Role"]
