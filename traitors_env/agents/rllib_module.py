"""The RLModule of a team trained with Ray RLlib's PPO (needs the ``rllib`` extra: ``ray[rllib]``, torch).

:class:`TeamPPOModule` is RLlib's own action-masking PPO module
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``),
which reads the ``Dict(observations=..., action_mask=...)`` observation of the game master
(``training/rllib/env.py``) and adds ``log(action_mask)`` (clamped) to the logits, plus one
step: the observation is divided by :data:`~traitors_env.agents.checkpoint.OBS_SCALE` so every
feature lies in [-1, 1], as for the SB3 policies. It lives beside the agents so that a saved
module loads (:mod:`traitors_env.agents.rllib_checkpoint`) without importing ``training/``.
"""

from __future__ import annotations

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from .checkpoint import OBS_SCALE

__all__ = ["TeamPPOModule"]

_SCALE = torch.as_tensor(OBS_SCALE)


class TeamPPOModule(ActionMaskingTorchRLModule):
    """RLlib's action-masking PPO module with observations scaled into [-1, 1] (see the module doc)."""

    def _preprocess_batch(self, batch, **kwargs):
        action_mask, batch = super()._preprocess_batch(batch, **kwargs)
        batch[Columns.OBS] = batch[Columns.OBS] / _SCALE.to(batch[Columns.OBS].device)
        return action_mask, batch
