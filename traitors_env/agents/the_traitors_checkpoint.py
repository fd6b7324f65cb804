"""Agents that play a trained ``MaskablePPO`` checkpoint of ``the_traitors_v0`` (needs the ``train`` extra).

The same design as :mod:`traitors_env.agents.checkpoint` (the first game's): the snapshot's torch
modules run under ``torch.no_grad()`` and the logits are masked in numpy; observations are divided
by :data:`OBS_SCALE` (every feature in [-1, 1]), as in training. sb3-contrib and torch are imported
only when a checkpoint is loaded.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from ..the_traitors.actions import NUM_ACTIONS
from ..the_traitors.observation import OBS_HIGH, OBS_LOW, OBS_SIZE
from .checkpoint import PolicyAgent, PolicyLoadError

__all__ = ["OBS_SCALE", "PolicyAgent", "PolicyLoadError", "TheTraitorsPolicy", "load_the_traitors_policy"]

#: Observations are divided by this (the larger absolute Box bound of each feature, at least 1).
OBS_SCALE = np.maximum(np.maximum(np.abs(OBS_LOW), np.abs(OBS_HIGH)), 1.0).astype(np.float32)


class TheTraitorsPolicy:
    """The actor of a saved ``MaskablePPO`` snapshot of ``the_traitors_v0``.

    Raises:
        PolicyLoadError: if ``path`` does not exist, is not a ``MaskablePPO`` snapshot, or was trained
            on other spaces than ``the_traitors_v0``'s (``(791,)`` observations, 36 actions).
    """

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        if not path.is_file():
            raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist")
        from sb3_contrib import MaskablePPO

        try:
            model = MaskablePPO.load(path, device="cpu")
        except Exception as error:  # corrupt zip, wrong algorithm, …
            raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: {error}") from error
        shape, actions = getattr(model.observation_space, "shape", None), getattr(model.action_space, "n", None)
        if shape != (OBS_SIZE,) or actions != NUM_ACTIONS:
            raise PolicyLoadError(
                f"checkpoint {str(path)!r} was trained on observations of shape {shape} and {actions} actions; "
                f"the_traitors_v0 has ({OBS_SIZE},) and {NUM_ACTIONS}"
            )
        self.path = str(path)
        self.policy = model.policy.eval()

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Action probabilities, shape ``(NUM_ACTIONS,)`` ``float64``, zero outside ``action_mask``."""
        import torch

        policy = self.policy
        with torch.no_grad():
            x = torch.as_tensor((np.asarray(observation, dtype=np.float32) / OBS_SCALE)[None])
            latent = policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor))
            logits = policy.action_net(latent)[0].numpy().astype(np.float64)
        logits = np.where(np.asarray(action_mask, dtype=bool), logits, -np.inf)
        logits -= logits.max()
        weights = np.exp(logits)
        return weights / weights.sum()


def load_the_traitors_policy(path: str | Path) -> TheTraitorsPolicy:
    """:class:`TheTraitorsPolicy` of ``path``, cached per process and file version.

    Raises:
        PolicyLoadError: see :class:`TheTraitorsPolicy`.
    """
    try:
        stat = os.stat(path)
    except OSError:
        raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist") from None
    return _load_cached(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _load_cached(path: str, mtime_ns: int, size: int) -> TheTraitorsPolicy:
    return TheTraitorsPolicy(path)
