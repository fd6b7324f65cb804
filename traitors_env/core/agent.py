"""The Agent protocol every player of a game follows, the optional role beliefs, and the random agent.

An agent speaks the environment's own interface: :meth:`Agent.act` takes one agent's flat
observation (``float32``, the game's ``observation_shape``; Traitors Aboard ``(1228,)``) and action mask
(``int8``, shape ``(num_actions,)``; Traitors Aboard ``(196,)``) and returns a legal action index.

**Role beliefs** (:class:`BeliefAgent`, optional): an agent may also say what it believes about the roles,
``beliefs(observation) -> float32 (game.belief_size,)``: per seat *relative to the observer* (index 0 is the
observer itself, index ``r`` the seat ``r`` places to its left: absolute seat ``(seat + r) % num_players``,
the relative seats of the games' observations), the probability that the seat is on the game's hidden side
(``Game.hidden_side``: Traitors Aboard's Mutineers, The Traitors' Traitor). ``NaN`` at index 0 (the observer
knows its own role) and at the padded seats ``r >= num_players``. The length is the game's
``type.max_players`` (``Game.belief_size``: 8 for Traitors Aboard, 6 for The Traitors). The benchmark kit scores
beliefs against the true roles (:mod:`traitors_env.evaluation.deduction`); :func:`agent_beliefs` reads them
from any agent, ``None`` for one without. Beliefs must not change what the agent does: the kit asks for them
before ``act`` at the decisions it scores, so a ``beliefs`` that drew from the agent's RNG would change its games.
A ``beliefs`` that returns ``None`` has none for that observation (a wrapper such as
:class:`traitors_env.agents.SideAgent` whose agent of that side has none).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Agent", "BeliefAgent", "RandomAgent", "agent_beliefs", "spread_to_count"]


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


@runtime_checkable
class BeliefAgent(Agent, Protocol):
    """An :class:`Agent` that also exposes its role beliefs (see the module doc)."""

    def beliefs(self, observation: np.ndarray) -> np.ndarray:
        """P(seat is on the hidden side) per relative seat, ``float32``, shape ``(game.belief_size,)``; ``NaN`` at
        index 0 (the observer) and at padded seats. Must not change the agent's later actions."""
        ...


def agent_beliefs(agent: object, observation: np.ndarray, size: int | None = None) -> np.ndarray | None:
    """``agent``'s beliefs about ``observation`` as a ``float32`` vector, or ``None`` for an agent without ``beliefs``
    (or whose ``beliefs`` returned ``None`` for this observation).

    Args:
        agent: any agent; observation: its observation; size: the expected length (``Game.belief_size``), checked
            when given.

    Raises:
        ValueError: for beliefs of another shape than ``(size,)``, or a finite value outside [0, 1], naming both.
    """
    method = getattr(agent, "beliefs", None)
    if not callable(method):
        return None
    values = method(observation)
    if values is None:
        return None
    values = np.asarray(values, dtype=np.float32)
    if values.ndim != 1 or (size is not None and values.shape != (size,)):
        raise ValueError(f"{type(agent).__name__}.beliefs returned shape {values.shape}; expected "
                         f"({size if size is not None else 'max_players'},): one entry per relative seat")
    finite = values[np.isfinite(values)]
    if finite.size and (finite.min() < 0.0 or finite.max() > 1.0):
        raise ValueError(f"{type(agent).__name__}.beliefs returned {values.tolist()}; expected probabilities in [0, 1] "
                         "(NaN for the observer and padded seats)")
    return values


def spread_to_count(weights: np.ndarray | list[float], count: float) -> np.ndarray:
    """Probabilities proportional to ``weights``, each at most 1, that sum to ``count`` (capped proportional scaling).

    The calibration the games' heuristics use for their beliefs: ``p_i = min(1, λ·w_i)`` with ``λ`` chosen so that
    ``Σ p_i = count`` (a seat whose share would pass 1 is certain, and the rest of ``count`` is spread over the
    others in proportion to their weights). Seats of weight 0 share what is left when every positive weight is
    capped; ``count`` at or above the number of seats gives all ones, ``count <= 0`` all zeros.

    Args:
        weights: non-negative finite weights, shape ``(k,)``; count: the expected number of hidden seats among them.

    Returns:
        ``float64``, shape ``(k,)``, in [0, 1].

    Raises:
        ValueError: for a negative or non-finite weight, naming the weights.
    """
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size and (not np.all(np.isfinite(w)) or w.min() < 0.0):
        raise ValueError(f"weights {w.tolist()}: expected non-negative finite numbers")
    p = np.zeros(w.size)
    if count <= 0 or w.size == 0:
        return p
    if count >= w.size:
        return np.ones(w.size)
    free = np.ones(w.size, dtype=bool)
    left = float(count)
    while True:
        total = w[free].sum()
        if not free.any():
            return p
        if total <= 0.0:  # only zero weights left: they share the rest evenly
            p[free] = left / free.sum()
            return p
        scale = left / total
        capped = free & (w * scale >= 1.0)
        if not capped.any():
            p[free] = w[free] * scale
            return p
        p[capped] = 1.0
        free &= ~capped
        left -= float(capped.sum())


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


