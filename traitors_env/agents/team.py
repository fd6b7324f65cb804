"""An agent that plays each decision with its Pirate or its Mutineer agent, by the role the observation shows."""

from __future__ import annotations

import numpy as np

from ..core.agent import Agent
from ..games.traitors_aboard.observation import OFFSETS

__all__ = ["TeamAgent"]

_ROLE_PIRATE = OFFSETS["role"]  # role one-hot: Pirate, Mutineer


class TeamAgent:
    """Plays each decision with ``pirate`` or ``mutineer``, by the role the observation shows.

    Lets one set of agents sit at every seat without knowing the deal (roles are secret).
    """

    def __init__(self, pirate: Agent, mutineer: Agent) -> None:
        self.pirate = pirate
        self.mutineer = mutineer

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The chosen agent's action (see :meth:`Agent.act`)."""
        agent = self.pirate if observation[_ROLE_PIRATE] > 0.5 else self.mutineer
        return agent.act(observation, action_mask)


