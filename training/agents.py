"""Agents that act from an observation and an action mask: trained snapshots, baselines, the opponent pool.

Every agent follows :class:`traitors_env.bots.Agent`: ``act(observation, action_mask) -> int``
with ``observation`` the raw ``float32`` vector of shape ``(OBS_SIZE,)`` and ``action_mask``
the ``int8`` mask of shape ``(NUM_ACTIONS,)``.

A trained snapshot is a ``MaskablePPO`` zip file. :class:`FrozenPolicy` loads it once
(``MaskablePPO.load(path, device="cpu")``, cached per file version) and runs its torch
modules directly; ``tests/test_training.py`` checks that its action probabilities equal
those of the policy's own masked distribution.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from traitors_env.actions import NUM_ACTIONS
from traitors_env.observation import OBS_HIGH, OBS_LOW, OBS_SIZE

#: Observations are divided by this (the larger absolute Box bound of each feature) so every
#: feature lies in [-1, 1]; the learner's environment and :class:`FrozenPolicy` both apply it.
OBS_SCALE = np.maximum(np.maximum(np.abs(OBS_LOW), np.abs(OBS_HIGH)), 1.0).astype(np.float32)


def scale_observation(observation: np.ndarray) -> np.ndarray:
    """The network input for a raw observation: ``observation / OBS_SCALE`` (``float32``, same shape)."""
    return observation / OBS_SCALE


class PolicyLoadError(FileNotFoundError):
    """A checkpoint that is missing or is not a MaskablePPO zip."""


class FrozenPolicy:
    """The actor of a saved ``MaskablePPO`` snapshot, for acting as an opponent or in evaluation.

    Runs the snapshot's own torch modules (features extractor, actor MLP, action head) under
    ``torch.no_grad()`` and masks the logits in numpy; this skips the distribution objects of
    ``MaskablePPO.predict`` (~1 ms a call here) at ~0.15 ms, with the same probabilities.
    Picklable, so it can be sent to worker processes.

    Args:
        path: a ``.zip`` written by ``MaskablePPO.save``.

    Raises:
        PolicyLoadError: if ``path`` does not exist, cannot be loaded as a ``MaskablePPO``, or was
            trained on other observation or action spaces than ``traitors_aboard_v0``'s.
    """

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        if not path.is_file():
            raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist")
        from sb3_contrib import MaskablePPO  # torch is imported only where a snapshot is loaded

        try:
            model = MaskablePPO.load(path, device="cpu")
        except Exception as error:  # corrupt zip, wrong algorithm, …
            raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: {error}") from error
        shape, actions = getattr(model.observation_space, "shape", None), getattr(model.action_space, "n", None)
        if shape != (OBS_SIZE,) or actions != NUM_ACTIONS:  # e.g. a policy of another environment
            raise PolicyLoadError(
                f"checkpoint {str(path)!r} was trained on observations of shape {shape} and {actions} actions; "
                f"traitors_aboard_v0 has ({OBS_SIZE},) and {NUM_ACTIONS}"
            )
        self.path = str(path)
        self.policy = model.policy.eval()

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Action probabilities, shape ``(NUM_ACTIONS,)`` ``float64``, zero outside ``action_mask``."""
        import torch

        policy = self.policy
        with torch.no_grad():
            x = torch.as_tensor(scale_observation(np.asarray(observation, dtype=np.float32))[None])
            latent = policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor))
            logits = policy.action_net(latent)[0].numpy().astype(np.float64)
        logits = np.where(np.asarray(action_mask, dtype=bool), logits, -np.inf)
        logits -= logits.max()
        weights = np.exp(logits)
        return weights / weights.sum()


def load_frozen_policy(path: str | Path) -> FrozenPolicy:
    """:class:`FrozenPolicy` of ``path``, cached per process and file version (a rewritten file is reloaded).

    Raises:
        PolicyLoadError: if ``path`` does not exist or is not a ``MaskablePPO`` snapshot.
    """
    try:
        stat = os.stat(path)
    except OSError:
        raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist") from None
    return _load_cached(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _load_cached(path: str, mtime_ns: int, size: int) -> FrozenPolicy:
    return FrozenPolicy(path)


class PolicyAgent:
    """An agent that samples (or, ``deterministic``, takes the most probable) legal action of a :class:`FrozenPolicy`."""

    def __init__(
        self, policy: FrozenPolicy, seed: int | np.random.Generator | None = None, deterministic: bool = False
    ):
        self.policy = policy
        self.rng = np.random.default_rng(seed)
        self.deterministic = deterministic

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        probabilities = self.policy.probabilities(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(probabilities))
        return int(self.rng.choice(probabilities.size, p=probabilities))


def make_baseline(name: str, seed: int | None = None):
    """A scripted baseline of :mod:`traitors_env.bots`: ``"random"`` or ``"heuristic"``."""
    from traitors_env.bots import make_agent

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

    KINDS = ("latest", "past", "heuristic", "random")

    def __init__(self, weights: Mapping[str, float], snapshots: Sequence[str] = (), seed: int | None = None) -> None:
        for kind, weight in weights.items():
            if kind not in self.KINDS:
                raise ValueError(f"opponent kind {kind!r} is not known; expected one of {self.KINDS}")
            if weight < 0:
                raise ValueError(f"opponent weight {kind}={weight!r} is negative")
        self.snapshots = [str(s) for s in snapshots]
        available = {
            "latest": len(self.snapshots) >= 1,
            "past": len(self.snapshots) >= 2,
            "heuristic": True,
            "random": True,
        }
        self.kinds = [k for k in self.KINDS if available[k] and weights.get(k, 0) > 0]
        if not self.kinds:
            raise ValueError(
                f"no opponent kind can be drawn from weights={dict(weights)} with {len(self.snapshots)} snapshots"
            )
        total = sum(weights[k] for k in self.kinds)
        self.probabilities = np.array([weights[k] / total for k in self.kinds])
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
