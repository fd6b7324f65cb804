"""Agents: the :class:`Agent` protocol, the random and heuristic baselines, the team agent, agents by spec.

Every agent has ``act(observation, action_mask) -> int`` (:class:`Agent`). :func:`make_agent`
builds a baseline by name; :func:`traitors_env.agents.spec.load_agent` builds any agent from a
spec (a baseline name, a trained checkpoint, a user's factory).
"""

from __future__ import annotations

import numpy as np

from ..core.agent import Agent, RandomAgent
from ..games.traitors_aboard.bots import HeuristicAgent
from .team import TeamAgent

__all__ = ["AGENT_NAMES", "Agent", "HeuristicAgent", "RandomAgent", "TeamAgent", "make_agent"]

AGENT_NAMES = ("random", "heuristic")


def make_agent(name: str, seed: int | np.random.Generator | None = None) -> Agent:
    """A baseline agent by name: ``"random"`` (:class:`RandomAgent`) or ``"heuristic"`` (:class:`HeuristicAgent`).

    Raises:
        ValueError: naming ``name`` and the allowed names.
    """
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        return HeuristicAgent(seed)
    raise ValueError(f"unknown agent name {name!r}; expected one of {list(AGENT_NAMES)}")


