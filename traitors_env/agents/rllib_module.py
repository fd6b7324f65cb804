"""The RLModule of a side trained with Ray RLlib's PPO (needs the ``rllib`` extra: ``ray[rllib]``, torch).

:class:`TeamPPOModule` is RLlib's own action-masking PPO module
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``),
which reads the ``Dict(observations=Box(low, high), action_mask=...)`` observation of the game master
(``training/rllib/env.py``) and adds ``log(action_mask)`` (clamped) to the logits, plus one
step: the observation is divided by :func:`~traitors_env.agents.policy.observation_scale` of its own
``observations`` Box (the game's declared bounds) so every feature lies in [-1, 1], as for the SB3 policies.
It lives beside the agents so that a saved module loads (:mod:`traitors_env.agents.rllib_checkpoint`)
without importing ``training/``.
"""

from __future__ import annotations

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from .policy import observation_scale

__all__ = ["TeamPPOModule"]


class TeamPPOModule(ActionMaskingTorchRLModule):
    """RLlib's action-masking PPO module with observations scaled into [-1, 1] (see the module doc)."""

    def _preprocess_batch(self, batch, **kwargs):
        action_mask, batch = super()._preprocess_batch(batch, **kwargs)
        scale = getattr(self, "_obs_scale", None)
        if scale is None:  # the game's scale, from the module's own space (the game master's Box(low, high))
            box = self.observation_space_with_mask["observations"]
            scale = self._obs_scale = torch.as_tensor(observation_scale(box.low, box.high))
        batch[Columns.OBS] = batch[Columns.OBS] / scale.to(batch[Columns.OBS].device)
        return action_mask, batch
