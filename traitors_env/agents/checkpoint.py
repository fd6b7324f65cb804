"""Agents that play a trained ``MaskablePPO`` checkpoint (needs the ``train`` extra: torch, sb3-contrib).

A trained snapshot is a ``MaskablePPO`` zip file. :class:`FrozenPolicy` loads it once
(``MaskablePPO.load(path, device="cpu")``, cached per file version) and runs its torch
modules directly; ``tests/test_training.py`` checks that its action probabilities equal
those of the policy's own masked distribution. sb3-contrib and torch are imported only when
a checkpoint is loaded, so the environment and the baselines need neither.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from ..traitors_aboard.actions import NUM_ACTIONS
from ..traitors_aboard.observation import OBS_HIGH, OBS_LOW, OBS_SIZE

__all__ = ["OBS_SCALE", "FrozenPolicy", "PolicyAgent", "PolicyLoadError", "load_frozen_policy", "scale_observation"]

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
    """:class:`FrozenPolicy` of ``path``, cached per process and file version (a rewritten file is reloaded);
    a ``.msgpack`` checkpoint of the JAX backend gives a :class:`~traitors_env.agents.jax_checkpoint.JaxPolicy`.

    Raises:
        PolicyLoadError: if ``path`` does not exist or is not a ``MaskablePPO`` snapshot.
    """
    if str(path).endswith(".msgpack"):  # a checkpoint of the JAX backend: same interface, numpy forward pass
        from .jax_checkpoint import load_jax_policy

        return load_jax_policy(path)
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
