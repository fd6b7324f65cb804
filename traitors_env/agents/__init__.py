"""Agents of any registered game: the :class:`Agent` protocol, bots by name, the side agent, agents by spec.

Every agent has ``act(observation, action_mask) -> int`` (:class:`Agent`). :func:`make_agent`
builds one of a game's bots by name (``game.bots``); :class:`SideAgent` plays each decision with the
agent of the side the observation shows; :func:`traitors_env.agents.spec.load_agent` builds any agent
from a spec (a bot name, a trained checkpoint of any backend, a run folder, a user's factory).
Nothing here names a game: a game is a registered name (default
:data:`~traitors_env.core.registry.DEFAULT_GAME`) or a :class:`~traitors_env.core.Game`.
"""

from __future__ import annotations

import numpy as np

from ..core.agent import Agent, RandomAgent
from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from .side import SideAgent, TeamAgent

__all__ = ["Agent", "HeuristicAgent", "RandomAgent", "SideAgent", "TeamAgent", "make_agent"]


def make_agent(name: str, seed: int | np.random.Generator | None = None, game: str | Game = DEFAULT_GAME) -> Agent:
    """One of ``game``'s bots by name (``game.bots``: ``"random"``, ``"heuristic"``, …), seeded by ``seed``
    (an int, ``None`` or a ``numpy.random.Generator``).

    Raises:
        ValueError: naming ``name`` and the game's bot names.
        traitors_env.core.UnknownGameError: for a game that is not registered.
    """
    return load_game(game).make_bot(name, seed)


def __getattr__(name: str):
    # HeuristicAgent: the default game's heuristic bot, the name this package exported when it had one game.
    if name == "HeuristicAgent":
        return load_game(DEFAULT_GAME).bots["heuristic"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
