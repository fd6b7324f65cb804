"""Agents that play a trained ``MaskablePPO`` checkpoint of ``the_traitors_v0`` (needs the ``train`` extra).

The same loader as :mod:`traitors_env.agents.checkpoint` (the first game's), for this game's spaces:
the snapshot's torch modules run under ``torch.no_grad()`` and the logits are masked in numpy;
observations are divided by :data:`OBS_SCALE` (every feature in [-1, 1]), as in training.
sb3-contrib and torch are imported only when a checkpoint is loaded.
"""

from __future__ import annotations

from pathlib import Path

from ..games.the_traitors.actions import NUM_ACTIONS
from ..games.the_traitors.observation import OBS_HIGH, OBS_LOW, OBS_SIZE
from .checkpoint import FrozenPolicy, PolicyAgent, PolicyLoadError, cached_loader, observation_scale

__all__ = ["OBS_SCALE", "PolicyAgent", "PolicyLoadError", "TheTraitorsPolicy", "load_the_traitors_policy"]

#: Observations are divided by this (the larger absolute Box bound of each feature, at least 1).
OBS_SCALE = observation_scale(OBS_LOW, OBS_HIGH)


class TheTraitorsPolicy(FrozenPolicy):
    """The actor of a saved ``MaskablePPO`` snapshot of ``the_traitors_v0``.

    Raises:
        PolicyLoadError: if ``path`` does not exist, is not a ``MaskablePPO`` snapshot, or was trained
            on other spaces than ``the_traitors_v0``'s (``(791,)`` observations, 36 actions).
    """

    env_name = "the_traitors_v0"
    obs_size = OBS_SIZE
    num_actions = NUM_ACTIONS
    obs_scale = OBS_SCALE


_load = cached_loader(TheTraitorsPolicy)


def load_the_traitors_policy(path: str | Path) -> TheTraitorsPolicy:
    """:class:`TheTraitorsPolicy` of ``path``, cached per process and file version.

    Raises:
        PolicyLoadError: see :class:`TheTraitorsPolicy`.
    """
    return _load(path)
