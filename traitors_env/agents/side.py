"""An agent that plays each decision with the agent of the side its observation shows (roles are secret)."""

from __future__ import annotations

import numpy as np

from ..core.agent import Agent
from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game

__all__ = ["SideAgent", "TeamAgent"]


class SideAgent:
    """Plays each decision with ``first`` or ``second``: the agent of the side ``game.side_of_observation`` reads
    from the observation (``game.type.sides`` order: Traitors Aboard's Pirates then Mutineers, The Traitors'
    Traitor then Faithful).

    Lets one pair of agents (two trained policies, two bots) sit at every seat without knowing the deal.

    Args:
        first, second: the agents of side 0 and side 1.
        game: a registered game name, environment id or :class:`~traitors_env.core.Game`
            (default :data:`~traitors_env.core.registry.DEFAULT_GAME`).

    Raises:
        traitors_env.core.UnknownGameError: for a game that is not registered.
    """

    def __init__(self, first: Agent, second: Agent, game: str | Game = DEFAULT_GAME) -> None:
        game = load_game(game)
        self.agents = (first, second)
        self.game = game.name
        self._side_of_observation = game.side_of_observation

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action of the agent of the observer's side (see :meth:`Agent.act`)."""
        return self.agents[self._side_of_observation(observation)].act(observation, action_mask)

    def __reduce__(self):  # pickled by game name: a game's functions need not be picklable
        return SideAgent, (*self.agents, self.game)


#: The name of :class:`SideAgent` from when the agents layer knew one game (``TeamAgent(pirate, mutineer)``).
TeamAgent = SideAgent
