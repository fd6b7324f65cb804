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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..games.traitors_aboard.actions import NUM_ACTIONS
from ..games.traitors_aboard.observation import OBS_HIGH, OBS_LOW, OBS_SIZE

__all__ = [
    "OBS_SCALE",
    "FrozenPolicy",
    "PolicyAgent",
    "PolicyLoadError",
    "cached_loader",
    "load_frozen_policy",
    "masked_probabilities",
    "observation_scale",
    "scale_observation",
]


def observation_scale(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The divisor of each feature of an observation ``Box(low, high)``: its larger absolute bound, at least 1
    (``float32``, the shape of ``low``), so every scaled feature lies in [-1, 1]."""
    return np.maximum(np.maximum(np.abs(low), np.abs(high)), 1.0).astype(np.float32)


#: Observations are divided by this so every feature lies in [-1, 1]; the learner's environment and
#: :class:`FrozenPolicy` both apply it.
OBS_SCALE = observation_scale(OBS_LOW, OBS_HIGH)


def masked_probabilities(logits: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """The softmax of ``logits`` over the legal actions: ``float64``, the shape of ``logits``, zero outside
    ``action_mask`` (which must allow at least one action)."""
    logits = np.where(np.asarray(action_mask, dtype=bool), np.asarray(logits, dtype=np.float64), -np.inf)
    logits -= logits.max()
    weights = np.exp(logits)
    return weights / weights.sum()


def cached_loader(load: Callable[[str], Any]) -> Callable[[str | Path], Any]:
    """``load`` (a path → policy constructor) cached per process and file version: a rewritten file is reloaded.

    The returned function raises :class:`PolicyLoadError` for a path that does not exist.
    """

    @functools.lru_cache(maxsize=64)
    def cached(path: str, mtime_ns: int, size: int):
        return load(path)

    def loader(path: str | Path):
        try:
            stat = os.stat(path)
        except OSError:
            raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist") from None
        return cached(str(path), stat.st_mtime_ns, stat.st_size)

    loader.cache_clear = cached.cache_clear
    return loader


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
    Picklable, so it can be sent to worker processes. The class attributes name the game whose
    spaces the snapshot must have (a subclass serves another game).

    Args:
        path: a ``.zip`` written by ``MaskablePPO.save``.

    Raises:
        PolicyLoadError: if ``path`` does not exist, cannot be loaded as a ``MaskablePPO``, or was
            trained on other observation or action spaces than ``traitors_aboard_v0``'s.
    """

    env_name = "traitors_aboard_v0"
    obs_size = OBS_SIZE
    num_actions = NUM_ACTIONS
    obs_scale = OBS_SCALE

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
        if shape != (self.obs_size,) or actions != self.num_actions:  # e.g. a policy of another environment
            raise PolicyLoadError(
                f"checkpoint {str(path)!r} was trained on observations of shape {shape} and {actions} actions; "
                f"{self.env_name} has ({self.obs_size},) and {self.num_actions}"
            )
        self.path = str(path)
        self.policy = model.policy.eval()

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Action probabilities, shape ``(num_actions,)`` ``float64``, zero outside ``action_mask``."""
        import torch

        policy = self.policy
        with torch.no_grad():
            x = torch.as_tensor((np.asarray(observation, dtype=np.float32) / self.obs_scale)[None])
            latent = policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor))
            logits = policy.action_net(latent)[0].numpy()
        return masked_probabilities(logits, action_mask)


def load_frozen_policy(path: str | Path) -> FrozenPolicy:
    """:class:`FrozenPolicy` of ``path``, cached per process and file version (a rewritten file is reloaded);
    a ``.msgpack`` checkpoint of the JAX backend gives a :class:`~traitors_env.agents.jax_checkpoint.JaxPolicy`.

    Raises:
        PolicyLoadError: if ``path`` does not exist or is not a ``MaskablePPO`` snapshot.
    """
    if str(path).endswith(".msgpack"):  # a checkpoint of the JAX backend: same interface, numpy forward pass
        from .jax_checkpoint import load_jax_policy

        return load_jax_policy(path)
    return _load_sb3(path)


_load_sb3 = cached_loader(FrozenPolicy)


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
