"""An agent that plays each decision with the agent of the side its observation shows (roles are secret)."""

from __future__ import annotations

import numpy as np

from ..core.agent import Agent, agent_beliefs
from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game

__all__ = ["SideAgent", "TeamAgent"]


class SideAgent:
    """Plays each decision with the agent of the side ``game.side_of_observation`` reads from the observation
    (``game.type.sides`` order: Traitors Aboard's Pirates then Mutineers, The Traitors' Traitor then Faithful).

    Lets one pair of agents (two trained policies, two bots) sit at every seat without knowing the deal.

    Args:
        first, second: the agents of side 0 and side 1; or give them by side as keywords: the side's key, its
            label or the key's singular, any case (``SideAgent(pirate=a, mutineer=b)``, ``SideAgent(traitor=a,
            faithful=b, game="the_traitors")``).
        game: a registered game name, environment id or :class:`~traitors_env.core.Game`
            (default :data:`~traitors_env.core.registry.DEFAULT_GAME`).

    Raises:
        ValueError: for a keyword that names no side of the game, or agents missing or given twice (named).
        traitors_env.core.UnknownGameError: for a game that is not registered.
    """

    def __init__(self, first: Agent | None = None, second: Agent | None = None, game: str | Game = DEFAULT_GAME,
                 **by_side: Agent) -> None:
        game = load_game(game)
        agents = [first, second]
        for name, agent in by_side.items():
            index = _side_index(game, name)
            if agents[index] is not None:
                raise ValueError(f"SideAgent: the agent of side {game.type.sides[index]!r} is given twice")
            agents[index] = agent
        if None in agents:
            raise ValueError(f"SideAgent needs an agent for each side of {game.type.env_id} {list(game.type.sides)}; "
                             f"got {agents}")
        self.agents = tuple(agents)
        self.game = game.name
        self._side_of_observation = game.side_of_observation

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action of the agent of the observer's side (see :meth:`Agent.act`)."""
        return self.agents[self._side_of_observation(observation)].act(observation, action_mask)

    def beliefs(self, observation: np.ndarray) -> np.ndarray | None:
        """The role beliefs of the agent of the observer's side (:class:`traitors_env.core.agent.BeliefAgent`), or
        ``None`` where that agent has none."""
        return agent_beliefs(self.agents[self._side_of_observation(observation)], observation)

    def __reduce__(self):  # pickled by game name: a game's functions need not be picklable
        return SideAgent, (*self.agents, self.game)


def _side_index(game: Game, name: str) -> int:
    """0 or 1 for a side's key, label or the key's singular (any case)."""
    for index, key in enumerate(game.type.sides):
        if name.lower() in (key.lower(), game.type.side_labels[index].lower()) or f"{name.lower()}s" == key.lower():
            return index
    raise ValueError(f"{game.type.env_id} has no side {name!r}; expected one of {list(game.type.sides)}")


#: The name of :class:`SideAgent` from when the agents layer knew one game (``TeamAgent(pirate, mutineer)``).
TeamAgent = SideAgent
