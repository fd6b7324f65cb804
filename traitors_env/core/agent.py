"""The Agent protocol every player of ``traitors_aboard_v0`` follows, and the random agent.

An agent speaks the environment's own interface: :meth:`Agent.act` takes one agent's flat
observation (``float32``, shape ``(OBS_SIZE,)`` = ``(1228,)``) and action mask (``int8``, shape
``(NUM_ACTIONS,)`` = ``(196,)``) and returns a legal action index.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Agent", "RandomAgent"]


@runtime_checkable
class Agent(Protocol):
    """Anything that picks an action from one agent's observation and action mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action index (``action_mask[action] == 1``).

        Args:
            observation: ``float32``, shape ``(1228,)``: ``env.observe(agent)["observation"]``.
            action_mask: ``int8``, shape ``(196,)``: ``env.observe(agent)["action_mask"]``.

        Raises:
            ValueError: if ``action_mask`` allows no action.
        """
        ...


def _generator(seed: int | np.random.Generator | None) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _no_legal_action(action_mask: np.ndarray) -> ValueError:
    return ValueError(
        f"action_mask allows no action (shape {np.shape(action_mask)}, all zeros); an agent is only asked "
        "to act when at least one action is legal (R13)"
    )


class RandomAgent:
    """Uniform over the legal actions (the ones with ``action_mask == 1``).

    Args:
        seed: an int, ``None`` (fresh entropy) or a ``numpy.random.Generator`` to draw from.
    """

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self._rng = _generator(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniformly drawn legal action. Raises ``ValueError`` if the mask is all zeros."""
        legal = action_mask.nonzero()[0]
        if legal.size == 0:
            raise _no_legal_action(action_mask)
        return int(legal[self._rng.integers(legal.size)])


