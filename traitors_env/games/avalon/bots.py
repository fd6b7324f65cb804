"""A simple rule-based bot of *Avalon* that reads only its observation (a baseline; a LogicBot modelled on DeepRole's
is planned on top of the engine's state API).

Rules: the leader picks itself, then seats it does not see as Evil (an Evil leader is the team's one Evil); Good approves a team with no seat it sees as Evil and, after two rejections in a
row, any team (A09's fifth rejection loses for Good); Evil approves a team with an Evil member; Evil members play
Fail when the quest needs their Fail; the Assassin names a seat it does not see as Evil, at random; no claims.
"""

from __future__ import annotations

import numpy as np

from . import actions as A
from .engine import Phase
from .observation import phase_of_observation, piece, side_of_observation
from .roles import EVIL

__all__ = ["AvalonSimpleAgent"]


class AvalonSimpleAgent:
    """The ``heuristic`` bot of ``avalon_v0`` (see the module doc).

    Args:
        seed: an int, ``None`` or a ``numpy.random.Generator`` for its random choices.
    """

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self._rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action (``action_mask[action] == 1``); ``ValueError`` for an all-zero mask."""
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("action_mask allows no action (all zeros); an agent is only asked to act when one is legal")
        phase = phase_of_observation(observation)
        evil_me = side_of_observation(observation) == EVIL
        seen = piece(observation, "knowledge")[:, 0] > 0.5  # relative seats seen as Evil (A03)
        team = piece(observation, "team") > 0.5
        if phase is Phase.PROPOSE:
            offsets = [int(a - A.PICK_BASE) for a in legal if A.PICK_BASE <= a < A.PICK_BASE + A.MAX_OFFSET + 1]
            if 0 in offsets:
                return A.pick_action(0)
            clean = [o for o in offsets if not seen[o]] or offsets
            return A.pick_action(int(self._rng.choice(clean)))
        if phase is Phase.VOTE:
            rejections = int(np.argmax(piece(observation, "rejections")))
            has_evil = bool(team[seen].any()) or (evil_me and bool(team[0]))
            if evil_me:
                return A.APPROVE if has_evil or rejections >= 4 else A.REJECT
            return A.APPROVE if not has_evil or rejections >= 3 else A.REJECT
        if phase is Phase.QUEST:
            return A.FAIL if action_mask[A.FAIL] else A.SUCCESS
        if phase is Phase.ASSASSINATE:
            options = [int(a) for a in legal if not seen[int(a) - A.ASSASSINATE_BASE]] or [int(a) for a in legal]
            return int(self._rng.choice(options))
        if phase is Phase.CLAIM and action_mask[A.CLAIM_NONE]:
            return A.CLAIM_NONE
        return int(self._rng.choice(legal))
