"""The opponents of training: :class:`OpponentPool` and the picklable :class:`AgentSpec` recipes.

Every agent follows :class:`traitors_env.agents.Agent`: ``act(observation, action_mask) -> int``
with ``observation`` the raw ``float32`` vector of shape ``(OBS_SIZE,)`` and ``action_mask``
the ``int8`` mask of shape ``(NUM_ACTIONS,)``. The agents of trained snapshots
(:class:`FrozenPolicy`, :class:`PolicyAgent`) live in :mod:`traitors_env.agents.checkpoint` and are
re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

# The checkpoint agents live beside the other agents (the environment package plays checkpoints without
# importing training/); training uses them from there.
from traitors_env.agents.checkpoint import (  # noqa: F401  (re-exported)
    OBS_SCALE,
    FrozenPolicy,
    PolicyAgent,
    PolicyLoadError,
    load_frozen_policy,
    scale_observation,
)


def make_baseline(name: str, seed: int | None = None):
    """A scripted baseline of :mod:`traitors_env.agents`: ``"random"`` or ``"heuristic"``."""
    from traitors_env.agents import make_agent

    return make_agent(name, seed=seed)


@dataclass(frozen=True)
class AgentSpec:
    """A picklable recipe for an agent: a baseline name, or a snapshot path (``kind == "policy"``)."""

    kind: str  # "random" | "heuristic" | "policy"
    path: str | None = None
    deterministic: bool = False

    def build(self, seed: int | np.random.Generator | None = None):
        """The agent; raises :class:`PolicyLoadError` for a missing snapshot, ``ValueError`` for an unknown kind."""
        if self.kind == "policy":
            if self.path is None:
                raise ValueError("AgentSpec(kind='policy') needs a snapshot path")
            return PolicyAgent(load_frozen_policy(str(self.path)), seed=seed, deterministic=self.deterministic)
        if self.kind in ("random", "heuristic"):
            if isinstance(seed, np.random.Generator):
                seed = int(seed.integers(2**63))
            return make_baseline(self.kind, seed=seed)
        raise ValueError(f"agent kind {self.kind!r} is not known; expected 'random', 'heuristic' or 'policy'")


OPPONENT_KINDS = ("latest", "past", "heuristic", "random")


def drawable_kinds(weights: Mapping[str, float], snapshots: int) -> tuple[list[str], np.ndarray]:
    """The opponent kinds that can be drawn with ``snapshots`` snapshots of the other side, and their
    probabilities (``float64``, renormalised): kinds with nothing to draw (``latest`` needs one snapshot,
    ``past`` two) or weight 0 drop out. The SB3 loops of both games draw their opponents by it.

    Raises:
        ValueError: for an unknown kind, a negative weight, or no kind left with positive weight.
    """
    for kind, weight in weights.items():
        if kind not in OPPONENT_KINDS:
            raise ValueError(f"opponent kind {kind!r} is not known; expected one of {OPPONENT_KINDS}")
        if weight < 0:
            raise ValueError(f"opponent weight {kind}={weight!r} is negative")
    available = {"latest": snapshots >= 1, "past": snapshots >= 2, "heuristic": True, "random": True}
    kinds = [k for k in OPPONENT_KINDS if available[k] and weights.get(k, 0) > 0]
    if not kinds:
        raise ValueError(f"no opponent kind can be drawn from weights={dict(weights)} with {snapshots} snapshots")
    total = sum(weights[k] for k in kinds)
    return kinds, np.array([weights[k] / total for k in kinds])


class OpponentPool:
    """The opponents of one team's training: weighted kinds over the other team's snapshots and the baselines.

    Args:
        weights: relative weight per kind: ``"latest"`` (newest snapshot), ``"past"`` (an older
            snapshot, uniformly), ``"heuristic"``, ``"random"``.
        snapshots: the other team's snapshot paths, oldest first.
        seed: seeds the agents built here.

    Kinds with nothing to draw (no snapshot yet; no older snapshot) drop out and the
    remaining weights are renormalised.

    Raises:
        ValueError: for an unknown kind, a negative weight, or no kind left with positive weight.
    """

    KINDS = OPPONENT_KINDS

    def __init__(self, weights: Mapping[str, float], snapshots: Sequence[str] = (), seed: int | None = None) -> None:
        self.snapshots = [str(s) for s in snapshots]
        self.kinds, self.probabilities = drawable_kinds(weights, len(self.snapshots))
        self.rng = np.random.default_rng(seed)
        self._baselines: dict[str, object] = {}

    def draw(self, rng: np.random.Generator) -> tuple[str, object]:
        """Draw one opponent for a game: ``(label, agent)``; ``label`` is the kind (and snapshot for ``past``)."""
        kind = self.kinds[int(rng.choice(len(self.kinds), p=self.probabilities))]
        if kind == "latest":
            return kind, PolicyAgent(load_frozen_policy(self.snapshots[-1]), seed=self.rng)
        if kind == "past":
            path = self.snapshots[int(rng.integers(len(self.snapshots) - 1))]
            return kind, PolicyAgent(load_frozen_policy(path), seed=self.rng)
        if kind not in self._baselines:
            self._baselines[kind] = make_baseline(kind, seed=int(self.rng.integers(2**63)))
        return kind, self._baselines[kind]
